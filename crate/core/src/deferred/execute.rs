//! The engine's loop over a planned pass of rows, on numbers.

use super::backward::{step, Plan, Row};
use super::with_table;
use crate::accumulate::{accumulate, accumulate_number};
use crate::error::{Error, Result};
use crate::input_buffer::{add_grad, to_tensors, Grad, Grads, Num, Shares};
use crate::node::NodeKind;
use crate::ready_queue::ReadyQueue;
use crate::small::Small;
use crate::tensor::Tensor;

/// The engine's loop (`engine::execute` in scalar mode) over rows, with
/// each row's input buffer as the one gradient it is in the engine: the
/// root's is the implicit `ones` tensor (held, as the engine's root list
/// holds it, for the whole pass), and every gradient a formula makes is a
/// `Num`. The same steps in the same order as the engine's `add_grad` /
/// `hand_on` / `Shares` (the number path of `input_buffer`): ready rows by
/// sequence number in PyTorch's heap order, an incoming gradient summed
/// into the buffer in place when the buffer alone holds it, a formula's
/// pass-through output the very gradient it received (the `ones` tensor
/// itself below an `add` or `sub` root, which AccumulateGrad then copies).
#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub(super) fn execute(plan: Plan, ones: Tensor, keep_graph: bool) -> Result<()> {
    let Plan {
        rows,
        seqs,
        mut deps,
        order,
    } = plan;
    let mut buffers: Vec<Option<Grad>> = vec![None; rows.len()];
    let mut queue: ReadyQueue<usize> = ReadyQueue::default();
    // With `order`: its next entry, and the leaves made ready by the last
    // entry, which run first (in the order they were made ready).
    let mut next = 0;
    let mut leaves: [Option<usize>; 2] = [None, None];
    let mut shares = Shares::default();
    // Gradients added into a buffer, let go of once the row's outputs are
    // routed (`engine::route_outputs`): numbers apart from tensors, which
    // only an add/sub root's `ones` makes (no drop work on the hot path).
    let mut held: Small<Num> = Small::Zero;
    let mut held_tensors: Vec<Grad> = Vec::new();
    let busy = || Error::internal("dependency not found for a deferred op");
    // The root's implicit gradient (its one dependency).
    match deps.first_mut() {
        Some(d) if *d == 1 => *d = 0,
        _ => return Err(busy()),
    }
    if order.is_none() {
        queue.push(seqs[0], 0);
    }
    // The root's buffer, as `engine::execute` routes the root list's
    // gradient (a clone: `ones` stays held until the pass ends).
    if let Some(b) = buffers.first_mut() {
        *b = Some(Grad::Tensor(ones.clone()));
    }
    let out_of_order = || Error::internal("a deferred op ran before its consumers");

    loop {
        let i = match &order {
            None => match queue.pop() {
                Some(i) => i,
                None => break,
            },
            Some(order) => match leaves[0].take() {
                Some(i) => {
                    leaves[0] = leaves[1].take();
                    i
                }
                None => {
                    let Some(&i) = order.get(next) else { break };
                    next += 1;
                    let i = i as usize;
                    if deps[i] != 0 || (next == 1) != (i == 0) {
                        return Err(out_of_order());
                    }
                    i
                }
            },
        };
        let input = buffers[i].take();
        match &rows[i] {
            Row::Leaf(node) => {
                let NodeKind::AccumulateGrad { variable } = &node.kind else {
                    return Err(Error::internal(
                        "a deferred op's leaf edge is not AccumulateGrad",
                    ));
                };
                // As `scalar_backward::try_run`, then `engine::evaluate` and
                // `call_node` (its input list holds the gradient too).
                let inputs: Grads = Small::One(input);
                let done = accumulate_number(variable, &inputs, &shares)?;
                shares.drop_all(&inputs);
                if !done {
                    let values = to_tensors(inputs);
                    accumulate(variable, values.first().cloned().flatten())?;
                }
            }
            Row::Entry(e) => {
                let s = with_table(|t| step(t, *e, keep_graph))?;
                let to = s.to;
                let g = match &input {
                    Some(g) => g.value()?,
                    None => None,
                };
                let mut out: [Option<Grad>; 2] = [None, None];
                if let Some(g) = g {
                    let grads = s.op.rule(s.number)(g, &s.values[..s.count], s.param);
                    let pass = s.op.passes();
                    let passed = (0..2)
                        .filter(|&k| to[k].is_some() && pass & (1 << k) != 0)
                        .count() as u32;
                    // `hand_on`: the gradient received, one more holder per
                    // output that passes it on.
                    let same = match &input {
                        Some(Grad::Value(n)) if passed != 0 => Some(Grad::Value(Num {
                            share: shares.hand_on(n, passed),
                            ..*n
                        })),
                        Some(Grad::Tensor(t)) if passed != 0 => Some(Grad::Tensor(t.clone())),
                        _ => None,
                    };
                    for k in 0..2 {
                        if to[k].is_some() {
                            out[k] = Some(match &same {
                                Some(g) if pass & (1 << k) != 0 => g.clone(),
                                _ => Grad::Value(Num::fresh(grads[k])),
                            });
                        }
                    }
                }
                // The buffer lets go of its gradient (`engine::evaluate`).
                if let Some(Grad::Value(n)) = &input {
                    shares.leave(n);
                }
                drop(input);
                // `route_outputs`, output by output.
                for k in 0..s.op.arity() {
                    let Some(j) = to[k] else { continue };
                    let d = deps.get_mut(j).filter(|d| **d > 0).ok_or_else(busy)?;
                    *d -= 1;
                    let ready = *d == 0;
                    if let Some(new) = out[k].take() {
                        buffers[j] = match (buffers[j].take(), &new) {
                            (None, _) => Some(new),
                            // `add_grad` on numbers, inline.
                            (Some(Grad::Value(old)), &Grad::Value(n)) => {
                                held.push(n);
                                Some(Grad::Value(shares.sum(old, n.value)))
                            }
                            // A tensor is involved (the root's `ones`).
                            (Some(old), _) => {
                                let mut slot: Grads = Small::One(Some(old));
                                if let Some(kept) = add_grad("", &mut slot, 0, new, &mut shares)? {
                                    held_tensors.push(kept);
                                }
                                slot.into_iter().next().flatten()
                            }
                        };
                    }
                    if ready {
                        match (&order, &rows[j]) {
                            (None, _) => queue.push(seqs[j], j),
                            // An entry has two outputs at most.
                            (Some(_), Row::Leaf(_)) => {
                                let free = leaves.iter_mut().find(|l| l.is_none());
                                *free.ok_or_else(out_of_order)? = Some(j);
                            }
                            // Its turn comes in `order`.
                            (Some(_), Row::Entry(_)) => {}
                        }
                    }
                }
                for n in std::mem::take(&mut held).iter() {
                    shares.leave(n);
                }
                if !held_tensors.is_empty() {
                    shares.drop_all(&held_tensors.drain(..).map(Some).collect());
                }
            }
        }
    }
    Ok(())
}
