//! Module backward hooks, both kinds, as PyTorch wires them.
//!
//! Full hooks (full.rs, `torch/utils/hooks.py` `BackwardHook`): the module's
//! tensor inputs and outputs are each passed through one identity node,
//! `BackwardHookFunctionBackward`. A hook on the output node records
//! grad_output (and runs the full backward pre-hooks); a hook on the input
//! node then has grad_input and calls the user's full backward hooks.
//!
//! Legacy hooks (legacy.rs, `register_backward_hook`): a post-hook on the
//! grad_fn of the module's first output tensor. It sees *that node's*
//! gradients — for `a*b*c` the last multiplication's (4, 6), not (12, 8, 6).
//! PyTorch keeps this behaviour (deprecated); so do we, on purpose.
//!
//! This file holds what both kinds share: one user hook call (its error
//! text, the check of what it returns, its trace event) and the graph rows
//! that show a user's hook under the handle the user holds.

use std::rc::Rc;

use super::{Module, ModuleBackwardHook, ModuleBackwardPreHook};
use crate::error::{Error, Result};
use crate::ids::{HandleId, NodeId};
use crate::protocol::{HookInfo, SourceLoc};
use crate::tensor::{Array, Tensor};
use crate::trace::{self, Event, HookKind, HookTarget, HookValue};

mod full;
mod legacy;

pub use full::{backward_hook_function, BackwardHook, NO_INPUT_REQUIRES_GRAD_WARNING};
pub use legacy::{
    attach_legacy_hooks, LegacyHook, LEGACY_MULTI_NODE_OUTPUT_WARNING, LEGACY_MULTI_NODE_WARNING,
    LEGACY_NESTED_OUTPUT_WARNING, LEGACY_NON_TENSOR_INPUT_WARNING,
    LEGACY_NON_TENSOR_OUTPUT_WARNING,
};

type Grads = Vec<Option<Tensor>>;

fn snap(v: &[Option<Tensor>]) -> Vec<Option<Array>> {
    v.iter()
        .map(|t| {
            t.as_ref()
                .and_then(|t| crate::error::snapshot(t.to_array()))
        })
        .collect()
}

/// Where a module hook runs: its module and the node it is attached to
/// (shown in trace events).
struct Site<'a> {
    module: &'a Module,
    node: NodeId,
}

/// One call of a user's module backward (pre-)hook, the same for every kind:
/// runs `call` on `args`, wraps a failure in "<kind> on module 'M' raised
/// an error", lets `accept` turn what the hook returned into the gradients
/// that replace `args` (or an error in PyTorch's words; `None`: keep
/// `args`), and records the hook's trace event (before → after). `name` is
/// called only while a trace records (a JS hook's name is a string
/// conversion).
#[allow(clippy::too_many_arguments)]
fn call_user_hook(
    site: &Site,
    kind: HookKind,
    handle: HandleId,
    name: impl FnOnce() -> String,
    args: &[Option<Tensor>],
    call: impl FnOnce(&[Option<Tensor>]) -> Result<Option<Grads>>,
    accept: impl FnOnce(Grads) -> Result<Option<Grads>>,
) -> Result<Option<Grads>> {
    let before = snap(args);
    let what = match kind {
        HookKind::ModuleFullBackwardPre => "full backward pre-hook",
        HookKind::ModuleFullBackward => "full backward hook",
        _ => "backward hook",
    };
    let returned = match call(args) {
        Ok(r) => r,
        Err(e) => {
            let module = site.module.name();
            let message = format!(
                "{what} on module '{module}' raised an error: {}",
                e.message()
            );
            return Err(Error::in_hook(message, handle, kind, name()));
        }
    };
    let accepted = match returned {
        Some(r) => accept(r)?,
        None => None,
    };
    let after = match &accepted {
        Some(new) => snap(new),
        None => snap(args),
    };
    trace::record(|| Event::Hook {
        kind,
        handle,
        name: name(),
        target: HookTarget::Module(site.module.id(), site.module.name(), Some(site.node)),
        before: HookValue::Many(before),
        after: HookValue::Many(after),
    });
    Ok(accepted)
}

/// A graph row for a user's module hook, under the handle the user holds.
fn module_row(
    module: &Module,
    kind: HookKind,
    handle: HandleId,
    name: String,
    source: Option<SourceLoc>,
) -> HookInfo {
    HookInfo {
        module: Some(module.name()),
        module_id: Some(module.id()),
        source,
        ..HookInfo::new(handle, kind, name)
    }
}

fn user_rows<H: ?Sized + HookName>(
    module: &Module,
    kind: HookKind,
    hooks: &[(HandleId, Rc<H>)],
) -> Vec<HookInfo> {
    hooks
        .iter()
        .map(|(handle, h)| module_row(module, kind, *handle, h.hook_name(), h.hook_source()))
        .collect()
}

/// The user hook's function name, for either kind of module backward hook.
trait HookName {
    fn hook_name(&self) -> String;
    fn hook_source(&self) -> Option<SourceLoc>;
}
impl HookName for dyn ModuleBackwardHook {
    fn hook_name(&self) -> String {
        self.name()
    }
    fn hook_source(&self) -> Option<SourceLoc> {
        self.source()
    }
}
impl HookName for dyn ModuleBackwardPreHook {
    fn hook_name(&self) -> String {
        self.name()
    }
    fn hook_source(&self) -> Option<SourceLoc> {
        self.source()
    }
}
