//! The thread's table of deferred entries: rows, their holders and
//! their tensor inputs (`Source`), freed when the last holder lets go.

use std::rc::{Rc, Weak};

use super::op::Op;
use super::LIVE;
use crate::error::{Error, Result};
use crate::ids::{NodeId, TensorId};
use crate::node::Edge;
use crate::tensor::{Storage, Tensor, TensorImpl};

#[derive(Clone, Copy)]
pub(super) enum In {
    /// No input: a unary op's second, or the number operand (`Entry::param`).
    None,
    /// Another entry's row (this entry is one of its holders).
    Entry(u32),
    /// A `Source::Leaf` of the table (this entry is one of its holders).
    Leaf(u32),
    /// A `Source::Const` of the table (this entry is one of its holders).
    Const(u32),
}

/// A tensor input of entries, one per tensor however many entries take it
/// (a W1 step's ~10^4 entries take ~300 parameters): an entry names it by
/// index, which keeps entries small and their inputs free to copy and drop.
pub(super) enum Source {
    /// A 0-d leaf that requires grad, and its AccumulateGrad edge (held, as
    /// the eager node holds them).
    Leaf(Tensor, Edge),
    /// A 0-d tensor that needs no grad: its storage and id, the tensor
    /// itself weakly (the eager node would not keep it alive).
    Const(Weak<TensorImpl>, Rc<Storage>, TensorId),
}

impl Source {
    /// This source is `t`'s, of the kind asked for.
    pub(super) fn is(&self, t: &Tensor, leaf: bool) -> bool {
        match self {
            Source::Leaf(x, _) => leaf && Rc::ptr_eq(&x.0, &t.0),
            // The weak reference keeps the allocation, so the address is
            // not another tensor's.
            Source::Const(w, ..) => !leaf && std::ptr::eq(w.as_ptr(), Rc::as_ptr(&t.0)),
        }
    }
}

/// A source and its holders (entries); freed at zero.
pub(super) struct Shared {
    pub(super) source: Source,
    pub(super) refs: u32,
}

/// Source `i` of a table's `sources` (also where the table is borrowed
/// field by field).
#[inline]
pub(super) fn source_in(sources: &[Option<Shared>], i: u32) -> Result<&Source> {
    match sources.get(i as usize) {
        Some(Some(s)) => Ok(&s.source),
        _ => Err(Error::internal("a deferred op's input is missing")),
    }
}

pub(super) enum State {
    Deferred { a: In, b: In, released: bool },
    Done(Tensor),
    Gone,
}

pub(super) struct Entry {
    pub(super) op: Op,
    /// `b` is a number (then `param`).
    pub(super) number: bool,
    pub(super) param: f32,
    pub(super) value: f32,
    /// The inputs' versions when the op ran (0 for entries).
    pub(super) versions: [u32; 2],
    pub(super) node: NodeId,
    pub(super) seq: u64,
    pub(super) tensor: TensorId,
    /// Live `Lazy` handles: the eager tensor is alive while there are some.
    pub(super) handles: u32,
    /// Holders: the handles and the deferred entries that take this one as
    /// an input. The row is free at zero.
    pub(super) refs: u32,
    pub(super) state: State,
}

/// What a freed row or a replayed op lets go of, dropped once the table
/// is no longer borrowed (a tensor's drop may reach anything). Never read:
/// held only to be dropped.
#[allow(dead_code)]
pub(super) enum Garbage {
    Source(Source),
    Tensor(Tensor),
}

/// The thread's deferred entries.
pub(super) struct Table {
    pub(super) entries: Vec<Entry>,
    /// Per row: its index in backward pass `.0` (as `Node::engine_slot`).
    pub(super) slots: Vec<(u64, u32)>,
    /// Free rows, reused before the table grows.
    pub(super) free: Vec<u32>,
    /// The entries' tensor inputs (`In::Leaf`, `In::Const`), and the free
    /// places among them.
    pub(super) sources: Vec<Option<Shared>>,
    pub(super) free_sources: Vec<u32>,
    /// The live rows' `handles`, summed: when a batch of handles being
    /// dropped is all of them, every row goes (`clear`).
    pub(super) handles: usize,
    /// No free row was reused since the table last started empty: rows are
    /// in creation order, so row order is sequence-number order, and a
    /// backward pass needs no ready queue (`Plan::order`).
    pub(super) ordered: bool,
}

/// Rows an empty table keeps room for (~8 MB natively): a training step's
/// graph is rebuilt at the same size every step, a one-off huge graph's room
/// goes back to the allocator.
pub(super) const MAX_KEPT_ROWS: usize = 1 << 16;

pub(super) fn free_row() -> Error {
    Error::internal("a deferred op's row was freed while in use")
}

impl Table {
    pub(super) const fn new() -> Table {
        Table {
            entries: Vec::new(),
            slots: Vec::new(),
            free: Vec::new(),
            sources: Vec::new(),
            free_sources: Vec::new(),
            handles: 0,
            ordered: true,
        }
    }

    /// Every row freed at once, as the last handles go (the end of a
    /// training step's scope): the counts a row-by-row `unref` would have
    /// lowered, lowered in bulk. Answers the rows and the sources, which
    /// the caller drops once the table is no longer borrowed.
    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    pub(super) fn clear(&mut self) -> (Vec<Entry>, Vec<Option<Shared>>) {
        let (mut nodes, mut tensors) = (0, 0);
        for e in self.entries.iter().filter(|e| e.refs > 0) {
            if matches!(e.state, State::Deferred { .. }) {
                nodes += 1;
                tensors += usize::from(e.handles > 0);
            }
        }
        crate::live::nodes_dropped(nodes);
        crate::live::tensors_dropped(tensors);
        LIVE.with(|l| l.set(l.get().saturating_sub(nodes)));
        let rows = std::mem::take(&mut self.entries);
        let sources = std::mem::take(&mut self.sources);
        self.restart();
        (rows, sources)
    }

    /// No row alive: start again from row 0 (rows in creation order are
    /// what the walk reads fastest), keeping the room for the next graph of
    /// this size unless it was an outlier.
    pub(super) fn restart(&mut self) {
        if self.entries.capacity() > MAX_KEPT_ROWS {
            *self = Table::new();
        } else {
            // No entry alive, so no source held: every one is `None`.
            self.entries.clear();
            self.slots.clear();
            self.free.clear();
            self.sources.clear();
            self.free_sources.clear();
            self.handles = 0;
            self.ordered = true;
        }
    }

    /// Takes back the emptied `rows` of a `clear` for the next graph, unless
    /// the table has rows again or they are an outlier's room.
    pub(super) fn reuse(&mut self, rows: Vec<Entry>) {
        if self.entries.capacity() == 0 && rows.is_empty() && rows.capacity() <= MAX_KEPT_ROWS {
            self.entries = rows;
        }
    }

    /// Gives back the free rows at the table's end, so that the next graph
    /// takes rows in creation order again (what the walk reads fastest)
    /// instead of the free list's reverse order: a training step's rows,
    /// freed while a row handle made before the loop lives on.
    pub(super) fn trim(&mut self) {
        let live = self
            .entries
            .iter()
            .rposition(|e| e.refs > 0)
            .map_or(0, |i| i + 1);
        if live < self.entries.len() {
            self.entries.truncate(live);
            self.slots.truncate(live);
            self.free.retain(|&i| (i as usize) < live);
        }
    }

    /// A deferred op's state leaves its row (freed, or replayed into a
    /// tensor): the op stops counting as a live node, its input rows go to
    /// `rows` (each loses this op as a holder), its sources let go of it.
    #[inline]
    pub(super) fn leave(&mut self, a: In, b: In, rows: &mut Vec<u32>, garbage: &mut Vec<Garbage>) {
        crate::live::node_dropped();
        LIVE.with(|l| l.set(l.get().saturating_sub(1)));
        for input in [a, b] {
            match input {
                In::None => {}
                In::Entry(j) => rows.push(j),
                In::Leaf(i) | In::Const(i) => self.release_source(i, garbage),
            }
        }
    }

    /// `t` as a source (a leaf's with its AccumulateGrad edge, created now
    /// if it has none, as the eager op creates it), one more holder of it.
    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    #[inline]
    pub(super) fn share(&mut self, t: &Tensor, leaf: bool) -> Option<u32> {
        let hint = t.0.deferred_source.get().wrapping_sub(1);
        if let Some(Some(s)) = self.sources.get_mut(hint as usize) {
            if s.source.is(t, leaf) {
                s.refs += 1;
                return Some(hint);
            }
        }
        let source = if leaf {
            Source::Leaf(t.clone(), t.gradient_edge()?)
        } else {
            Source::Const(Rc::downgrade(&t.0), t.storage().clone(), t.id())
        };
        let shared = Some(Shared { source, refs: 1 });
        let i = match self.free_sources.pop() {
            Some(i) => {
                *self.sources.get_mut(i as usize)? = shared;
                i
            }
            None => {
                self.sources.push(shared);
                u32::try_from(self.sources.len() - 1).ok()?
            }
        };
        t.0.deferred_source.set(i.wrapping_add(1));
        Some(i)
    }

    /// One holder of source `i` lets go; the last one frees it.
    pub(super) fn release_source(&mut self, i: u32, garbage: &mut Vec<Garbage>) {
        let Some(slot) = self.sources.get_mut(i as usize) else {
            crate::error::fault("a deferred op's input is missing");
            return;
        };
        match slot {
            Some(s) if s.refs > 1 => s.refs -= 1,
            Some(_) => {
                if let Some(s) = slot.take() {
                    garbage.push(Garbage::Source(s.source));
                }
                self.free_sources.push(i);
            }
            None => crate::error::fault("a deferred op's input was freed twice"),
        }
    }

    /// Source `i`.
    pub(super) fn source(&self, i: u32) -> Result<&Source> {
        source_in(&self.sources, i)
    }

    #[inline]
    pub(super) fn get(&self, i: u32) -> Result<&Entry> {
        self.entries
            .get(i as usize)
            .filter(|e| e.refs > 0)
            .ok_or_else(free_row)
    }

    #[inline]
    pub(super) fn get_mut(&mut self, i: u32) -> Result<&mut Entry> {
        self.entries
            .get_mut(i as usize)
            .filter(|e| e.refs > 0)
            .ok_or_else(free_row)
    }

    /// A row for `e` (a free one, or a new one at the end).
    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    #[inline]
    pub(super) fn insert(&mut self, e: Entry) -> Option<u32> {
        if let Some(i) = self.free.pop() {
            self.ordered = false;
            if let Some(row) = self.entries.get_mut(i as usize) {
                *row = e;
                return Some(i);
            }
            return None;
        }
        let i = u32::try_from(self.entries.len()).ok()?;
        self.entries.push(e);
        self.slots.push((0, 0));
        Some(i)
    }

    /// One holder of row `i` lets go; a row left without holders is freed,
    /// and with it its hold on its inputs (iteratively: a long chain must
    /// not recurse, wasm's stack is small).
    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    pub(super) fn unref(&mut self, i: u32, garbage: &mut Vec<Garbage>) {
        let mut stack: Vec<u32> = Vec::new();
        let mut next = Some(i);
        while let Some(i) = next.take().or_else(|| stack.pop()) {
            let Ok(e) = self.get_mut(i) else {
                crate::error::fault("a deferred op's row was freed twice");
                continue;
            };
            e.refs -= 1;
            if e.refs > 0 {
                continue;
            }
            let state = std::mem::replace(&mut e.state, State::Gone);
            self.free.push(i);
            match state {
                State::Deferred { a, b, .. } => self.leave(a, b, &mut stack, garbage),
                State::Done(t) => garbage.push(Garbage::Tensor(t)),
                State::Gone => {}
            }
        }
        if self.free.len() == self.entries.len() {
            self.restart();
        }
    }
}
