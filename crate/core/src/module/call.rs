//! `module(*args, **kwargs)`, in the order of PyTorch's `_call_impl`:
//! forward pre-hooks (global first) → full-backward input wrapping →
//! forward → forward hooks (global first) → full-backward output wrapping →
//! legacy backward hooks on the output's grad_fn; with the trace's module
//! phases and hook events.

use std::rc::Rc;

use super::registry::{global_then_own, ForwardHookEntry, PreHookEntry, GLOBAL};
use super::{backward_hook, value, Module, Value};
use crate::error::{Error, Result};
use crate::ids::HandleId;
use crate::trace::{self, Event, HookKind, HookTarget, HookValue, ModulePhase};

fn tensors_snapshot(values: &[Value]) -> HookValue {
    HookValue::Many(value::snapshot_values(values))
}

crate::thread_refcell!(
    /// The modules whose forward is running, innermost last (kept only while
    /// a trace records): a call's `path` in the trace is its name in the
    /// innermost of them, so two `Linear` layers read `encoder` and `head`.
    static CALLERS: Vec<Module> = Vec::new();
);

/// One module's forward on `CALLERS`, popped when the forward returns or fails.
struct CallerFrame(bool);

impl CallerFrame {
    fn enter(m: &Module) -> Self {
        let on = trace::is_recording()
            && CALLERS.with(|c| c.try_borrow_mut().map(|mut v| v.push(m.clone())).is_ok());
        CallerFrame(on)
    }
}

impl Drop for CallerFrame {
    fn drop(&mut self) {
        if self.0 {
            CALLERS.with(|c| c.try_borrow_mut().map(|mut v| v.pop()).ok());
        }
    }
}

impl Module {
    /// This module's `named_modules()` name in the innermost running forward
    /// that reaches it (PyTorch's own naming: `layers.0` for a ModuleList's
    /// first entry), or None.
    fn path_in_caller(&self) -> Option<String> {
        // A copy: `named_modules()` must not run under the list's borrow.
        let callers: Vec<Module> =
            CALLERS.with(|c| c.try_borrow().map(|v| v.clone()).unwrap_or_default());
        callers.iter().rev().find_map(|caller| {
            caller
                .named_modules()
                .into_iter()
                .find(|(name, m)| !name.is_empty() && m.id() == self.id())
                .map(|(name, _)| name)
        })
    }

    fn phase(&self, phase: ModulePhase, path: &Option<String>) {
        trace::record(|| Event::Module {
            module: self.name(),
            module_id: self.id(),
            phase,
            path: path.clone(),
        });
    }

    /// `name` is called only while a trace records.
    fn hook_event(
        &self,
        kind: HookKind,
        handle: HandleId,
        name: impl FnOnce() -> String,
        before: HookValue,
        after: HookValue,
    ) {
        trace::record(|| Event::Hook {
            kind,
            handle,
            name: name(),
            target: HookTarget::Module(self.id(), self.name(), None),
            before,
            after,
        });
    }

    /// The error of this module's forward (pre-)hook `handle` that raised
    /// `e`, also the trace's `error` event naming that hook (no backward
    /// records it).
    fn hook_err(
        &self,
        what: &str,
        (handle, kind): (HandleId, HookKind),
        name: String,
        e: Error,
    ) -> Error {
        let message = self.wrap_err(what, e).message().to_owned();
        let err = Error::in_hook(message, handle, kind, name);
        trace::record_error(&err, None);
        err
    }

    fn wrap_err(&self, what: &str, e: Error) -> Error {
        Error::runtime(format!(
            "{what} of module '{}' raised an error: {}",
            self.name(),
            e.message()
        ))
    }

    /// `module(*args, **kwargs)`.
    pub fn call(&self, args: Vec<Value>, kwargs: Option<Value>) -> Result<Value> {
        let mut args = args;
        let mut kwargs = kwargs;
        let path = if trace::is_recording() {
            self.path_in_caller()
        } else {
            None
        };
        self.phase(ModulePhase::PreHook, &path);
        let pre: Vec<(HandleId, Rc<PreHookEntry>)> = global_then_own(
            GLOBAL.with(|g| g.forward_pre.snapshot()),
            self.0.hooks.forward_pre.snapshot(),
        );
        for (handle, entry) in pre {
            let before = tensors_snapshot(&args);
            // One call for both kinds of pre-hook; only what a result means differs.
            let kw = entry
                .with_kwargs
                .then(|| kwargs.clone().unwrap_or(Value::Dict(Vec::new())));
            let r = entry.hook.call(self, &args, kw.as_ref()).map_err(|e| {
                self.hook_err(
                    "forward pre-hook",
                    (handle, HookKind::ModulePre),
                    entry.hook.name(),
                    e,
                )
            })?;
            match (r, entry.with_kwargs) {
                (None, _) => {}
                (Some(Value::Tuple(pair)), true) if pair.len() == 2 => {
                    let mut it = pair.into_iter();
                    args = it.next().map(Value::into_args).unwrap_or_default();
                    kwargs = it.next();
                }
                (Some(other), true) => {
                    return Err(Error::runtime(format!(
                        "forward pre-hook must return None or a tuple of (new_args, new_kwargs), but got {}.",
                        other.describe()
                    )))
                }
                (Some(r), false) => args = r.into_args(),
            }
            self.hook_event(
                HookKind::ModulePre,
                handle,
                || entry.hook.name(),
                before,
                tensors_snapshot(&args),
            );
        }

        let full_hooks: Vec<_> = global_then_own(
            GLOBAL.with(|g| g.backward_hooks(true)),
            self.0.hooks.backward_hooks(true),
        );
        let legacy_hooks: Vec<_> = global_then_own(
            GLOBAL.with(|g| g.backward_hooks(false)),
            self.0.hooks.backward_hooks(false),
        );
        let pre_bw: Vec<_> = global_then_own(
            GLOBAL.with(|g| g.backward_pre.snapshot()),
            self.0.hooks.backward_pre.snapshot(),
        );
        let bw_hook = if !full_hooks.is_empty() || !pre_bw.is_empty() {
            let bw = backward_hook::BackwardHook::new(self.clone(), full_hooks, pre_bw);
            args = bw.setup_input_hook(args)?;
            Some(bw)
        } else {
            None
        };

        self.phase(ModulePhase::Forward, &path);
        let frame = CallerFrame::enter(self);
        let forward = self.0.forward.forward(self, &args, kwargs.as_ref());
        drop(frame);
        let mut result = forward.map_err(|e| self.wrap_err("forward", e))?;
        self.phase(ModulePhase::Hook, &path);

        let fwd: Vec<(HandleId, Rc<ForwardHookEntry>)> = global_then_own(
            GLOBAL.with(|g| g.forward.snapshot()),
            self.0.hooks.forward.snapshot(),
        );
        for (handle, entry) in fwd {
            let before = HookValue::Many(value::snapshot_values(&result.tuple_items()));
            let kw = if entry.with_kwargs {
                Some(kwargs.clone().unwrap_or(Value::Dict(Vec::new())))
            } else {
                None
            };
            let r = entry
                .hook
                .call(self, &args, kw.as_ref(), &result)
                .map_err(|e| {
                    self.hook_err(
                        "forward hook",
                        (handle, HookKind::ModuleForward),
                        entry.hook.name(),
                        e,
                    )
                })?;
            if let Some(r) = r {
                result = r;
            }
            self.hook_event(
                HookKind::ModuleForward,
                handle,
                || entry.hook.name(),
                before,
                HookValue::Many(value::snapshot_values(&result.tuple_items())),
            );
        }

        if let Some(bw) = bw_hook {
            if !matches!(result, Value::Tensor(_) | Value::Tuple(_)) {
                crate::context::warn(&format!(
                    "For backward hooks to be called, module output should be a Tensor or a tuple of Tensors but received {}",
                    result.describe()
                ));
            }
            result = bw.setup_output_hook(result)?;
        }
        if !legacy_hooks.is_empty() {
            backward_hook::attach_legacy_hooks(self, &legacy_hooks, &args, &result);
        }
        self.phase(ModulePhase::End, &path);
        Ok(result)
    }
}
