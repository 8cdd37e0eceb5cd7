//! `record`: a 0-d op as a deferred entry, with the ids, sequence number
//! and versions the eager op would have taken.

use super::lazy::Lazy;
use super::op::Op;
use super::table::{Entry, Garbage, In, State, Table};
use super::{ENABLED, LIVE, TABLE};
use crate::context;
use crate::ids::{self, NodeId, TensorId};
use crate::tensor::Tensor;

/// An operand of `record`.
pub enum Arg<'a> {
    Lazy(&'a Lazy),
    Tensor(&'a Tensor),
    Number(f32),
}

/// What `record` keeps of one operand: the input, its value, its version
/// and whether it requires grad.
pub(super) enum Checked<'a> {
    Entry(u32, f32),
    Leaf(&'a Tensor, f32),
    Const(&'a Tensor, f32),
    Number(f32),
    None,
}

impl Checked<'_> {
    #[inline]
    pub(super) fn value(&self) -> f32 {
        match self {
            Checked::Entry(_, v)
            | Checked::Leaf(_, v)
            | Checked::Const(_, v)
            | Checked::Number(v) => *v,
            Checked::None => 0.0,
        }
    }
    #[inline]
    pub(super) fn requires_grad(&self) -> bool {
        matches!(self, Checked::Entry(..) | Checked::Leaf(..))
    }
    #[inline]
    pub(super) fn version(&self) -> u32 {
        match self {
            Checked::Leaf(t, _) | Checked::Const(t, _) => t.version(),
            _ => 0,
        }
    }
    /// The input, with the leaf's edge created now (in operand order, as
    /// the eager op creates AccumulateGrad nodes).
    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    #[inline]
    pub(super) fn input(&self, table: &mut Table) -> Option<In> {
        Some(match self {
            Checked::Entry(i, _) => In::Entry(*i),
            Checked::Leaf(t, _) => In::Leaf(table.share(t, true)?),
            Checked::Const(t, _) => In::Const(table.share(t, false)?),
            Checked::Number(_) | Checked::None => In::None,
        })
    }
}

// Always inline: with two call sites per op the size-optimized build kept it
// out of line (W1 forward −7% inlined, +88 B gzip).
#[cfg_attr(hookgrad_nightly, optimize(speed))]
#[inline(always)]
pub(super) fn check<'a>(table: &Table, arg: Arg<'a>) -> Option<Checked<'a>> {
    match arg {
        Arg::Number(v) => Some(Checked::Number(v)),
        Arg::Lazy(l) => {
            let e = table.get(l.0).ok()?;
            match e.state {
                State::Deferred { .. } => Some(Checked::Entry(l.0, e.value)),
                // Materialized: a tensor with a grad_fn (eager).
                _ => None,
            }
        }
        Arg::Tensor(t) => {
            let v = t.scalar_value()?;
            let m = t.meta().ok()?;
            if m.grad_fn.is_some() {
                return None;
            }
            Some(if m.requires_grad {
                Checked::Leaf(t, v)
            } else {
                Checked::Const(t, v)
            })
        }
    }
}

/// `a op b` (`b` unused by a unary op) as a deferred entry, or `None`: run the
/// op eagerly (grad mode off, a trace recording, pack hooks, inside a
/// backward, an input not 0-d or with a grad_fn, nothing requiring grad).
#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub fn record(op: Op, a: Arg<'_>, b: Arg<'_>) -> Option<Lazy> {
    if !ENABLED.with(|e| e.get())
        || !context::is_grad_enabled()
        || crate::trace::is_recording()
        || crate::graph_task::running()
        || crate::error::fault_pending()
        || context::saved_tensors_hooks().is_some()
    {
        return None;
    }
    let mut garbage = Vec::new();
    let r = TABLE.with(|t| record_in(&mut *t.try_borrow_mut().ok()?, op, a, b, &mut garbage));
    // Nearly always empty (one rare branch lets go of a source): an empty
    // list owns no memory, so it is forgotten without the out-of-line drop
    // call it costs per op in the size-optimized wasm (~4% of W1's forward).
    if garbage.capacity() == 0 {
        std::mem::forget(garbage);
    } else {
        drop(garbage);
    }
    r
}

#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub(super) fn record_in(
    table: &mut Table,
    op: Op,
    a: Arg<'_>,
    b: Arg<'_>,
    garbage: &mut Vec<Garbage>,
) -> Option<Lazy> {
    let a = check(table, a)?;
    let b = if op.is_unary() {
        Checked::None
    } else {
        check(table, b)?
    };
    if matches!(a, Checked::Number(_)) || !(a.requires_grad() || b.requires_grad()) {
        return None;
    }
    let value = op.forward(a.value(), b.value());
    let y = b.value();
    let versions = [a.version(), b.version()];
    // From here on, what the eager op takes, in its order: the inputs'
    // edges, the node's id and sequence number, the tensor's id.
    let ia = a.input(table)?;
    let Some(ib) = b.input(table) else {
        // (Not seen: an edge is always there for a leaf that requires grad.)
        if let In::Leaf(i) | In::Const(i) = ia {
            table.release_source(i, garbage);
        }
        return None;
    };
    for input in [&ia, &ib] {
        if let In::Entry(j) = input {
            table.get_mut(*j).ok()?.refs += 1;
        }
    }
    table.handles += 1;
    let number = matches!(b, Checked::Number(_));
    let row = table.insert(Entry {
        op,
        number,
        param: if number { y } else { 0.0 },
        value,
        versions,
        node: NodeId::next(),
        seq: ids::next_sequence_nr(),
        tensor: TensorId::next(),
        handles: 1,
        refs: 1,
        state: State::Deferred {
            a: ia,
            b: ib,
            released: false,
        },
    });
    let Some(row) = row else {
        crate::error::fault("the deferred-op table is corrupt");
        return None;
    };
    crate::live::node_created();
    crate::live::tensor_created();
    LIVE.with(|l| l.set(l.get() + 1));
    Some(Lazy(row))
}
