//! The backward step of a 0-d node on plain numbers. A scalar graph (a
//! micrograd-style MLP on 0-d tensors) spends most of its backward building
//! gradient tensors that nothing ever looks at. When no user code can run
//! during the pass (`GraphTask::scalar_mode`: no hooks anywhere in the graph,
//! no unpack hooks, no trace, no `create_graph`, nothing captured by
//! `autograd.grad`), a 0-d elementwise node computes its gradients as f32
//! with the same arithmetic as its tensor formula and hands them on as
//! `Grad::Value`; AccumulateGrad turns a number into `.grad` as a new 0-d
//! tensor, which is what PyTorch stores when no one else holds the gradient.
//! Everything observable (values, `.grad`, errors and their order, the
//! release of saved tensors) is what the tensor path gives; anything else
//! (a tensor gradient of another shape, a packed saved tensor, a node
//! without a number formula) falls back to `engine::call_node`.
//!
//! Versions: one thing differs. PyTorch adds a later gradient into the
//! input buffer's tensor in place when nothing else holds it, so a stolen
//! `.grad` carries one version bump per such sum (`x*x`: `_version` 1);
//! the tensor path does the same (input_buffer.rs, `accumulate`). Numbers
//! have no identity to tell a shared gradient (AddBackward0 hands the same
//! tensor to both inputs) from an unshared one, so here `.grad` starts at
//! version 0 and only `.grad += grad` bumps it. Values are the same.

use crate::engine::after_accumulate;
use crate::error::{Error, Result};
use crate::graph_task::GraphTask;
use crate::input_buffer::{Grad, Grads};
use crate::node::{NodeKind, NodeRef, FREED_GRAPH_ERROR};
use crate::small::Small;
use crate::tensor::{Data, Tensor};

/// Runs `node` on numbers if it can; `None`: use the tensor path.
#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub(crate) fn try_run(task: &GraphTask, node: &NodeRef, slots: &Grads) -> Result<Option<Grads>> {
    match &node.kind {
        NodeKind::AccumulateGrad { variable } => {
            let [Some(Grad::Value(v))] = &slots[..] else {
                return Ok(None);
            };
            // As `engine::accumulate`: nothing at all (no event, no hooks).
            if !variable.requires_grad() {
                return Ok(Some(Small::Zero));
            }
            if !accumulate_value(variable, *v)? {
                return Ok(None);
            }
            after_accumulate(variable)?;
            Ok(Some(Small::Zero))
        }
        NodeKind::Op {
            scalar: Some(rule),
            param,
            saved,
            has_saved,
            released,
            ..
        } => {
            if node.custom_function.get() || node.next.len() > 2 || slots.len() != 1 {
                return Ok(None);
            }
            // Every gradient goes to an input expecting a 0-d one (nothing to
            // reduce or validate).
            let all_0d = node.next.iter().all(|e| {
                e.as_ref().is_none_or(|e| {
                    e.node
                        .input_shapes
                        .get(e.input_nr)
                        .is_some_and(|s| s.is_empty())
                })
            });
            if !all_0d {
                return Ok(None);
            }
            let g = match slots.first() {
                Some(Some(g)) => match g.value()? {
                    Some(v) => Some(v),
                    None => return Ok(None),
                },
                _ => None,
            };
            let mut out: Grads = Small::filled(node.next.len(), None);
            // No gradient at all: the node is not applied (as in call_node).
            if let Some(g) = g {
                if has_saved.get() && released.get() {
                    return Err(Error::runtime(FREED_GRAPH_ERROR));
                }
                let mut values = [0.0f32; 2];
                let count = {
                    let saved = saved
                        .try_borrow()
                        .map_err(|_| Error::internal("saved tensors are busy"))?;
                    if saved.len() > values.len() {
                        return Ok(None);
                    }
                    // In order, with unpack's version check and error.
                    for (v, st) in values.iter_mut().zip(saved.iter()) {
                        match st.scalar_value(node.name)? {
                            Some(x) => *v = x,
                            None => return Ok(None),
                        }
                    }
                    saved.len()
                };
                let grads = rule(g, &values[..count], *param);
                #[cfg(test)]
                RUN_ON_NUMBERS.with(|n| n.set(n.get() + 1));
                // Indexed (an array's by-value iterator was a call per item
                // in the size-optimized wasm).
                for (i, (slot, edge)) in out.iter_mut().zip(node.next.iter()).enumerate() {
                    if let (Some(e), Some(&value)) = (edge, grads.get(i)) {
                        if task.should_execute(e.node.id) {
                            *slot = Some(Grad::Value(value));
                        }
                    }
                }
            }
            if !task.keep_graph {
                node.release_variables();
            }
            Ok(Some(out))
        }
        NodeKind::Op { .. } => Ok(None),
    }
}

#[cfg(test)]
thread_local!(static RUN_ON_NUMBERS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) });

/// How many op nodes computed on numbers so far (tests check the path taken).
#[cfg(test)]
pub(crate) fn nodes_run_on_numbers() -> usize {
    RUN_ON_NUMBERS.with(|n| n.get())
}

/// AccumulateGrad of a number into a 0-d leaf, as `engine::accumulate` does
/// it for a gradient tensor no one else holds (grad mode is off). `false`:
/// not a case for numbers (use the tensor path).
#[cfg_attr(hookgrad_nightly, optimize(speed))]
#[inline]
fn accumulate_value(variable: &Tensor, v: f32) -> Result<bool> {
    let Some(existing) = variable.grad_raw() else {
        // PyTorch steals the unshared gradient: a 0-d row-major tensor.
        variable.meta_mut()?.grad = Some(Tensor::scalar(v));
        return Ok(true);
    };
    if std::rc::Rc::strong_count(existing.storage()) > 1 {
        return Ok(false);
    }
    {
        let mut d = existing
            .storage()
            .data
            .try_borrow_mut()
            .map_err(|_| Error::internal("grad is busy"))?;
        // `.grad += grad` in place, as `existing + grad` elementwise.
        match &mut *d {
            Data::Scalar(x) => *x += v,
            Data::Array(a) if a.ndim() == 0 => match a.as_slice_mut() {
                [x] => *x += v,
                _ => return Ok(false),
            },
            Data::Array(_) => return Ok(false),
        }
    }
    existing.storage().bump_version();
    Ok(true)
}
