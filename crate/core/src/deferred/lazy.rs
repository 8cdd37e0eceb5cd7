//! `Lazy`: a handle on a deferred result, and the release of handles.

use super::replay::flush;
use super::table::State;
use super::{with_table, TABLE};
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// A handle on a deferred op's result (one per JS handle, as a `Tensor` is):
/// its row in the thread's table.
pub struct Lazy(pub(super) u32);

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

    pub(super) fn done(&self) -> Result<Option<Tensor>> {
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
