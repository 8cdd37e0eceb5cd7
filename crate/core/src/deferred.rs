//! Deferred scalar ops (issue 10, W1). A micrograd-style program builds one
//! graph node per 0-d op and never looks at most of them: building the
//! node, its tensor and storage and tearing them down again is most of what
//! such a step costs. Here a 0-d `add` / `sub` / `mul` / `tanh` whose
//! result requires grad is first a small `Entry`: the op, its inputs, its
//! value, and the ids, sequence number and versions the op would have
//! taken or seen. Nothing else changes, so the two ways are indistinguishable:
//!
//! - **Materialized on demand.** Anything that needs the real tensor (every
//!   API but `value()` and `backward()`) calls `Lazy::tensor()`, which
//!   replays *every* live deferred entry in creation order (`flush`) with
//!   the ids it reserved: the graph, the ids, the sequence numbers (hook and
//!   backward order) and the live-object counts are those the eager ops
//!   would have made. An input changed in place since is seen as the eager
//!   op saw it: the result keeps its recorded value and the saved tensors
//!   their recorded versions, so backward raises PyTorch's in-place error.
//! - **Backward on numbers.** `backward(root)` on a deferred root runs the
//!   engine's number path (`scalar_backward`, `input_buffer::Num`) over the
//!   entries directly, with the engine's ready queue and dependency counts:
//!   the same f32 sums in the same order, `.grad` and its version as the
//!   engine leaves them. It runs only where nothing can observe a gradient
//!   in flight (no hooks on the leaves reached, no trace, no pack hooks, no
//!   multi-grad hooks, not inside another backward) and the graph is
//!   intact; otherwise it answers `false` and the caller materializes and
//!   runs the engine, which is always exact.
//!
//! The one rule for the caller (the binding's `requiresGrad` setter): call
//! `flush` before changing a tensor's `requires_grad`, which decides the
//! edges the replayed op makes (a leaf recorded as requiring grad that no
//! longer does fails the replay loudly). Not in `Tensor::set_requires_grad`
//! itself: core code that never defers would link the replay.
//!
//! Inputs are deferred entries, 0-d leaves that require grad (held, with
//! their AccumulateGrad edge, as the eager node holds them), 0-d constants
//! (their storage; the tensor weakly, as the eager node holds nothing of
//! them) and numbers. A tensor with a `grad_fn` is never an input: an op on
//! one is eager. A tensor input is held once by the table (`Source`), for
//! every entry that takes it.
//!
//! **Storage.** Entries are rows of one table per thread, not separate
//! allocations: an entry names its deferred inputs by row, and a row is
//! freed when its count of holders (its handles and the entries that take
//! it as an input) drops to zero. A W1 step makes ~10^4 entries, and
//! allocating, reading and freeing them one by one was most of the core's
//! work in it (bench/PROFILE.md, tenth pass); the backward reads the rows
//! and a parallel array of its own marks.

use std::rc::{Rc, Weak};

use crate::context::{self, GradModeGuard, SavedHooksGuard};
use crate::engine::accumulate;
use crate::error::{Error, Result};
use crate::ids::{self, NodeId, TensorId};
use crate::input_buffer::{to_tensors, Grad, Grads, Num, Shares};
use crate::node::{Edge, NodeKind, NodeRef};
use crate::ops::{arith, unary, Operand};
use crate::ready_queue::ReadyQueue;
use crate::scalar_backward::accumulate_number;
use crate::small::Small;
use crate::tensor::{Array, Data, Storage, Tensor, TensorImpl};

/// The deferred ops.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Tanh,
}

impl Op {
    /// The eager node's edges (a number operand has a `None` edge).
    fn arity(self) -> usize {
        if self == Op::Tanh {
            1
        } else {
            2
        }
    }

    /// The eager op (`b` is unused by tanh).
    fn eager(self, a: &Tensor, b: &Operand) -> Result<Tensor> {
        match self {
            Op::Add => arith::add(a, b),
            Op::Sub => arith::sub(a, b),
            Op::Mul => arith::mul(a, b),
            Op::Tanh => unary::tanh(a),
        }
    }

    /// `scalar_backward::passes_through` of the op's node, matched on the
    /// op instead of its node's name (no string compare per backward step;
    /// a core test checks the two agree).
    #[inline]
    pub(crate) fn passes(self) -> u8 {
        match self {
            Op::Add => 0b11,
            Op::Sub => 0b01,
            Op::Mul | Op::Tanh => 0,
        }
    }

    /// The op's formula on numbers (the eager node's, shared with it).
    fn rule(self, number: bool) -> fn(f32, &[f32], f32) -> [f32; 2] {
        match self {
            Op::Add => arith::add_rule,
            Op::Sub => arith::sub_rule,
            Op::Mul if number => arith::mul_number_rule,
            Op::Mul => arith::mul_rule,
            Op::Tanh => unary::tanh_rule,
        }
    }
}

/// An operand of `record`.
pub enum Arg<'a> {
    Lazy(&'a Lazy),
    Tensor(&'a Tensor),
    Number(f32),
}

#[derive(Clone, Copy)]
enum In {
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
enum Source {
    /// A 0-d leaf that requires grad, and its AccumulateGrad edge (held, as
    /// the eager node holds them).
    Leaf(Tensor, Edge),
    /// A 0-d tensor that needs no grad: its storage and id, the tensor
    /// itself weakly (the eager node would not keep it alive).
    Const(Weak<TensorImpl>, Rc<Storage>, TensorId),
}

impl Source {
    /// This source is `t`'s, of the kind asked for.
    fn is(&self, t: &Tensor, leaf: bool) -> bool {
        match self {
            Source::Leaf(x, _) => leaf && Rc::ptr_eq(&x.0, &t.0),
            // The weak reference keeps the allocation, so the address is
            // not another tensor's.
            Source::Const(w, ..) => !leaf && std::ptr::eq(w.as_ptr(), Rc::as_ptr(&t.0)),
        }
    }
}

/// A source and its holders (entries); freed at zero.
struct Shared {
    source: Source,
    refs: u32,
}

/// Source `i` of a table's `sources` (also where the table is borrowed
/// field by field).
#[inline]
fn source_in(sources: &[Option<Shared>], i: u32) -> Result<&Source> {
    match sources.get(i as usize) {
        Some(Some(s)) => Ok(&s.source),
        _ => Err(Error::internal("a deferred op's input is missing")),
    }
}

enum State {
    Deferred { a: In, b: In, released: bool },
    Done(Tensor),
    Gone,
}

struct Entry {
    op: Op,
    /// `b` is a number (then `param`).
    number: bool,
    param: f32,
    value: f32,
    /// The inputs' versions when the op ran (0 for entries).
    versions: [u32; 2],
    node: NodeId,
    seq: u64,
    tensor: TensorId,
    /// Live `Lazy` handles: the eager tensor is alive while there are some.
    handles: u32,
    /// Holders: the handles and the deferred entries that take this one as
    /// an input. The row is free at zero.
    refs: u32,
    state: State,
}

/// What a freed row or a replayed op lets go of, dropped once the table
/// is no longer borrowed (a tensor's drop may reach anything). Never read:
/// held only to be dropped.
#[allow(dead_code)]
enum Garbage {
    Source(Source),
    Tensor(Tensor),
}

/// The thread's deferred entries.
struct Table {
    entries: Vec<Entry>,
    /// Per row: its index in backward pass `.0` (as `Node::engine_slot`).
    slots: Vec<(u64, u32)>,
    /// Free rows, reused before the table grows.
    free: Vec<u32>,
    /// The entries' tensor inputs (`In::Leaf`, `In::Const`), and the free
    /// places among them.
    sources: Vec<Option<Shared>>,
    free_sources: Vec<u32>,
    /// The live rows' `handles`, summed: when a batch of handles being
    /// dropped is all of them, every row goes (`clear`).
    handles: usize,
    /// No free row was reused since the table last started empty: rows are
    /// in creation order, so row order is sequence-number order, and a
    /// backward pass needs no ready queue (`Plan::order`).
    ordered: bool,
}

/// Rows an empty table keeps room for (~8 MB natively): a training step's
/// graph is rebuilt at the same size every step, a one-off huge graph's room
/// goes back to the allocator.
const MAX_KEPT_ROWS: usize = 1 << 16;

crate::thread_refcell!(
    static TABLE: Table = Table::new();
);
crate::thread_cell!(
    /// Off: every op is eager (tests compare the two ways).
    static ENABLED: bool = true;
);
crate::thread_cell!(
    /// Deferred entries alive now.
    static LIVE: usize = 0;
);

fn free_row() -> Error {
    Error::internal("a deferred op's row was freed while in use")
}

impl Table {
    const fn new() -> Table {
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
    fn clear(&mut self) -> (Vec<Entry>, Vec<Option<Shared>>) {
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
    fn restart(&mut self) {
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
    fn reuse(&mut self, rows: Vec<Entry>) {
        if self.entries.capacity() == 0 && rows.is_empty() && rows.capacity() <= MAX_KEPT_ROWS {
            self.entries = rows;
        }
    }

    /// Gives back the free rows at the table's end, so that the next graph
    /// takes rows in creation order again (what the walk reads fastest)
    /// instead of the free list's reverse order: a training step's rows,
    /// freed while a row handle made before the loop lives on.
    fn trim(&mut self) {
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
    fn leave(&mut self, a: In, b: In, rows: &mut Vec<u32>, garbage: &mut Vec<Garbage>) {
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
    fn share(&mut self, t: &Tensor, leaf: bool) -> Option<u32> {
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
    fn release_source(&mut self, i: u32, garbage: &mut Vec<Garbage>) {
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
    fn source(&self, i: u32) -> Result<&Source> {
        source_in(&self.sources, i)
    }

    #[inline]
    fn get(&self, i: u32) -> Result<&Entry> {
        self.entries
            .get(i as usize)
            .filter(|e| e.refs > 0)
            .ok_or_else(free_row)
    }

    #[inline]
    fn get_mut(&mut self, i: u32) -> Result<&mut Entry> {
        self.entries
            .get_mut(i as usize)
            .filter(|e| e.refs > 0)
            .ok_or_else(free_row)
    }

    /// A row for `e` (a free one, or a new one at the end).
    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    #[inline]
    fn insert(&mut self, e: Entry) -> Option<u32> {
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
    fn unref(&mut self, i: u32, garbage: &mut Vec<Garbage>) {
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

/// `f` on the thread's table, or an internal error if it is borrowed (never
/// a panic: the wasm instance must not trap).
fn with_table<R>(f: impl FnOnce(&mut Table) -> Result<R>) -> Result<R> {
    TABLE.with(|t| match t.try_borrow_mut() {
        Ok(mut t) => f(&mut t),
        Err(_) => Err(Error::internal("the deferred-op table is busy")),
    })
}

/// Turns deferral on or off (off: `record` answers `None`; entries already
/// deferred stay valid).
pub fn set_enabled(on: bool) {
    ENABLED.with(|e| e.set(on));
}

/// Deferred entries alive now.
pub fn live() -> usize {
    LIVE.with(|l| l.get())
}

/// A handle on a deferred op's result (one per JS handle, as a `Tensor` is):
/// its row in the thread's table.
pub struct Lazy(u32);

/// What `record` keeps of one operand: the input, its value, its version
/// and whether it requires grad.
enum Checked<'a> {
    Entry(u32, f32),
    Leaf(&'a Tensor, f32),
    Const(&'a Tensor, f32),
    Number(f32),
    None,
}

impl Checked<'_> {
    #[inline]
    fn value(&self) -> f32 {
        match self {
            Checked::Entry(_, v)
            | Checked::Leaf(_, v)
            | Checked::Const(_, v)
            | Checked::Number(v) => *v,
            Checked::None => 0.0,
        }
    }
    #[inline]
    fn requires_grad(&self) -> bool {
        matches!(self, Checked::Entry(..) | Checked::Leaf(..))
    }
    #[inline]
    fn version(&self) -> u32 {
        match self {
            Checked::Leaf(t, _) | Checked::Const(t, _) => t.version(),
            _ => 0,
        }
    }
    /// The input, with the leaf's edge created now (in operand order, as
    /// the eager op creates AccumulateGrad nodes).
    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    #[inline]
    fn input(&self, table: &mut Table) -> Option<In> {
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
fn check<'a>(table: &Table, arg: Arg<'a>) -> Option<Checked<'a>> {
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

/// `a op b` (`b` unused for tanh) as a deferred entry, or `None`: run the
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
fn record_in(
    table: &mut Table,
    op: Op,
    a: Arg<'_>,
    b: Arg<'_>,
    garbage: &mut Vec<Garbage>,
) -> Option<Lazy> {
    let a = check(table, a)?;
    let b = if op == Op::Tanh {
        Checked::None
    } else {
        check(table, b)?
    };
    if matches!(a, Checked::Number(_)) || !(a.requires_grad() || b.requires_grad()) {
        return None;
    }
    let (x, y) = (a.value(), b.value());
    // The eager kernels' arithmetic (`zip_operand`, `Data::map`).
    let value = match op {
        Op::Add => x + y,
        Op::Sub => x - y,
        Op::Mul => x * y,
        Op::Tanh => x.tanh(),
    };
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

impl Lazy {
    /// The result's value while the op is deferred (`item()`); `None` once
    /// it is a tensor.
    #[inline]
    pub fn deferred_value(&self) -> Result<Option<f32>> {
        with_table(|t| {
            let e = t.get(self.0)?;
            Ok(matches!(e.state, State::Deferred { .. }).then_some(e.value))
        })
    }

    /// Whether the op is still deferred (no tensor made yet).
    pub fn is_deferred(&self) -> bool {
        // Busy: not as a deferred op (`tensor()` then answers the error).
        self.deferred_value().is_ok_and(|v| v.is_some())
    }

    fn done(&self) -> Result<Option<Tensor>> {
        with_table(|t| {
            Ok(match &t.get(self.0)?.state {
                State::Done(t) => Some(t.clone()),
                _ => None,
            })
        })
    }

    /// The result as the tensor the eager op made (`flush` first if needed).
    pub fn tensor(&self) -> Result<Tensor> {
        if let Some(t) = self.done()? {
            return Ok(t);
        }
        flush()?;
        self.done()?
            .ok_or_else(|| Error::internal("a deferred op was not materialized"))
    }

    /// Hands this handle's hold on its row to a holder outside Rust (the
    /// binding's JS handle, which then needs no allocation of its own),
    /// which gives it back exactly once: `from_row`, or `drop_rows`.
    pub fn into_row(self) -> u32 {
        let row = self.0;
        std::mem::forget(self);
        row
    }

    /// The handle `into_row` gave out. A row that is not live answers an
    /// internal error wherever it is used, never another row's value.
    pub fn from_row(row: u32) -> Lazy {
        Lazy(row)
    }
}

impl Drop for Lazy {
    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    fn drop(&mut self) {
        drop_rows(&[self.0]);
    }
}

/// Drops the handles `into_row` gave out for `rows`, in one borrow of the
/// table (the end of a scope drops a step's ~10^4 at once).
#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub fn drop_rows(rows: &[u32]) {
    let mut garbage = Vec::new();
    let mut cleared = Vec::new();
    let mut sources = Vec::new();
    // At thread exit the table may be gone already (natively).
    let _ = TABLE.try_with(|t| {
        let Ok(mut t) = t.try_borrow_mut() else {
            crate::error::fault("the deferred-op table is busy");
            return;
        };
        // All the handles there are: with them every row goes (no row is
        // held but by the entries, a DAG whose sinks nothing holds).
        if rows.len() > 1
            && rows.len() == t.handles
            && rows.iter().all(|&r| t.get(r).is_ok_and(|e| e.handles == 1))
        {
            (cleared, sources) = t.clear();
            return;
        }
        for &row in rows {
            let Ok(e) = t.get_mut(row) else {
                crate::error::fault("a deferred op's row was freed while in use");
                continue;
            };
            e.handles = e.handles.saturating_sub(1);
            // The eager tensor dies with its last handle; the node lives on
            // in its consumers (here: the entries holding this row).
            if e.handles == 0 && matches!(e.state, State::Deferred { .. }) {
                crate::live::tensor_dropped();
            }
            t.handles = t.handles.saturating_sub(1);
            t.unref(row, &mut garbage);
        }
        if rows.len() > 1 {
            t.trim();
        }
    });
    drop(garbage);
    drop(sources);
    if cleared.capacity() != 0 {
        cleared.clear();
        let _ = TABLE.try_with(|t| {
            if let Ok(mut t) = t.try_borrow_mut() {
                t.reuse(cleared);
            }
        });
    }
}

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
fn input_tensor(table: &Table, input: &In) -> Result<Option<Tensor>> {
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
fn const_tensor(weak: &Weak<TensorImpl>, storage: &Rc<Storage>, id: TensorId) -> Tensor {
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
fn with_ids<T>(node: u32, tensor: u32, seq: u64, f: impl FnOnce() -> T) -> (T, (u32, u32, u64)) {
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
struct Replay {
    op: Op,
    a: Tensor,
    b: Operand,
    released: bool,
    value: f32,
    versions: [u32; 2],
    node: NodeId,
    seq: u64,
    tensor: TensorId,
}

fn materialize(i: u32) -> Result<()> {
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

/// One row of a backward pass over entries.
enum Row {
    Entry(u32),
    Leaf(NodeRef),
}

/// What a backward pass over entries runs: its rows (the root first), each
/// row's dependency count, and the order its entries run in: the ready
/// queue's, by sequence number (`seqs`, one per row), or, when the table's
/// rows are in creation order, `order`.
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
struct Plan {
    rows: Vec<Row>,
    seqs: Vec<u64>,
    deps: Vec<u32>,
    /// The entries' rows of the plan by decreasing table row (the root
    /// first); `None`: use the ready queue.
    order: Option<Vec<u32>>,
}

/// `root.backward()` (no gradient, no inputs, no create_graph) on numbers.
/// `Ok(false)`: not a case for it; materialize and run the engine.
#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub fn backward(root: &Lazy, keep_graph: bool) -> Result<bool> {
    if crate::trace::is_recording()
        || crate::node::packs_alive()
        || crate::graph_task::watched()
        || crate::graph_task::running()
        || crate::error::fault_pending()
    {
        return Ok(false);
    }
    let Some(plan) = with_table(|t| walk(t, root.0))? else {
        return Ok(false);
    };
    // As `engine::run_backward`: the implicit gradient, grad mode off, a
    // graph task.
    let ones = Tensor::from_array(Array::ones(&[]));
    let _grad = GradModeGuard::set(false);
    let _task = crate::graph_task::TaskGuard::enter(Default::default());
    crate::error::checked(execute(plan, ones, keep_graph)).map(|_| true)
}

/// Everything reachable from `root`, with dependency counts; `None` when a
/// part of it cannot run on numbers (released, materialized, hooked, or an
/// input changed in place: the engine raises what PyTorch raises).
#[cfg_attr(hookgrad_nightly, optimize(speed))]
fn walk(table: &mut Table, root: u32) -> Result<Option<Plan>> {
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
    if first.op.passes() != 0 {
        return Ok(None);
    }
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
struct Step {
    op: Op,
    number: bool,
    param: f32,
    to: [Option<usize>; 2],
    values: [f32; 2],
    count: usize,
}

/// Row `i`'s `Step`; also marks its saved values released unless the graph
/// is kept (`engine::evaluate` releases them as the node runs).
#[cfg_attr(hookgrad_nightly, optimize(speed))]
fn step(table: &mut Table, i: u32, keep_graph: bool) -> Result<Step> {
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
    let (values, count) = match e.op {
        // `arith::mul_rule`'s order: other, then self (PyTorch's).
        Op::Mul if !e.number => ([value(b)?, value(a)?], 2),
        Op::Tanh => ([e.value, 0.0], 1),
        _ => ([0.0; 2], 0),
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

/// The engine's loop (`engine::execute` in scalar mode) over rows, with
/// each row's input buffer as the one number it is in the engine: the
/// root's gradient is the implicit `ones`, and every gradient a formula
/// makes is a `Num`. The same steps in the same order as the engine's
/// `add_grad` / `hand_on` / `Shares` (the number path of `input_buffer`):
/// ready rows by sequence number in PyTorch's heap order, an incoming
/// gradient summed into the buffer in place when the buffer alone holds
/// it, a formula's pass-through output the very number it received.
#[cfg_attr(hookgrad_nightly, optimize(speed))]
fn execute(plan: Plan, ones: Tensor, keep_graph: bool) -> Result<()> {
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

/// What the binding keeps per JS handle: a deferred result or a tensor.
pub enum Handle {
    Lazy(Lazy),
    Tensor(Tensor),
}

/// The other operand of `Handle::op`.
#[derive(Clone, Copy)]
pub enum Other<'a> {
    None,
    Number(f32),
    Handle(&'a Handle),
}

impl Handle {
    /// The tensor (materializing a deferred result).
    pub fn tensor(&self) -> Result<Tensor> {
        match self {
            Handle::Lazy(l) => l.tensor(),
            Handle::Tensor(t) => Ok(t.clone()),
        }
    }

    /// `self op other`: deferred when it can be, else the eager op.
    pub fn op(&self, op: Op, other: Other<'_>) -> Result<Handle> {
        fn arg(h: &Handle) -> Arg<'_> {
            match h {
                Handle::Lazy(l) => Arg::Lazy(l),
                Handle::Tensor(t) => Arg::Tensor(t),
            }
        }
        let b = match other {
            Other::None => Arg::Number(0.0),
            Other::Number(v) => Arg::Number(v),
            Other::Handle(h) => arg(h),
        };
        if let Some(l) = record(op, arg(self), b) {
            return Ok(Handle::Lazy(l));
        }
        self.eager(op, other)
    }

    /// `self op other`, always as the eager op (the binding's choice while
    /// a JS hook runs: a handle made there must be a tensor).
    pub fn eager(&self, op: Op, other: Other<'_>) -> Result<Handle> {
        let a = self.tensor()?;
        let b = match other {
            Other::Handle(h) => Operand::Tensor(h.tensor()?),
            Other::Number(v) => Operand::Scalar(v),
            Other::None => Operand::Scalar(0.0),
        };
        op.eager(&a, &b).map(Handle::Tensor)
    }

    /// `item()`.
    pub fn item(&self) -> Result<f32> {
        if let Handle::Lazy(l) = self {
            if let Some(v) = l.deferred_value()? {
                return Ok(v);
            }
        }
        self.tensor()?.item()
    }

    /// `backward()` without arguments, or with `retain_graph` only.
    pub fn backward(&self, retain_graph: bool) -> Result<()> {
        if let Handle::Lazy(l) = self {
            if l.is_deferred() && backward(l, retain_graph)? {
                return Ok(());
            }
        }
        crate::engine::backward(&self.tensor()?, None, retain_graph, None)
    }
}
