//! A planned pass over rows as a `GraphSource`: the engine's own loop
//! (`engine::execute`) schedules it, sums what meets and hands leaves to
//! AccumulateGrad; a row only says what it is and computes its step on
//! numbers, with the engine's formulas.

use super::backward::{step, Plan, Row};
use super::with_table;
use crate::accumulate::{accumulate, accumulate_number};
use crate::error::{Error, Result};
use crate::graph_source::{GraphSource, Outputs, Target};
use crate::graph_task::GraphTask;
use crate::input_buffer::{to_tensors, Grad, Grads, Num, Shares};
use crate::node::NodeKind;

/// A plan and whether its rows' saved values stay (`retain_graph`).
pub(super) struct Pass {
    pub(super) plan: Plan,
    pub(super) keep_graph: bool,
}

impl GraphSource for Pass {
    fn take_deps(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.plan.deps)
    }

    #[inline]
    fn sequence_nr(&self, i: usize) -> u64 {
        self.plan.seqs.get(i).copied().unwrap_or(0)
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
        inputs: Grads,
        out: &mut Outputs,
    ) -> Result<()> {
        match self.plan.rows.get(i) {
            Some(Row::Leaf(node)) => {
                let NodeKind::AccumulateGrad { variable } = &node.kind else {
                    return Err(Error::internal(
                        "a deferred op's leaf edge is not AccumulateGrad",
                    ));
                };
                // As `scalar_backward::try_run` then the tensor path of the
                // engine's `evaluate` (no hooks: the walk checked).
                let done = accumulate_number(variable, &inputs, shares)?;
                shares.drop_all(&inputs);
                if !done {
                    let values = to_tensors(inputs);
                    accumulate(variable, values.first().cloned().flatten())?;
                }
                Ok(())
            }
            Some(Row::Entry(e)) => {
                let s = with_table(|t| step(t, *e, self.keep_graph))?;
                let input = inputs.into_iter().next().flatten();
                let g = match &input {
                    Some(g) => g.value()?,
                    None => None,
                };
                let mut grads = [None, None];
                if let Some(g) = g {
                    let values = s.op.rule(s.number)(g, &s.values[..s.count], s.param);
                    let pass = s.op.passes();
                    let passed = (0..2)
                        .filter(|&k| s.to[k].is_some() && pass & (1 << k) != 0)
                        .count() as u32;
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
                    for (k, grad) in grads.iter_mut().enumerate() {
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
                for (to, grad) in s.to.iter().zip(grads).take(s.op.arity()) {
                    if let Some(&entry) = to.as_ref() {
                        out.push((Some(Target { entry, input_nr: 0 }), grad));
                    }
                }
                Ok(())
            }
            None => Err(Error::internal("a ready deferred op is not in the pass")),
        }
    }
}
