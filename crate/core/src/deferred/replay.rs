//! Materializing deferred entries: each replayed as the eager op, with the
//! ids it reserved and the versions it saw.

use std::rc::{Rc, Weak};

use super::op::Op;
use super::table::{In, Source, State, Table};
use super::{live, with_table};
use crate::context::{GradModeGuard, SavedHooksGuard};
use crate::error::{Error, Result};
use crate::ids::{self, NodeId, TensorId};
use crate::ops::Operand;
use crate::tensor::{Data, Storage, Tensor, TensorImpl};

/// Materializes every live deferred entry, in creation order, as the eager
/// ops would have built them.
pub fn flush() -> Result<()> {
    if live() == 0 {
        return Ok(());
    }
    let mut order: Vec<(u64, u32)> = with_table(|t| {
        Ok(t.entries
            .iter()
            .zip(0u32..)
            .filter(|(e, _)| e.refs > 0 && matches!(e.state, State::Deferred { .. }))
            .map(|(e, i)| (e.seq, i))
            .collect())
    })?;
    order.sort_unstable();
    // As when the ops ran: grad mode on, nothing packed, nothing traced.
    let _grad = GradModeGuard::set(true);
    let _packs = SavedHooksGuard::push(None);
    let _trace = crate::trace::PauseRecording::new();
    for (_, i) in order {
        materialize(i)?;
    }
    crate::error::checked(Ok(()))
}

/// The tensor for an input of an entry being materialized.
pub(super) fn input_tensor(table: &Table, input: &In) -> Result<Option<Tensor>> {
    Ok(match input {
        In::None => None,
        In::Entry(i) => match &table.get(*i)?.state {
            State::Done(t) => Some(t.clone()),
            _ => {
                return Err(Error::internal(
                    "a deferred input was not materialized first",
                ))
            }
        },
        In::Leaf(i) | In::Const(i) => match table.source(*i)? {
            Source::Leaf(t, _) if t.requires_grad() => Some(t.clone()),
            Source::Leaf(..) => return Err(Error::internal(
                "a deferred op's leaf stopped requiring grad before it was replayed (flush first)",
            )),
            Source::Const(weak, storage, id) => Some(const_tensor(weak, storage, *id)),
        },
    })
}

/// A constant input of an entry being materialized: the tensor, or a
/// stand-in for it.
pub(super) fn const_tensor(weak: &Weak<TensorImpl>, storage: &Rc<Storage>, id: TensorId) -> Tensor {
    match weak.upgrade().map(Tensor) {
        Some(t) if t.grad_fn().is_none() && !t.requires_grad() => t,
        // Gone since (or given a history by an in-place op): a stand-in
        // on its storage, with its id (the op reads the value and saves
        // the storage; nothing keeps the tensor).
        _ => {
            with_ids(
                NodeId::last(),
                id.0.wrapping_sub(1),
                ids::peek_sequence_nr(),
                || Tensor::with_storage(storage.clone(), None, 0, false),
            )
            .0
        }
    }
}

/// Runs `f` with the id counters set, then puts them back; also answers
/// the counters as `f` left them.
pub(super) fn with_ids<T>(
    node: u32,
    tensor: u32,
    seq: u64,
    f: impl FnOnce() -> T,
) -> (T, (u32, u32, u64)) {
    let saved = (NodeId::last(), TensorId::last(), ids::peek_sequence_nr());
    NodeId::set_last(node);
    TensorId::set_last(tensor);
    ids::set_next_sequence_nr(seq);
    let r = f();
    let after = (NodeId::last(), TensorId::last(), ids::peek_sequence_nr());
    NodeId::set_last(saved.0);
    TensorId::set_last(saved.1);
    ids::set_next_sequence_nr(saved.2);
    (r, after)
}

/// What replaying one entry needs, read out of the table so that the eager
/// op runs with the table not borrowed.
pub(super) struct Replay {
    pub(super) op: Op,
    pub(super) a: Tensor,
    pub(super) b: Operand,
    pub(super) released: bool,
    pub(super) value: f32,
    pub(super) versions: [u32; 2],
    pub(super) node: NodeId,
    pub(super) seq: u64,
    pub(super) tensor: TensorId,
}

pub(super) fn materialize(i: u32) -> Result<()> {
    let replay = with_table(|t| {
        let e = t.get(i)?;
        let State::Deferred { a, b, released } = &e.state else {
            return Ok(None);
        };
        let a = input_tensor(t, a)?
            .ok_or_else(|| Error::internal("a deferred op without its input"))?;
        let b = match input_tensor(t, b)? {
            Some(t) => Operand::Tensor(t),
            None => Operand::Scalar(e.param),
        };
        Ok(Some(Replay {
            op: e.op,
            a,
            b,
            released: *released,
            value: e.value,
            versions: e.versions,
            node: e.node,
            seq: e.seq,
            tensor: e.tensor,
        }))
    })?;
    let Some(r) = replay else { return Ok(()) };
    let (t, after) = with_ids(
        r.node.0.wrapping_sub(1),
        r.tensor.0.wrapping_sub(1),
        r.seq,
        || r.op.eager(&r.a, &r.b),
    );
    let t = t?;
    if after != (r.node.0, r.tensor.0, r.seq + 1) {
        return Err(Error::internal(
            "a deferred op took other ids than it reserved",
        ));
    }
    let node = t
        .grad_fn()
        .ok_or_else(|| Error::internal("a deferred op made no node"))?;
    // What the op saw when it ran: its value, its inputs' versions.
    match t.storage().data.try_borrow_mut() {
        Ok(mut d) => *d = Data::Scalar(r.value),
        Err(_) => return Err(Error::internal("a deferred result is busy")),
    }
    for (input, &version) in [Some(&r.a), r.b.tensor()].into_iter().zip(&r.versions) {
        if let Some(input) = input {
            node.set_saved_version(input.storage(), version);
        }
    }
    if r.released {
        node.release_variables();
    }
    // The real node and tensor count themselves from now on, and the row
    // holds the tensor instead of its inputs.
    let mut garbage = Vec::new();
    with_table(|table| {
        let e = table.get_mut(i)?;
        if e.handles > 0 {
            crate::live::tensor_dropped();
        }
        if let State::Deferred { a, b, .. } = std::mem::replace(&mut e.state, State::Done(t)) {
            let mut rows = Vec::new();
            table.leave(a, b, &mut rows, &mut garbage);
            for j in rows {
                table.unref(j, &mut garbage);
            }
        }
        Ok(())
    })?;
    drop(garbage);
    Ok(())
}
