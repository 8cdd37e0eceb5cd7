//! One node's step in the engine, in PyTorch's order (`engine.cpp`'s
//! `call_function` and its hook calls): tensor pre-hooks → retain-grad →
//! node pre-hooks → the node (or AccumulateGrad) → output validation →
//! node post-hooks, each recorded in the trace as it happens.

use crate::accumulate::{accumulate, hook_error};
use crate::context::{self, Semantics};
use crate::error::{Error, Result};
use crate::graph_task::GraphTask;
use crate::hooks::{FirstInline, TensorHook, TensorHookEntry};
use crate::ids::{HandleId, TensorId};
use crate::node::{NodeKind, NodeRef};
use crate::shape::{fmt_shape, is_expandable_to};
use crate::small::Small;
use crate::tensor::{Array, Tensor, TensorHookList, TensorImpl};
use crate::trace::{self, Event, HookKind, HookTarget, HookValue};
use std::rc::{Rc, Weak};

fn check_hook_value(name: &str, before: &Option<Tensor>, after: &Tensor) -> Result<()> {
    if let Some(b) = before {
        if b.shape() != after.shape() {
            return Err(Error::runtime(format!(
                "hook '{}' has changed the size of value",
                if name.is_empty() { "hook" } else { name }
            )));
        }
    }
    Ok(())
}

fn snapshot(values: &[Option<Tensor>]) -> Vec<Option<Array>> {
    trace::copy_values_list(values)
}

/// Runs tensor hooks of every input of `node`, then retain-grad (PyTorch 2)
/// — or both interleaved in registration order (PyTorch 1).
pub(crate) fn call_tensor_pre_hooks(
    node: &NodeRef,
    mut values: Vec<Option<Tensor>>,
) -> Result<Vec<Option<Tensor>>> {
    // The lists there are now (a hook may add one: it runs next time).
    let count = node.tensor_hook_count();
    if count == 0 {
        return Ok(values);
    }
    let interleave = context::semantics() == Semantics::PyTorch1;
    // User hooks (PyTorch 1: retain-grad too, where it was registered). The
    // lists are kept for the retain-grad pass (no allocation for one).
    let mut lists: FirstInline<(usize, TensorId, Rc<TensorHookList>)> = FirstInline::default();
    for i in 0..count {
        let Some((nr, owner, list)) = node.tensor_hook_list(i) else {
            continue;
        };
        for (handle, entry) in list.run_snapshot() {
            match entry {
                TensorHookEntry::User(hook) => {
                    run_tensor_hook(node, &mut values, (nr, owner, handle), &*hook)?
                }
                TensorHookEntry::RetainGrad(weak) if interleave => {
                    run_retain_grad(&values, (nr, owner, handle), &weak)?
                }
                TensorHookEntry::RetainGrad(_) => {}
            }
        }
        lists.push((nr, owner, list));
    }
    if interleave {
        return Ok(values);
    }
    // PyTorch 2: retain-grad after every tensor hook, from a fresh snapshot
    // (a hook may have called retain_grad()); looked for in place first,
    // as most lists have none.
    for (nr, owner, list) in lists {
        if !list.any(|e| matches!(e, TensorHookEntry::RetainGrad(_))) {
            continue;
        }
        for (handle, entry) in list.run_snapshot() {
            if let TensorHookEntry::RetainGrad(weak) = entry {
                run_retain_grad(&values, (nr, owner, handle), &weak)?;
            }
        }
    }
    Ok(values)
}

/// Which gradient a tensor hook list hooks: its input number, the tensor
/// it was registered on, and the entry's handle.
type HookSite = (usize, TensorId, HandleId);

/// One user tensor hook on `values[nr]`: its result (when it returns one)
/// replaces the gradient.
fn run_tensor_hook(
    node: &NodeRef,
    values: &mut [Option<Tensor>],
    (nr, owner, handle): HookSite,
    hook: &dyn TensorHook,
) -> Result<()> {
    let Some(current) = values.get(nr).cloned().flatten() else {
        return Ok(());
    };
    // Copied before the call: a hook may change its argument in place.
    let before = trace::is_recording().then(|| crate::error::snapshot(current.to_array()));
    let result = hook.call(&current).map_err(|e| {
        let site = (handle, HookKind::Tensor);
        hook_error(
            e,
            site,
            "tensor hook",
            &tensor_label(owner, node),
            &hook.name(),
        )
    })?;
    let after = match result {
        Some(new) => {
            // The name only for the error: a JS hook's name is a string
            // conversion per call otherwise.
            if !new.same_shape(&current) {
                check_hook_value(&hook.name(), &Some(current), &new)?;
            }
            new
        }
        None => current,
    };
    trace::record(|| Event::Hook {
        kind: HookKind::Tensor,
        handle,
        name: hook.name(),
        target: HookTarget::Tensor(owner, tensor_name(owner, node)),
        before: HookValue::One(before.flatten()),
        after: HookValue::One(crate::error::snapshot(after.to_array())),
    });
    if let Some(slot) = values.get_mut(nr) {
        *slot = Some(after);
    }
    Ok(())
}

/// The retain-grad entry of a tensor: its `.grad` from `values[nr]`.
fn run_retain_grad(
    values: &[Option<Tensor>],
    (nr, owner, handle): HookSite,
    weak: &Weak<TensorImpl>,
) -> Result<()> {
    let Some(current) = values.get(nr).and_then(Option::as_ref) else {
        return Ok(());
    };
    if let Some(t) = weak.upgrade().map(Tensor) {
        retain(&t, current)?;
        trace::record(|| Event::Hook {
            kind: HookKind::RetainGrad,
            handle,
            name: "retain_grad".into(),
            target: HookTarget::Tensor(owner, t.name()),
            before: HookValue::One(crate::error::snapshot(current.to_array())),
            after: HookValue::One(crate::error::snapshot(current.to_array())),
        });
    }
    Ok(())
}

fn tensor_of(id: TensorId, node: &NodeRef) -> Option<Tensor> {
    node.output_tensors()
        .into_iter()
        .chain(node.variable())
        .find(|t| t.id() == id)
}

fn tensor_label(id: TensorId, node: &NodeRef) -> String {
    tensor_of(id, node)
        .map(|t| t.label())
        .unwrap_or_else(|| format!("tensor #{}", id.0))
}

/// The name a tensor hook's trace event carries.
fn tensor_name(id: TensorId, node: &NodeRef) -> Option<String> {
    tensor_of(id, node).and_then(|t| t.name())
}

/// The retain-grad hook: a contiguous copy of the first gradient, then
/// `grad + new` (new tensors, differentiable under `create_graph`).
fn retain(t: &Tensor, grad: &Tensor) -> Result<()> {
    let new = match t.grad_raw() {
        None => crate::ops::shape_ops::clone_with(grad, false)?,
        Some(old) => old.add(grad)?,
    };
    t.meta_mut()?.grad = Some(new);
    Ok(())
}

/// Validates a hook's replacement list (PyTorch's `check_result`).
fn check_hook_list(name: &str, before: &[Option<Tensor>], after: &[Option<Tensor>]) -> Result<()> {
    if before.len() != after.len() {
        return Err(Error::runtime(format!(
            "hook '{}' has returned an incorrect number of values (got {}, but expected {})",
            if name.is_empty() { "hook" } else { name },
            after.len(),
            before.len()
        )));
    }
    for (b, a) in before.iter().zip(after) {
        if let Some(a) = a {
            check_hook_value(name, b, a)?;
        }
    }
    Ok(())
}

/// One backward step of `node`, in PyTorch's order (see module docs).
pub(crate) fn call_node(
    task: &mut GraphTask,
    node: &NodeRef,
    inputs: Vec<Option<Tensor>>,
) -> Result<Vec<Option<Tensor>>> {
    let mut inputs = call_tensor_pre_hooks(node, inputs)?;
    // Only built when a hook fails (a format! per node was 1% of backward).
    let target = || format!("node {} (#{})", node.name, node.id.0);

    for (handle, hook) in node.pre_hooks.run_snapshot() {
        // Copied before the call: a hook may change its arguments in place.
        let before = trace::is_recording().then(|| snapshot(&inputs));
        let result = hook.call(&inputs).map_err(|e| {
            hook_error(
                e,
                (handle, hook.kind()),
                "pre-hook",
                &target(),
                &hook.name(),
            )
        })?;
        if let Some(new) = result {
            check_hook_list(&hook.name(), &inputs, &new)?;
            inputs = new;
        }
        trace::record(|| Event::Hook {
            kind: hook.kind(),
            handle,
            name: hook.name(),
            target: HookTarget::Node(node.id),
            before: HookValue::Many(before.unwrap_or_default()),
            after: HookValue::Many(snapshot(&inputs)),
        });
    }

    let mut outputs = match &node.kind {
        NodeKind::AccumulateGrad { variable } => {
            // Its `node` event first: writing `.grad` and the
            // post-accumulate-grad hooks are what this node's apply does
            // (PyTorch: accumulate_grad.h), so they follow it.
            record_node(node, &inputs, &[]);
            accumulate(variable, inputs.first().cloned().flatten())?;
            Vec::new()
        }
        NodeKind::Op { .. } => {
            // Inline for one or two edges (no allocation per node).
            let needs: Small<bool> = Small::map_slice(&node.next, |e| {
                e.as_ref().is_some_and(|e| task.should_execute(e.node.id))
            });
            let raw = if inputs.iter().all(|g| g.is_none()) {
                vec![None; node.next.len()]
            } else {
                node.apply_op(&inputs, &needs)?
            };
            if !task.keep_graph {
                node.release_variables();
            }
            let outputs = validate_outputs(node, raw, &needs)?;
            // The node computed: its event now, before its post-hooks run
            // (PyTorch: engine.cpp call_function), carrying what it returned;
            // a post-hook's change is that hook's own before → after.
            record_node(node, &inputs, &outputs);
            outputs
        }
    };

    // Post-hooks get (grad_inputs, grad_outputs); on AccumulateGrad ([], [grad]).
    let hook_outputs_ref: &[Option<Tensor>] = &inputs;
    if !task.keep_graph && node.post_hooks.get().is_some_and(|l| !l.is_empty()) {
        task.ran_with_post_hooks.push(node.clone());
    }
    for (handle, hook) in node.post_hooks.run_snapshot() {
        let own = hook.records_itself();
        // Copied before the call: a hook may change its arguments in place.
        let before = (!own && trace::is_recording()).then(|| snapshot(&outputs));
        let result = hook.call(&outputs, hook_outputs_ref).map_err(|e| {
            if own {
                e
            } else {
                hook_error(e, (handle, hook.kind()), "hook", &target(), &hook.name())
            }
        })?;
        if let Some(new) = result {
            check_hook_list(&hook.name(), &outputs, &new)?;
            outputs = new;
        }
        if own {
            continue;
        }
        trace::record(|| Event::Hook {
            kind: hook.kind(),
            handle,
            name: hook.name(),
            target: HookTarget::Node(node.id),
            before: HookValue::Many(before.unwrap_or_default()),
            after: HookValue::Many(snapshot(&outputs)),
        });
    }

    Ok(outputs)
}

/// The `node` event: the gradients a node received and the ones it computed.
fn record_node(node: &NodeRef, inputs: &[Option<Tensor>], outputs: &[Option<Tensor>]) {
    trace::record(|| Event::Node {
        node: node.id,
        name: node.name,
        grad_outputs: trace::copy_grads(inputs),
        grad_inputs: trace::copy_grads(outputs),
    });
}

/// PyTorch's `validate_outputs`: right count, and each gradient reduced to
/// (or compatible with) the shape its next node expects.
fn validate_outputs(
    node: &NodeRef,
    mut grads: Vec<Option<Tensor>>,
    needs: &[bool],
) -> Result<Vec<Option<Tensor>>> {
    if grads.len() != node.next.len() {
        return Err(Error::runtime(format!(
            "Function {} returned an invalid number of gradients - expected {}, but got {}",
            node.name,
            node.next.len(),
            grads.len()
        )));
    }
    for (i, slot) in grads.iter_mut().enumerate() {
        let Some(edge) = &node.next[i] else {
            if !node.custom_function.get() {
                *slot = None;
            }
            continue;
        };
        if !needs.get(i).copied().unwrap_or(false) {
            *slot = None;
            continue;
        }
        let Some(g) = slot.as_ref() else { continue };
        let Some(expected) = edge.node.input_shapes.get(edge.input_nr) else {
            return Err(Error::internal(format!(
                "{} has no input shape for input {} (edge from {})",
                edge.node.name, edge.input_nr, node.name
            )));
        };
        let expected: &[usize] = expected.as_slice();
        // Compared in place (no Vec per gradient); copied only on a mismatch.
        let same = g.data().map(|d| d.shape() == expected).unwrap_or(false);
        if !same {
            let got = g.shape();
            let expected = expected.to_vec();
            if !is_expandable_to(&expected, &got) {
                return Err(Error::runtime(format!(
                    "Function {} returned an invalid gradient at index {i} - got {} but expected shape compatible with {}",
                    node.name,
                    fmt_shape(&got),
                    fmt_shape(&expected)
                )));
            }
            *slot = Some(crate::ops::reduce::sum_to(g, &expected)?);
        }
    }
    Ok(grads)
}
