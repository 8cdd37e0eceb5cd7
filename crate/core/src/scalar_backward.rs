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
//! Versions: a number carries what `.grad._version` would show of its
//! tensor (see `input_buffer::Num`). The formulas that hand their gradient
//! on unchanged (`passes_through`) share it between holders, as PyTorch's
//! do, so an in-place sum and AccumulateGrad's steal happen exactly where
//! the tensor path has them.

use crate::accumulate::accumulate_number;
use crate::error::{Error, Result};
use crate::graph_task::GraphTask;
use crate::input_buffer::{Grad, Grads, Num, Shares};
use crate::node::{NodeKind, NodeRef, FREED_GRAPH_ERROR};
use crate::small::Small;

/// Runs `node` on numbers if it can; `None`: use the tensor path.
#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub(crate) fn try_run(
    task: &GraphTask,
    shares: &mut Shares,
    node: &NodeRef,
    slots: &Grads,
) -> Result<Option<Grads>> {
    match &node.kind {
        NodeKind::AccumulateGrad { variable } => {
            Ok(accumulate_number(variable, slots, shares)?.then_some(Small::Zero))
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
            let input = slots.first().and_then(Option::as_ref);
            let g = match input {
                Some(g) => match g.value()? {
                    Some(v) => Some(v),
                    None => return Ok(None),
                },
                None => None,
            };
            let mut out: Grads = Small::filled(node.next.len(), None);
            // No gradient at all: the node is not applied (as in call_node).
            if let Some(g) = g {
                if has_saved.get() && released.get() {
                    return Err(Error::runtime(FREED_GRAPH_ERROR));
                }
                // Three at most: `PowBackward1` saves exponent, self, result.
                let mut values = [0.0f32; 3];
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
                let pass = passes_through(node.name);
                let mut passed = 0u32;
                // Indexed (an array's by-value iterator was a call per item
                // in the size-optimized wasm).
                for (i, (slot, edge)) in out.iter_mut().zip(node.next.iter()).enumerate() {
                    if let (Some(e), Some(&value)) = (edge, grads.get(i)) {
                        if task.should_execute(e.node.id) {
                            *slot = Some(Grad::Value(Num::fresh(value)));
                            if pass & (1 << i) != 0 {
                                passed += 1;
                            }
                        }
                    }
                }
                if passed != 0 {
                    hand_on(input, pass, passed, &mut out, shares);
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

/// The outputs in `pass` get the incoming gradient itself, as the tensor
/// formula returns it: the same tensor, or the same number with its
/// version, held by each of the `passed` outputs as well as the buffer
/// (which lets go of it in `engine::evaluate`).
fn hand_on(input: Option<&Grad>, pass: u8, passed: u32, out: &mut Grads, shares: &mut Shares) {
    let same = match input {
        Some(Grad::Tensor(t)) => Grad::Tensor(t.clone()),
        Some(Grad::Value(n)) => Grad::Value(Num {
            share: shares.hand_on(n, passed),
            ..*n
        }),
        None => return,
    };
    for (i, slot) in out.iter_mut().enumerate() {
        if pass & (1 << i) != 0 && slot.is_some() {
            *slot = Some(same.clone());
        }
    }
}

/// The inputs whose gradient a formula hands on unchanged, bit `i` for
/// input `i` (PyTorch's `AddBackward0`: `grad` to both; `SubBackward0`:
/// `grad` to self, `-grad` to other). Only these make one gradient tensor
/// reach two buffers.
#[inline]
pub(crate) fn passes_through(name: &str) -> u8 {
    match name {
        "AddBackward0" => 0b11,
        "SubBackward0" => 0b01,
        _ => 0,
    }
}
