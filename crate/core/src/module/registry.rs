//! Where module hooks are registered: each module's own lists and the
//! global registry (`register_module_*_hook`), the mixed legacy/full
//! backward hook rule, and the order they run in (global first). The call
//! (call.rs) only reads these lists.

use std::cell::Cell;
use std::rc::Rc;

use super::{ForwardHook, ForwardPreHook, Module, ModuleBackwardHook, ModuleBackwardPreHook};
use crate::error::{Error, Result};
use crate::hooks::{HookList, RemovableHandle};
use crate::ids::HandleId;

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

thread_local! {
    pub(super) static GLOBAL: ModuleHooks = ModuleHooks::default();
}

/// The global registry's hooks, then the module's own (PyTorch's order):
/// an append, not a `chain().collect()` (compiled once per hook type: issue
/// 10, W5).
pub(super) fn global_then_own<T>(mut global: Vec<T>, mut own: Vec<T>) -> Vec<T> {
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
    pub(super) fn backward_hooks(&self, full: bool) -> Vec<(HandleId, Rc<dyn ModuleBackwardHook>)> {
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

impl Module {
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
}
