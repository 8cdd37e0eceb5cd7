//! Legacy module backward hooks (`register_backward_hook`, deprecated in
//! PyTorch and kept for its exact behaviour): a post-hook on the grad_fn of
//! the module's first output, seeing that node's gradients, and the
//! deprecation warnings PyTorch gives when that differs from the module's.

use std::rc::Rc;

use super::{call_user_hook, module_row, Site};
use crate::context;
use crate::error::Result;
use crate::hooks::{NodePostHook, RemovableHandle};
use crate::ids::{HandleId, NodeId};
use crate::module::{Module, ModuleBackwardHook, Value};
use crate::node::NodeRef;
use crate::protocol::HookInfo;
use crate::tensor::Tensor;
use crate::trace::HookKind;

/// PyTorch's `_WrappedHook` for a legacy hook on the output's grad_fn.
pub struct LegacyHook {
    pub module: Module,
    pub handle: HandleId,
    pub hook: Rc<dyn ModuleBackwardHook>,
    /// The grad_fn it was attached to (shown in trace events).
    pub node: NodeId,
}

impl NodePostHook for LegacyHook {
    fn call(
        &self,
        grad_inputs: &[Option<Tensor>],
        grad_outputs: &[Option<Tensor>],
    ) -> Result<Option<Vec<Option<Tensor>>>> {
        let site = Site {
            module: &self.module,
            node: self.node,
        };
        // Whatever it returns is taken as is: the engine checks it as any
        // node post-hook's result.
        call_user_hook(
            &site,
            HookKind::ModuleBackward,
            self.handle,
            || self.hook.name(),
            grad_inputs,
            |g| self.hook.call(&self.module, g, grad_outputs),
            |r| Ok(Some(r)),
        )
    }
    fn kind(&self) -> HookKind {
        HookKind::ModuleBackward
    }
    fn rows(&self, _handle: HandleId) -> Vec<HookInfo> {
        vec![module_row(
            &self.module,
            HookKind::ModuleBackward,
            self.handle,
            self.hook.name(),
            self.hook.source(),
        )]
    }
    fn records_itself(&self) -> bool {
        true
    }
    fn name(&self) -> String {
        format!("{} (module '{}')", self.hook.name(), self.module.name())
    }
}

/// Attach legacy hooks to `grad_fn` and warn as `_maybe_warn_non_full_backward_hook`.
pub fn attach_legacy_hooks(
    module: &Module,
    hooks: &[(HandleId, Rc<dyn ModuleBackwardHook>)],
    args: &[Value],
    result: &Value,
) -> Vec<RemovableHandle> {
    let Some(var) = result.first_tensor_for_legacy_hook() else {
        return Vec::new();
    };
    let Some(grad_fn) = var.grad_fn() else {
        return Vec::new();
    };
    let handles = hooks
        .iter()
        .map(|(handle, hook)| {
            grad_fn.register_hook(Rc::new(LegacyHook {
                module: module.clone(),
                handle: *handle,
                hook: hook.clone(),
                node: grad_fn.id,
            }))
        })
        .collect();
    maybe_warn_non_full_backward_hook(args, result, &grad_fn);
    handles
}

fn maybe_warn_non_full_backward_hook(inputs: &[Value], result: &Value, grad_fn: &NodeRef) {
    let results = result.tuple_items();
    if !results.iter().all(|r| r.as_tensor().is_some()) {
        context::warn(LEGACY_NON_TENSOR_OUTPUT_WARNING);
        return;
    }
    if !inputs.iter().all(|i| i.as_tensor().is_some()) {
        context::warn(LEGACY_NON_TENSOR_INPUT_WARNING);
        return;
    }
    let mut out_fns: Vec<u32> = results
        .iter()
        .filter_map(|r| r.as_tensor().and_then(|t| t.grad_fn()).map(|f| f.id.0))
        .collect();
    out_fns.sort_unstable();
    out_fns.dedup();
    if out_fns.is_empty() || (out_fns.len() == 1 && out_fns[0] != grad_fn.id.0) {
        context::warn(LEGACY_NESTED_OUTPUT_WARNING);
    } else if out_fns.len() > 1 {
        context::warn(LEGACY_MULTI_NODE_OUTPUT_WARNING);
    } else {
        // Sets of grad_fns (None included) of the inputs vs. next_functions.
        let mut inputs_fns: Vec<Option<u32>> = inputs
            .iter()
            .filter_map(|i| {
                i.as_tensor()
                    .and_then(|t| t.grad_fn())
                    .map(|f| Some(f.id.0))
            })
            .collect();
        let mut next: Vec<Option<u32>> = grad_fn
            .next_functions()
            .iter()
            .map(|(n, _)| n.as_ref().map(|n| n.id.0))
            .collect();
        inputs_fns.sort_unstable();
        inputs_fns.dedup();
        next.sort_unstable();
        next.dedup();
        if inputs_fns != next {
            context::warn(LEGACY_MULTI_NODE_WARNING);
        }
    }
}

pub const LEGACY_NON_TENSOR_OUTPUT_WARNING: &str = "Using non-full backward hooks on a Module that does not return a single Tensor or a tuple of Tensors is deprecated and will be removed in future versions. This hook will be missing some of the grad_output. Please use register_full_backward_hook to get the documented behavior.";
pub const LEGACY_NON_TENSOR_INPUT_WARNING: &str = "Using non-full backward hooks on a Module that does not take as input a single Tensor or a tuple of Tensors is deprecated and will be removed in future versions. This hook will be missing some of the grad_input. Please use register_full_backward_hook to get the documented behavior.";
pub const LEGACY_NESTED_OUTPUT_WARNING: &str = "Using a non-full backward hook when outputs are nested in python data structure is deprecated and will be removed in future versions. This hook will be missing some grad_output.";
pub const LEGACY_MULTI_NODE_OUTPUT_WARNING: &str = "Using a non-full backward hook when outputs are generated by different autograd Nodes is deprecated and will be removed in future versions. This hook will be missing some grad_output. Please use register_full_backward_hook to get the documented behavior.";
pub const LEGACY_MULTI_NODE_WARNING: &str = "Using a non-full backward hook when the forward contains multiple autograd Nodes is deprecated and will be removed in future versions. This hook will be missing some grad_input. Please use register_full_backward_hook to get the documented behavior.";
