//! Hook lists and handles, modelled on `torch/utils/hooks.py`: every owner
//! keeps an ordered list of `(HandleId, hook)`; a handle holds only a weak
//! reference to that list, `remove()` is idempotent, `prepend` inserts at
//! the front. Hooks run from a snapshot of the list, so a hook that removes a
//! later hook or adds a new one mid-pass behaves as in PyTorch (whose
//! `_call_hooks` iterates over `PyDict_Values`, a copy).
//!
//! The hook *types* are traits defined here; the wasm binding implements them
//! with a wrapper of `js_sys::Function`, native tests with closures. The
//! lists are hooks/list.rs, the handles hooks/handle.rs.

use std::rc::{Rc, Weak};

use crate::error::Result;
use crate::ids::HandleId;
use crate::protocol::{HookInfo, HookKind, SourceLoc};
use crate::tensor::{Tensor, TensorImpl};

// The lists hooks are kept in, and the handles that remove them, each have
// their own file; their items stay at hooks::.
mod handle;
mod list;
pub use handle::{RemovableHandle, RemoveHook};
pub use list::{FirstInline, HookList, LazyHooks, Snapshot};

/// `fn(grad) -> Tensor?` — `t.register_hook`.
pub trait TensorHook {
    fn call(&self, grad: &Tensor) -> Result<Option<Tensor>>;
    /// The function's name, shown in `graph()` and error messages.
    fn name(&self) -> String {
        String::new()
    }
    /// Where the user registered it (shown in `graph()`), when known.
    fn source(&self) -> Option<SourceLoc> {
        None
    }
}

/// `fn(grad_outputs) -> grads?` — `node.register_prehook`.
pub trait NodePreHook {
    fn call(&self, grad_outputs: &[Option<Tensor>]) -> Result<Option<Vec<Option<Tensor>>>>;
    fn name(&self) -> String {
        String::new()
    }
    /// Where the user registered it (shown in `graph()`), when known.
    fn source(&self) -> Option<SourceLoc> {
        None
    }
    /// The trace/graph kind; module machinery registers its own kinds.
    fn kind(&self) -> HookKind {
        HookKind::NodePre
    }
}

/// `fn(grad_inputs, grad_outputs) -> grad_inputs?` — `node.register_hook`.
pub trait NodePostHook {
    fn call(
        &self,
        grad_inputs: &[Option<Tensor>],
        grad_outputs: &[Option<Tensor>],
    ) -> Result<Option<Vec<Option<Tensor>>>>;
    fn name(&self) -> String {
        String::new()
    }
    /// Where the user registered it (shown in `graph()`), when known.
    fn source(&self) -> Option<SourceLoc> {
        None
    }
    fn kind(&self) -> HookKind {
        HookKind::NodePost
    }
    /// Module machinery records its own per-user-hook trace events and error
    /// messages; the engine then adds none for the wrapper.
    fn records_itself(&self) -> bool {
        false
    }
    /// Its rows in `graph()`, given its node-level handle. A module's hook
    /// wrapper lists the user's hooks it runs instead, under the handles the
    /// user holds, so `graph()` and `trace()` name the same handle.
    fn rows(&self, handle: HandleId) -> Vec<HookInfo> {
        vec![HookInfo {
            source: self.source(),
            ..HookInfo::new(handle, self.kind(), self.name())
        }]
    }
    /// Called at the end of a backward without `retain_graph` on the post
    /// hooks of every node that ran: drops state that only that backward
    /// needed (a module call's captured hooks), so a finished graph keeps no
    /// JS closure alive.
    fn release(&self) {}
}

/// `fn(tensor)` after `.grad` was written — `register_post_accumulate_grad_hook`.
pub trait PostAccumulateGradHook {
    /// Returns whether the hook returned a value (PyTorch's error, raised by the engine).
    fn call(&self, tensor: &Tensor) -> Result<bool>;
    fn name(&self) -> String {
        String::new()
    }
    /// Where the user registered it (shown in `graph()`), when known.
    fn source(&self) -> Option<SourceLoc> {
        None
    }
}

/// What a pack hook returned (`hg.savedTensorsHooks`): kept in place of
/// the saved tensor until backward unpacks it.
pub trait PackedTensor {
    /// Calls the unpack hook on the packed value.
    fn unpack(&self) -> Result<Tensor>;
    /// The packed value when it is a tensor (shown in traces).
    fn packed_tensor(&self) -> Option<Tensor> {
        None
    }
    /// The handle `hg.savedTensorsHooks` gave this pair (trace events).
    fn handle(&self) -> HandleId;
    /// The name of the pack (`unpack` false) or unpack hook (trace events).
    fn name(&self, _unpack: bool) -> String {
        String::new()
    }
}

/// `torch.autograd.graph.saved_tensors_hooks(pack, unpack)`: the pair of
/// hooks active while ops save tensors for backward.
pub trait SavedTensorsHooks {
    /// `pack(tensor) → anything`, when an op saves `tensor`.
    fn pack(&self, tensor: &Tensor) -> Result<Rc<dyn PackedTensor>>;
}

impl<F: Fn(&Tensor) -> Result<Option<Tensor>>> TensorHook for F {
    fn call(&self, grad: &Tensor) -> Result<Option<Tensor>> {
        self(grad)
    }
}
impl<F: Fn(&[Option<Tensor>]) -> Result<Option<Vec<Option<Tensor>>>>> NodePreHook for F {
    fn call(&self, g: &[Option<Tensor>]) -> Result<Option<Vec<Option<Tensor>>>> {
        self(g)
    }
}
impl<F> NodePostHook for F
where
    F: Fn(&[Option<Tensor>], &[Option<Tensor>]) -> Result<Option<Vec<Option<Tensor>>>>,
{
    fn call(
        &self,
        gi: &[Option<Tensor>],
        go: &[Option<Tensor>],
    ) -> Result<Option<Vec<Option<Tensor>>>> {
        self(gi, go)
    }
}
impl<F: Fn(&Tensor) -> Result<()>> PostAccumulateGradHook for F {
    fn call(&self, t: &Tensor) -> Result<bool> {
        self(t).map(|_| false)
    }
}

/// An entry of a tensor's hook list. `retain_grad()` lives in the same list
/// so that PyTorch 1.x order (where it was called) can be reproduced; under
/// PyTorch 2 the engine runs it after all user hooks instead. Stored by
/// value in the list: reaching the hook during backward costs one pointer
/// less (the list's memory is cold by then: it was made during forward).
#[derive(Clone)]
pub enum TensorHookEntry {
    User(Rc<dyn TensorHook>),
    RetainGrad(Weak<TensorImpl>),
}
