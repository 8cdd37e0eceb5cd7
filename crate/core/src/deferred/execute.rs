//! The engine's loop over a planned pass of rows, on numbers.

use super::backward::{step, Plan, Row};
use super::with_table;
use crate::accumulate::{accumulate, accumulate_number};
use crate::error::{Error, Result};
use crate::input_buffer::{to_tensors, Grad, Grads, Num, Shares};
use crate::node::NodeKind;
use crate::ready_queue::ReadyQueue;
use crate::small::Small;
use crate::tensor::Tensor;

/// The engine's loop (`engine::execute` in scalar mode) over rows, with
/// each row's input buffer as the one number it is in the engine: the
/// root's gradient is the implicit `ones`, and every gradient a formula
/// makes is a `Num`. The same steps in the same order as the engine's
/// `add_grad` / `hand_on` / `Shares` (the number path of `input_buffer`):
/// ready rows by sequence number in PyTorch's heap order, an incoming
/// gradient summed into the buffer in place when the buffer alone holds
/// it, a formula's pass-through output the very number it received.
#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub(super) fn execute(plan: Plan, ones: Tensor, keep_graph: bool) -> Result<()> {
    let Plan {
        rows,
        seqs,
        mut deps,
        order,
    } = plan;
    let mut buffers: Vec<Option<Num>> = vec![None; rows.len()];
    let mut queue: ReadyQueue<usize> = ReadyQueue::default();
    // With `order`: its next entry, and the leaves made ready by the last
    // entry, which run first (in the order they were made ready).
    let mut next = 0;
    let mut leaves: [Option<usize>; 2] = [None, None];
    let mut shares = Shares::default();
    let mut held: Small<Num> = Small::Zero;
    let busy = || Error::internal("dependency not found for a deferred op");
    // The root's implicit gradient (its one dependency).
    match deps.first_mut() {
        Some(d) if *d == 1 => *d = 0,
        _ => return Err(busy()),
    }
    if order.is_none() {
        queue.push(seqs[0], 0);
    }
    let root_grad = ones
        .scalar_value()
        .ok_or_else(|| Error::internal("the implicit gradient is not a number"))?;
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
                // As `scalar_backward::try_run`, then `engine::evaluate`.
                let inputs: Grads = Small::One(input.map(Grad::Value));
                let done = accumulate_number(variable, &inputs, &shares)?;
                shares.drop_all(&inputs);
                if !done {
                    let grad = to_tensors(inputs).into_iter().next().flatten();
                    accumulate(variable, grad)?;
                }
            }
            Row::Entry(e) => {
                let s = with_table(|t| step(t, *e, keep_graph))?;
                let to = s.to;
                // The gradient in (the root's: the implicit ones, no share).
                let g = if i == 0 {
                    Some(root_grad)
                } else {
                    input.map(|n| n.value)
                };
                let mut out: [Option<Num>; 2] = [None, None];
                if let Some(g) = g {
                    let grads = s.op.rule(s.number)(g, &s.values[..s.count], s.param);
                    let pass = s.op.passes();
                    let passed = (0..2)
                        .filter(|&k| to[k].is_some() && pass & (1 << k) != 0)
                        .count() as u32;
                    // `hand_on`: the number received, one more holder per
                    // output that passes it on (the root never passes).
                    let same = match input {
                        Some(n) if passed != 0 => Some(Num {
                            share: shares.hand_on(&n, passed),
                            ..n
                        }),
                        _ => None,
                    };
                    for k in 0..2 {
                        if to[k].is_some() {
                            out[k] = Some(match same {
                                Some(n) if pass & (1 << k) != 0 => n,
                                _ => Num::fresh(grads[k]),
                            });
                        }
                    }
                }
                // The buffer lets go of its gradient (`engine::evaluate`).
                if let Some(n) = &input {
                    shares.leave(n);
                }
                // `route_outputs`, output by output.
                for k in 0..s.op.arity() {
                    let Some(j) = to[k] else { continue };
                    let d = deps.get_mut(j).filter(|d| **d > 0).ok_or_else(busy)?;
                    *d -= 1;
                    let ready = *d == 0;
                    if let Some(new) = out[k] {
                        // `add_grad` on numbers.
                        buffers[j] = Some(match buffers[j].take() {
                            None => new,
                            Some(old) => {
                                held.push(new);
                                shares.sum(old, new.value)
                            }
                        });
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
            }
        }
    }
    Ok(())
}
