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

impl Module {
    fn phase(&self, phase: ModulePhase) {
        trace::record(|| Event::Module {
            module: self.name(),
            module_id: self.id(),
            phase,
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
        self.phase(ModulePhase::PreHook);
        let pre: Vec<(HandleId, Rc<PreHookEntry>)> = global_then_own(
            GLOBAL.with(|g| g.forward_pre.snapshot()),
            self.0.hooks.forward_pre.snapshot(),
        );
        for (handle, entry) in pre {
            let before = tensors_snapshot(&args);
            if entry.with_kwargs {
                let kw = kwargs.clone().unwrap_or(Value::Dict(Vec::new()));
                let r = entry
                    .hook
                    .call(self, &args, Some(&kw))
                    .map_err(|e| self.wrap_err("forward pre-hook", e))?;
                if let Some(r) = r {
                    match r {
                        Value::Tuple(pair) if pair.len() == 2 => {
                            let mut it = pair.into_iter();
                            args = it.next().map(Value::into_args).unwrap_or_default();
                            kwargs = it.next();
                        }
                        other => {
                            return Err(Error::runtime(format!(
                                "forward pre-hook must return None or a tuple of (new_args, new_kwargs), but got {}.",
                                other.describe()
                            )))
                        }
                    }
                }
            } else {
                let r = entry
                    .hook
                    .call(self, &args, None)
                    .map_err(|e| self.wrap_err("forward pre-hook", e))?;
                if let Some(r) = r {
                    args = r.into_args();
                }
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

        self.phase(ModulePhase::Forward);
        let mut result = self
            .0
            .forward
            .forward(self, &args, kwargs.as_ref())
            .map_err(|e| self.wrap_err("forward", e))?;
        self.phase(ModulePhase::Hook);

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
                .map_err(|e| self.wrap_err("forward hook", e))?;
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
        self.phase(ModulePhase::End);
        Ok(result)
    }
}
