//! `nn.Module` calls with hooks, in the order of PyTorch's `_call_impl`:
//! forward pre-hooks (global first) → full-backward input wrapping →
//! forward → forward hooks (global first) → full-backward output wrapping →
//! legacy backward hooks on the output's grad_fn.

pub mod backward_hook;
pub mod linear;
pub mod sequential;
pub mod value;

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::error::{Error, Result};
use crate::hooks::{HookList, RemovableHandle};
use crate::ids::{HandleId, ModuleId};
use crate::tensor::Tensor;
use crate::trace::{self, Event, HookKind, HookTarget, HookValue, ModulePhase};
pub use value::Value;

/// The module's forward (a JS function, or Rust for `nn.Linear`).
pub trait ModuleForward {
    fn forward(&self, module: &Module, args: &[Value], kwargs: Option<&Value>) -> Result<Value>;
}

/// `fn(module, args[, kwargs]) → args?` (with kwargs: `[args, kwargs]?`).
pub trait ForwardPreHook {
    fn call(
        &self,
        module: &Module,
        args: &[Value],
        kwargs: Option<&Value>,
    ) -> Result<Option<Value>>;
    fn name(&self) -> String {
        String::new()
    }
}

/// `fn(module, args[, kwargs], output) → output?`.
pub trait ForwardHook {
    fn call(
        &self,
        module: &Module,
        args: &[Value],
        kwargs: Option<&Value>,
        output: &Value,
    ) -> Result<Option<Value>>;
    fn name(&self) -> String {
        String::new()
    }
}

/// `fn(module, grad_input, grad_output) → grad_input?` (legacy and full).
pub trait ModuleBackwardHook {
    fn call(
        &self,
        module: &Module,
        grad_input: &[Option<Tensor>],
        grad_output: &[Option<Tensor>],
    ) -> Result<Option<Vec<Option<Tensor>>>>;
    fn name(&self) -> String {
        String::new()
    }
    /// Where the user registered it (shown in `graph()`), when known.
    fn source(&self) -> Option<crate::protocol::SourceLoc> {
        None
    }
}

/// `fn(module, grad_output) → grad_output?`.
pub trait ModuleBackwardPreHook {
    fn call(
        &self,
        module: &Module,
        grad_output: &[Option<Tensor>],
    ) -> Result<Option<Vec<Option<Tensor>>>>;
    fn name(&self) -> String {
        String::new()
    }
    /// Where the user registered it (shown in `graph()`), when known.
    fn source(&self) -> Option<crate::protocol::SourceLoc> {
        None
    }
}

pub struct PreHookEntry {
    pub hook: Rc<dyn ForwardPreHook>,
    pub with_kwargs: bool,
}

pub struct ForwardHookEntry {
    pub hook: Rc<dyn ForwardHook>,
    pub with_kwargs: bool,
}

/// Hook lists a module (or the global registry) owns.
#[derive(Default)]
pub struct ModuleHooks {
    pub forward_pre: Rc<HookList<Rc<PreHookEntry>>>,
    pub forward: Rc<HookList<Rc<ForwardHookEntry>>>,
    pub backward: Rc<HookList<Rc<dyn ModuleBackwardHook>>>,
    pub backward_pre: Rc<HookList<Rc<dyn ModuleBackwardPreHook>>>,
    /// PyTorch's `_is_full_backward_hook`: None until a backward hook is added.
    pub is_full_backward_hook: Cell<Option<bool>>,
}

pub struct ModuleImpl {
    id: ModuleId,
    name: RefCell<String>,
    forward: Rc<dyn ModuleForward>,
    hooks: ModuleHooks,
    parameters: RefCell<Vec<(String, Tensor)>>,
    children: RefCell<Vec<(String, Module)>>,
}

#[derive(Clone)]
pub struct Module(Rc<ModuleImpl>);

thread_local! {
    static GLOBAL: ModuleHooks = ModuleHooks::default();
}

/// The global registry's hooks, then the module's own (PyTorch's order):
/// an append, not a `chain().collect()` (compiled once per hook type: issue
/// 10, W5).
fn global_then_own<T>(mut global: Vec<T>, mut own: Vec<T>) -> Vec<T> {
    global.append(&mut own);
    global
}

pub const MIXED_BACKWARD_HOOKS_ERROR: &str = "Cannot use both regular backward hooks and full backward hooks on a single Module. Please use only one of them.";

fn add_backward(
    hooks: &ModuleHooks,
    hook: Rc<dyn ModuleBackwardHook>,
    full: bool,
    prepend: bool,
) -> Result<RemovableHandle> {
    if hooks.is_full_backward_hook.get() == Some(!full) {
        return Err(Error::runtime(MIXED_BACKWARD_HOOKS_ERROR));
    }
    hooks.is_full_backward_hook.set(Some(full));
    let id = hooks.backward.add(hook, prepend);
    Ok(RemovableHandle::for_list(id, &hooks.backward))
}

impl ModuleHooks {
    fn add_forward_pre(
        &self,
        hook: Rc<dyn ForwardPreHook>,
        prepend: bool,
        with_kwargs: bool,
    ) -> RemovableHandle {
        let id = self
            .forward_pre
            .add(Rc::new(PreHookEntry { hook, with_kwargs }), prepend);
        RemovableHandle::for_list(id, &self.forward_pre)
    }
    fn add_forward(
        &self,
        hook: Rc<dyn ForwardHook>,
        prepend: bool,
        with_kwargs: bool,
    ) -> RemovableHandle {
        let id = self
            .forward
            .add(Rc::new(ForwardHookEntry { hook, with_kwargs }), prepend);
        RemovableHandle::for_list(id, &self.forward)
    }
    fn add_backward_pre(
        &self,
        hook: Rc<dyn ModuleBackwardPreHook>,
        prepend: bool,
    ) -> RemovableHandle {
        let id = self.backward_pre.add(hook, prepend);
        RemovableHandle::for_list(id, &self.backward_pre)
    }
    fn backward_hooks(&self, full: bool) -> Vec<(HandleId, Rc<dyn ModuleBackwardHook>)> {
        if self.is_full_backward_hook.get() == Some(full) {
            self.backward.snapshot()
        } else {
            Vec::new()
        }
    }
}

/// `torch.nn.modules.module.register_module_*_hook`: run before every
/// module's own hooks.
pub mod global {
    use super::*;
    pub fn register_forward_pre_hook(hook: Rc<dyn ForwardPreHook>) -> RemovableHandle {
        GLOBAL.with(|g| g.add_forward_pre(hook, false, false))
    }
    pub fn register_forward_hook(hook: Rc<dyn ForwardHook>) -> RemovableHandle {
        GLOBAL.with(|g| g.add_forward(hook, false, false))
    }
    pub fn register_full_backward_hook(
        hook: Rc<dyn ModuleBackwardHook>,
    ) -> Result<RemovableHandle> {
        GLOBAL.with(|g| add_backward(g, hook, true, false))
    }
    pub fn register_full_backward_pre_hook(hook: Rc<dyn ModuleBackwardPreHook>) -> RemovableHandle {
        GLOBAL.with(|g| g.add_backward_pre(hook, false))
    }
}

fn tensors_snapshot(values: &[Value]) -> HookValue {
    HookValue::Many(value::snapshot_values(values))
}

impl Module {
    pub fn new(name: impl Into<String>, forward: Rc<dyn ModuleForward>) -> Module {
        Module(Rc::new(ModuleImpl {
            id: ModuleId::next(),
            name: RefCell::new(name.into()),
            forward,
            hooks: ModuleHooks::default(),
            parameters: RefCell::new(Vec::new()),
            children: RefCell::new(Vec::new()),
        }))
    }

    pub fn id(&self) -> ModuleId {
        self.0.id
    }
    pub fn name(&self) -> String {
        self.0
            .name
            .try_borrow()
            .map(|n| n.clone())
            .unwrap_or_else(|_| crate::error::fault_default("a module's name is busy"))
    }
    pub fn ptr_eq(&self, other: &Module) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }

    // ----- hook registration ----------------------------------------------

    pub fn register_forward_pre_hook(
        &self,
        hook: Rc<dyn ForwardPreHook>,
        prepend: bool,
        with_kwargs: bool,
    ) -> RemovableHandle {
        self.0.hooks.add_forward_pre(hook, prepend, with_kwargs)
    }
    pub fn register_forward_hook(
        &self,
        hook: Rc<dyn ForwardHook>,
        prepend: bool,
        with_kwargs: bool,
    ) -> RemovableHandle {
        self.0.hooks.add_forward(hook, prepend, with_kwargs)
    }
    /// Legacy `register_backward_hook`.
    pub fn register_backward_hook(
        &self,
        hook: Rc<dyn ModuleBackwardHook>,
    ) -> Result<RemovableHandle> {
        add_backward(&self.0.hooks, hook, false, false)
    }
    pub fn register_full_backward_hook(
        &self,
        hook: Rc<dyn ModuleBackwardHook>,
        prepend: bool,
    ) -> Result<RemovableHandle> {
        add_backward(&self.0.hooks, hook, true, prepend)
    }
    pub fn register_full_backward_pre_hook(
        &self,
        hook: Rc<dyn ModuleBackwardPreHook>,
        prepend: bool,
    ) -> RemovableHandle {
        self.0.hooks.add_backward_pre(hook, prepend)
    }

    // ----- parameters and children -------------------------------------------

    pub fn register_parameter(&self, name: &str, t: Tensor) -> Result<()> {
        if name.is_empty() || name.contains('.') {
            return Err(Error::type_error(format!(
                "parameter name can't be empty or contain \".\", got: \"{name}\""
            )));
        }
        if t.grad_fn().is_some() {
            return Err(Error::Type(format!(
                "Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be created explicitly. To express '{name}' as a function of another Tensor, compute the value in the forward() method."
            )));
        }
        let mut p = self
            .0
            .parameters
            .try_borrow_mut()
            .map_err(|_| Error::internal("parameters busy"))?;
        match p.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = t,
            None => p.push((name.to_string(), t)),
        }
        Ok(())
    }
    pub fn get_parameter(&self, name: &str) -> Option<Tensor> {
        self.named_parameters()
            .into_iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t)
    }
    pub fn add_module(&self, name: &str, child: Module) -> Result<()> {
        if name.is_empty() || name.contains('.') {
            return Err(Error::type_error(format!(
                "module name can't be empty or contain \".\", got: {name}"
            )));
        }
        let mut c = self
            .0
            .children
            .try_borrow_mut()
            .map_err(|_| Error::internal("children busy"))?;
        match c.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = child,
            None => c.push((name.to_string(), child)),
        }
        Ok(())
    }
    /// Direct children in registration order (`children()`).
    pub fn children(&self) -> Vec<Module> {
        self.0
            .children
            .try_borrow()
            .map(|c| c.iter().map(|(_, m)| m.clone()).collect())
            .unwrap_or_else(|_| crate::error::fault_default("a module's children are busy"))
    }
    /// `named_modules()`: itself as `''`, then children depth-first.
    pub fn named_modules(&self) -> Vec<(String, Module)> {
        let mut out = vec![(String::new(), self.clone())];
        let children = self
            .0
            .children
            .try_borrow()
            .map(|c| c.clone())
            .unwrap_or_else(|_| crate::error::fault_default("a module's children are busy"));
        for (name, child) in children {
            if out.iter().any(|(_, m)| m.ptr_eq(&child)) {
                continue;
            }
            for (sub, m) in child.named_modules() {
                let q = if sub.is_empty() {
                    name.clone()
                } else {
                    format!("{name}.{sub}")
                };
                out.push((q, m));
            }
        }
        out
    }
    /// `named_parameters()`: own first, then children's with qualified names.
    pub fn named_parameters(&self) -> Vec<(String, Tensor)> {
        let mut out: Vec<(String, Tensor)> = Vec::new();
        for (prefix, m) in self.named_modules() {
            let params = m
                .0
                .parameters
                .try_borrow()
                .map(|p| p.clone())
                .unwrap_or_else(|_| crate::error::fault_default("a module's parameters are busy"));
            for (n, t) in params {
                if out.iter().any(|(_, x)| x.ptr_eq(&t)) {
                    continue;
                }
                let q = if prefix.is_empty() {
                    n
                } else {
                    format!("{prefix}.{n}")
                };
                out.push((q, t));
            }
        }
        out
    }
    pub fn parameters(&self) -> Vec<Tensor> {
        self.named_parameters()
            .into_iter()
            .map(|(_, t)| t)
            .collect()
    }
    /// `zero_grad()`: PyTorch's default `set_to_none=True`.
    pub fn zero_grad(&self) -> Result<()> {
        for p in self.parameters() {
            p.set_grad(None)?;
        }
        Ok(())
    }

    // ----- the call ------------------------------------------------------------

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
        self.phase(ModulePhase::PreHook);
        let pre: Vec<(HandleId, Rc<PreHookEntry>)> = global_then_own(
            GLOBAL.with(|g| g.forward_pre.snapshot()),
            self.0.hooks.forward_pre.snapshot(),
        );
        for (handle, entry) in pre {
            let before = tensors_snapshot(&args);
            if entry.with_kwargs {
                let kw = kwargs.clone().unwrap_or(Value::Dict(Vec::new()));
                let r = entry.hook.call(self, &args, Some(&kw)).map_err(|e| {
                    self.hook_err(
                        "forward pre-hook",
                        (handle, HookKind::ModulePre),
                        entry.hook.name(),
                        e,
                    )
                })?;
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
                let r = entry.hook.call(self, &args, None).map_err(|e| {
                    self.hook_err(
                        "forward pre-hook",
                        (handle, HookKind::ModulePre),
                        entry.hook.name(),
                        e,
                    )
                })?;
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
        self.phase(ModulePhase::End);
        Ok(result)
    }

    pub fn hooks(&self) -> &ModuleHooks {
        &self.0.hooks
    }
}

// Closures implement the module traits, so native code and tests can use them.
impl<F: Fn(&[Value], Option<&Value>) -> Result<Value>> ModuleForward for F {
    fn forward(&self, _m: &Module, args: &[Value], kwargs: Option<&Value>) -> Result<Value> {
        self(args, kwargs)
    }
}
impl<F: Fn(&[Value], Option<&Value>) -> Result<Option<Value>>> ForwardPreHook for F {
    fn call(&self, _m: &Module, args: &[Value], kwargs: Option<&Value>) -> Result<Option<Value>> {
        self(args, kwargs)
    }
}
impl<F: Fn(&[Value], Option<&Value>, &Value) -> Result<Option<Value>>> ForwardHook for F {
    fn call(
        &self,
        _m: &Module,
        args: &[Value],
        kwargs: Option<&Value>,
        output: &Value,
    ) -> Result<Option<Value>> {
        self(args, kwargs, output)
    }
}
impl<F> ModuleBackwardHook for F
where
    F: Fn(&[Option<Tensor>], &[Option<Tensor>]) -> Result<Option<Vec<Option<Tensor>>>>,
{
    fn call(
        &self,
        _m: &Module,
        gi: &[Option<Tensor>],
        go: &[Option<Tensor>],
    ) -> Result<Option<Vec<Option<Tensor>>>> {
        self(gi, go)
    }
}
impl<F: Fn(&[Option<Tensor>]) -> Result<Option<Vec<Option<Tensor>>>>> ModuleBackwardPreHook for F {
    fn call(&self, _m: &Module, go: &[Option<Tensor>]) -> Result<Option<Vec<Option<Tensor>>>> {
        self(go)
    }
}
