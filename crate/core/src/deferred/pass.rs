//! A planned pass over rows as a `GraphSource`: the engine's own loop
//! (`engine::execute`) schedules it, sums what meets and hands leaves to
//! AccumulateGrad; a row only says what it is and computes its step on
//! numbers, with the engine's formulas.

use super::backward::{step, Plan, Row};
use super::with_table;
use crate::accumulate::{accumulate, accumulate_number};
use crate::error::{Error, Result};
use crate::graph_source::{GraphSource, Output, Target};
use crate::graph_task::GraphTask;
use crate::input_buffer::{to_tensors, Grad, Grads, Num, Shares};
use crate::node::NodeKind;
use crate::ready_queue::{Ready, ReadyQueue};
use crate::small::Small;

/// A plan and whether its rows' saved values stay (`retain_graph`).
pub(super) struct Pass {
    pub(super) plan: Plan,
    pub(super) keep_graph: bool,
}

/// The ready queue of a pass: PyTorch's heap, or, when the plan knows its
/// order (`Plan::order`), that order with no heap work. Its pops are the
/// heap's (see `Plan`): entries in the planned order, and a leaf's
/// AccumulateGrad (`u64::MAX`) as soon as it is ready, leaves made ready by
/// one entry in the order they were pushed. The engine's loop still checks
/// every popped entry is ready.
pub(super) enum Planned {
    Heap(ReadyQueue<usize>),
    Order {
        order: Vec<u32>,
        next: usize,
        /// Leaves made ready and not yet run, first in first out.
        leaves: Vec<usize>,
        first: usize,
    },
}

impl Ready for Planned {
    #[inline(always)]
    fn push(&mut self, priority: u64, item: usize) {
        match self {
            Planned::Heap(q) => q.push(priority, item),
            // An entry's turn comes in `order`.
            Planned::Order { leaves, .. } => {
                if priority == u64::MAX {
                    leaves.push(item);
                }
            }
        }
    }

    #[inline(always)]
    fn pop(&mut self) -> Option<usize> {
        match self {
            Planned::Heap(q) => q.pop(),
            Planned::Order {
                order,
                next,
                leaves,
                first,
            } => {
                if let Some(&i) = leaves.get(*first) {
                    *first += 1;
                    return Some(i);
                }
                leaves.clear();
                *first = 0;
                let i = *order.get(*next)?;
                *next += 1;
                Some(i as usize)
            }
        }
    }
}

impl GraphSource for Pass {
    type Queue = Planned;
    type Buffer = Option<Grad>;
    /// At most two outputs, with no edge when the entry has fewer.
    type Out = [Output; 2];

    fn queue(&mut self) -> Planned {
        match self.plan.order.take() {
            Some(order) => Planned::Order {
                order,
                next: 0,
                leaves: Vec::with_capacity(2),
                first: 0,
            },
            None => Planned::Heap(ReadyQueue::default()),
        }
    }

    fn take_deps(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.plan.deps)
    }

    /// With a planned order (no `seqs`), all the queue needs to know is
    /// whether the entry is a leaf's AccumulateGrad (`u64::MAX`).
    #[inline]
    fn sequence_nr(&self, i: usize) -> u64 {
        match self.plan.seqs.get(i) {
            Some(&seq) => seq,
            None => match self.plan.rows.get(i) {
                Some(Row::Leaf(_)) => u64::MAX,
                _ => 0,
            },
        }
    }

    /// A row has one input, like the 0-d node it stands for.
    #[inline]
    fn num_inputs(&self, _: usize) -> usize {
        1
    }

    /// Nothing is filtered: a deferred pass is a plain `backward()`.
    #[inline]
    fn wanted(&self, _: &GraphTask, _: usize) -> bool {
        true
    }

    fn name(&self, _: usize) -> &'static str {
        "a deferred op"
    }

    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    fn step(
        &mut self,
        _: &mut GraphTask,
        shares: &mut Shares,
        i: usize,
        input: Option<Grad>,
    ) -> Result<[Output; 2]> {
        match self.plan.rows.get(i) {
            Some(Row::Leaf(node)) => {
                let NodeKind::AccumulateGrad { variable } = &node.kind else {
                    return Err(Error::internal(
                        "a deferred op's leaf edge is not AccumulateGrad",
                    ));
                };
                // As `scalar_backward::try_run` then the tensor path of the
                // engine's `evaluate` (no hooks: the walk checked).
                let inputs: Grads = Small::One(input);
                let done = accumulate_number(variable, &inputs, shares)?;
                shares.drop_all(&inputs);
                if !done {
                    let values = to_tensors(inputs);
                    accumulate(variable, values.first().cloned().flatten())?;
                }
                Ok([(None, None), (None, None)])
            }
            Some(Row::Entry(e)) => {
                let s = with_table(|t| step(t, *e, self.keep_graph))?;
                let g = match &input {
                    Some(g) => g.value()?,
                    None => None,
                };
                let mut grads = [None, None];
                if let Some(g) = g {
                    let values = s.op.rule(s.number)(g, &s.values[..s.count], s.param);
                    let pass = s.op.passes();
                    let passed = u32::from(s.to[0].is_some() && pass & 1 != 0)
                        + u32::from(s.to[1].is_some() && pass & 2 != 0);
                    // As `scalar_backward::hand_on`: the gradient received,
                    // one more holder per output that passes it on.
                    let same = match &input {
                        Some(Grad::Value(n)) if passed != 0 => Some(Grad::Value(Num {
                            share: shares.hand_on(n, passed),
                            ..*n
                        })),
                        Some(Grad::Tensor(t)) if passed != 0 => Some(Grad::Tensor(t.clone())),
                        _ => None,
                    };
                    // Only outputs with an edge: one without would be let
                    // go of by the loop, a holder `passed` never counted.
                    for (k, grad) in grads.iter_mut().enumerate() {
                        if s.to[k].is_none() {
                            continue;
                        }
                        *grad = Some(match &same {
                            Some(g) if pass & (1 << k) != 0 => g.clone(),
                            _ => Grad::Value(Num::fresh(values[k])),
                        });
                    }
                }
                // The buffer lets go of its gradient (`graph_source::evaluate`).
                if let Some(Grad::Value(n)) = &input {
                    shares.leave(n);
                }
                drop(input);
                let [a, b] = grads;
                // A unary op's or a number operand's `to` is `None` (the
                // eager node has no edge there).
                let target = |k: usize| s.to[k].map(|entry| Target::new(entry, 0));
                Ok([(target(0), a), (target(1), b)])
            }
            None => Err(Error::internal("a ready deferred op is not in the pass")),
        }
    }
}
