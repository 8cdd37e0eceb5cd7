//! `backward` on a deferred root: the walk that plans a pass over rows
//! and the step that reads one row's formula.

use std::rc::Rc;

use super::lazy::Lazy;
use super::op::{Op, Saves};
use super::pass::Pass;
use super::table::{free_row, source_in, Entry, In, Source, State, Table, MAX_KEPT_ROWS};
use super::with_table;
use crate::context::GradModeGuard;
use crate::engine::execute;
use crate::error::{Error, Result};
use crate::graph_source::Target;
use crate::graph_task::GraphTask;
use crate::input_buffer::Grad;
use crate::node::NodeRef;
use crate::tensor::{Array, Tensor};

/// One row of a backward pass over entries.
pub(super) enum Row {
    Entry(u32),
    Leaf(NodeRef),
}

/// What a backward pass over entries runs (the engine's loop schedules it,
/// `pass::Pass`): its rows (the root first), each row's sequence number
/// (a leaf's AccumulateGrad: `u64::MAX`, as the node's; only without
/// `order`, which needs none), its dependency
/// count (the root's: the one implicit gradient) and, when the table's
/// rows are in creation order, the order the ready queue will pop its
/// entries in (`order`, which `pass::Planned` follows without a heap).
///
/// Why `order` is the queue's order: the queue always runs the ready entry
/// with the highest sequence number, and the highest-numbered entry not
/// yet run is always ready (every consumer of an entry was created after
/// it, so has a higher number and has run). So the entries run in
/// decreasing sequence number, which is decreasing row order here. A leaf's
/// AccumulateGrad (`u64::MAX`) runs as soon as it is ready, right after the
/// entry that made it so; two made ready by one entry run in the order they
/// were pushed (the heap keeps two equal keys above every other in push
/// order, `ready_queue`'s tie test).
pub(super) struct Plan {
    pub(super) rows: Vec<Row>,
    pub(super) seqs: Vec<u64>,
    pub(super) deps: Vec<u32>,
    /// The entries' rows of the plan by decreasing table row (the root
    /// first); `None`: use the ready queue's heap.
    pub(super) order: Option<Vec<u32>>,
}

/// `root.backward()` (no gradient, no inputs, no create_graph) on numbers.
/// `Ok(false)`: not a case for it; materialize and run the engine.
#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub fn backward(root: &Lazy, keep_graph: bool) -> Result<bool> {
    // The rows hold no hooks; a leaf's are found by the walk.
    if !crate::graph_task::nothing_observes(false, false, false) {
        return Ok(false);
    }
    let Some(plan) = with_table(|t| walk(t, root.0))? else {
        return Ok(false);
    };
    // As `engine::run_backward`: the implicit gradient, grad mode off, a
    // graph task.
    // The root's implicit gradient is held (as the engine's root list
    // holds it) until the pass ends: AccumulateGrad copies it, never steals.
    let ones = Tensor::from_array(Array::ones(&[]));
    let _grad = GradModeGuard::set(false);
    let _task = crate::graph_task::TaskGuard::enter(Default::default());
    let mut task = GraphTask::new(keep_graph);
    task.scalar_mode = true;
    let root = Target {
        entry: 0,
        input_nr: 0,
    };
    let mut pass = Pass { plan, keep_graph };
    let run = execute(
        &mut task,
        &mut pass,
        [(Some(root), Some(Grad::Tensor(ones.clone())))],
    );
    drop(ones);
    crate::error::checked(run).map(|_| true)
}

/// Everything reachable from `root`, with dependency counts; `None` when a
/// part of it cannot run on numbers (released, materialized, hooked, or an
/// input changed in place: the engine raises what PyTorch raises).
#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub(super) fn walk(table: &mut Table, root: u32) -> Result<Option<Plan>> {
    let Table {
        entries,
        slots,
        sources,
        ordered,
        ..
    } = table;
    let source = |i: u32| source_in(sources, i);
    let ordered = *ordered;
    let first = entries
        .get(root as usize)
        .filter(|e| e.refs > 0)
        .ok_or_else(free_row)?;
    let pass = crate::graph_task::next_pass();
    // Room for every row up front (a training step's backward reaches
    // nearly all of them): no reallocation while walking.
    let room = entries.len().min(MAX_KEPT_ROWS) + 1;
    let mut plan = Plan {
        rows: Vec::with_capacity(room),
        seqs: Vec::with_capacity(if ordered { 0 } else { room }),
        deps: Vec::with_capacity(room),
        order: None,
    };
    plan.rows.push(Row::Entry(root));
    if !ordered {
        plan.seqs.push(first.seq);
    }
    plan.deps.push(1);
    let mut stack: Vec<u32> = Vec::with_capacity(room);
    stack.push(root);
    *slots.get_mut(root as usize).ok_or_else(free_row)? = (pass, 0);
    while let Some(i) = stack.pop() {
        let e = entries.get(i as usize).ok_or_else(free_row)?;
        let State::Deferred { a, b, released } = &e.state else {
            return Ok(None);
        };
        if *released {
            return Ok(None);
        }
        for (input, &version) in [a, b].into_iter().zip(&e.versions) {
            let r = match input {
                In::None => continue,
                In::Const(i) => {
                    let Source::Const(_, storage, _) = source(*i)? else {
                        return Err(Error::internal("a deferred op's input changed kind"));
                    };
                    if storage.version() != version {
                        return Ok(None);
                    }
                    continue;
                }
                In::Entry(c) => {
                    let slot = slots.get_mut(*c as usize).ok_or_else(free_row)?;
                    if slot.0 == pass {
                        slot.1 as usize
                    } else {
                        let r = plan.rows.len();
                        *slot = (pass, r as u32);
                        let child = entries.get(*c as usize).ok_or_else(free_row)?;
                        plan.rows.push(Row::Entry(*c));
                        if !ordered {
                            plan.seqs.push(child.seq);
                        }
                        plan.deps.push(0);
                        stack.push(*c);
                        r
                    }
                }
                In::Leaf(i) => {
                    let Source::Leaf(t, edge) = source(*i)? else {
                        return Err(Error::internal("a deferred op's input changed kind"));
                    };
                    if t.version() != version {
                        return Ok(None);
                    }
                    let node = &edge.node;
                    let (p, r) = node.engine_slot.get();
                    if p == pass {
                        r as usize
                    } else {
                        if node.has_hooks() || !node.is_accumulate_grad() {
                            return Ok(None);
                        }
                        let r = plan.rows.len();
                        node.engine_slot.set((pass, r as u32));
                        plan.rows.push(Row::Leaf(Rc::clone(node)));
                        if !ordered {
                            plan.seqs.push(u64::MAX);
                        }
                        plan.deps.push(0);
                        r
                    }
                }
            };
            plan.deps[r] += 1;
        }
    }
    if ordered {
        // Every entry reached has a row at or below the root's.
        let reached = slots.get(..=root as usize).ok_or_else(free_row)?;
        let mut order = Vec::with_capacity(plan.rows.len());
        order.extend(reached.iter().rev().filter(|s| s.0 == pass).map(|s| s.1));
        plan.order = Some(order);
    }
    Ok(Some(plan))
}

/// What an entry's backward step reads: its formula, the rows its outputs
/// go to (`None`: no edge) and the values its formula reads (`saved` of the
/// eager node; a slot whose gradient is not routed may differ, its output
/// is dropped).
pub(super) struct Step {
    pub(super) op: Op,
    pub(super) number: bool,
    pub(super) param: f32,
    pub(super) to: [Option<usize>; 2],
    pub(super) values: [f32; 3],
    pub(super) count: usize,
}

/// Row `i`'s `Step`; also marks its saved values released unless the graph
/// is kept (`engine::evaluate` releases them as the node runs).
#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub(super) fn step(table: &mut Table, i: u32, keep_graph: bool) -> Result<Step> {
    let Table {
        entries,
        slots,
        sources,
        ..
    } = table;
    let changed = || Error::internal("a deferred op changed during backward");
    let source = |i: u32| source_in(sources, i).ok();
    let e = entries.get(i as usize).ok_or_else(changed)?;
    let State::Deferred { a, b, .. } = &e.state else {
        return Err(changed());
    };
    let row = |input: &In| -> Result<Option<usize>> {
        Ok(match input {
            In::Entry(c) => Some(slots.get(*c as usize).ok_or_else(changed)?.1 as usize),
            In::Leaf(i) => match source(*i) {
                Some(Source::Leaf(_, edge)) => Some(edge.node.engine_slot.get().1 as usize),
                _ => return Err(changed()),
            },
            In::None | In::Const(..) => None,
        })
    };
    let value = |input: &In| -> Result<f32> {
        let v = match input {
            In::Entry(c) => entries.get(*c as usize).map(|c| c.value),
            In::Leaf(i) | In::Const(i) => match source(*i) {
                Some(Source::Leaf(t, _)) => t.scalar_value(),
                Some(Source::Const(_, s, _)) => s.scalar(),
                None => None,
            },
            In::None => Some(0.0),
        };
        v.ok_or_else(|| Error::internal("a deferred op's input is no longer a number"))
    };
    let (values, count) = match e.op.saves(e.number) {
        Saves::Nothing => ([0.0; 3], 0),
        // `arith::mul_rule`'s order: other, then self (PyTorch's).
        Saves::OtherSelf => ([value(b)?, value(a)?, 0.0], 2),
        // `pow_tensor`'s order: exponent, self, then the result.
        Saves::ExponentSelfResult => ([value(b)?, value(a)?, e.value], 3),
        Saves::Input => ([value(a)?, 0.0, 0.0], 1),
        Saves::Result => ([e.value, 0.0, 0.0], 1),
    };
    let s = Step {
        op: e.op,
        number: e.number,
        param: e.param,
        to: [row(a)?, row(b)?],
        values,
        count,
    };
    if !keep_graph {
        if let Some(Entry {
            state: State::Deferred { released, .. },
            ..
        }) = entries.get_mut(i as usize)
        {
            *released = true;
        }
    }
    Ok(s)
}
