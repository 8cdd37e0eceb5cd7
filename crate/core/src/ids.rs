//! Stable integer ids from counters (like PyTorch's `RemovableHandle.next_id`).
//! They are what `t.id`, `node.id`, `handle.id` and every id in `graph()` and
//! `trace()` show.

// The counters are per thread: `thread_cell!` (per_thread.rs), plain
// statics in the wasm build, where a `thread_local!` access was an indirect
// call (three per op).

macro_rules! id_type {
    ($name:ident, $counter:ident) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);
        crate::thread_cell!(
            static $counter: u32 = 0;
        );
        impl $name {
            /// The counter's value now (the last id handed out).
            #[allow(dead_code)]
            #[inline]
            pub(crate) fn last() -> u32 {
                $counter.with(|c| c.get())
            }
            /// Sets the counter (deferred.rs replays an op with the ids it
            /// reserved).
            #[allow(dead_code)]
            #[inline]
            pub(crate) fn set_last(v: u32) {
                $counter.with(|c| c.set(v))
            }
            /// The counter after adding one (wrapping).
            #[inline]
            pub fn next() -> Self {
                $name($counter.with(|c| {
                    let id = c.get().wrapping_add(1);
                    c.set(id);
                    id
                }))
            }
        }
    };
}

id_type!(TensorId, NEXT_TENSOR_ID);
id_type!(NodeId, NEXT_NODE_ID);
id_type!(HandleId, NEXT_HANDLE_ID);
id_type!(ModuleId, NEXT_MODULE_ID);

crate::thread_cell!(
    static NEXT_SEQUENCE_NR: u64 = 0;
);

/// PyTorch's per-thread `sequence_nr`: later-created nodes run first when
/// several are ready. `AccumulateGrad` uses `u64::MAX` (see `node.rs`).
#[inline]
pub fn next_sequence_nr() -> u64 {
    NEXT_SEQUENCE_NR.with(|c| {
        let n = c.get();
        c.set(n + 1);
        n
    })
}

/// The next `sequence_nr` without taking it.
#[inline]
pub(crate) fn peek_sequence_nr() -> u64 {
    NEXT_SEQUENCE_NR.with(|c| c.get())
}

/// Sets the next `sequence_nr` (see `TensorId::set_last`).
#[inline]
pub(crate) fn set_next_sequence_nr(n: u64) {
    NEXT_SEQUENCE_NR.with(|c| c.set(n))
}
