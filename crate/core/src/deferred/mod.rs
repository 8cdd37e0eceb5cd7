//! Deferred scalar ops (issue 10, W1). A micrograd-style program builds one
//! graph node per 0-d op and never looks at most of them: building the
//! node, its tensor and storage and tearing them down again is most of what
//! such a step costs. Here a 0-d elementwise op whose result requires grad
//! (every one of the contract, `op.rs`: one outside the set would make the
//! whole graph eager, a cliff of 5-20x per node) is first a small `Entry`:
//! the op, its inputs, its value, and the ids, sequence number and versions
//! the op would have taken or seen. Nothing else changes, so the two ways
//! are indistinguishable:
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
//!   in flight (`graph_task::nothing_observes`, the engine's own test for
//!   its number path, and no hooks on the leaves reached) and the graph is
//!   intact; otherwise it answers `false` and the caller materializes and
//!   runs the engine, which is always exact.
//!
//! The files: `op` (the ops and their formulas), `table` (rows, holders,
//! tensor inputs), `record` (an op as a row), `lazy` (handles, release),
//! `replay` (materializing), `backward` (the walk that plans a pass),
//! `pass` (the plan as a source for the engine's one loop, on numbers),
//! `handle` (the binding's handle).
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
//! work in it (bench/PROFILE-history-2.md, tenth pass); the backward reads
//! the rows and a parallel array of its own marks.

mod backward;
mod handle;
mod lazy;
mod op;
mod pass;
mod record;
mod replay;
mod table;

pub use backward::backward;
pub use handle::{Handle, Other};
pub use lazy::{drop_rows, Lazy};
pub use op::Op;
pub use record::{record, Arg};
pub use replay::flush;

use crate::error::{Error, Result};
#[cfg(test)]
mod root_tests;

use table::Table;

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
