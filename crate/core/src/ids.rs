//! Stable integer ids from counters (like PyTorch's `RemovableHandle.next_id`).
//! They are what `t.id`, `node.id`, `handle.id` and every id in `graph()` and
//! `trace()` show.

/// The counters are per thread. The wasm build has one thread, and at
/// opt-level "z" it reached a `thread_local!` through an indirect call per
/// access (three per op): there they are static atomics instead, which
/// compile to plain loads and stores without threads.
#[cfg(not(target_arch = "wasm32"))]
mod counter {
    pub type Counter32 = std::thread::LocalKey<std::cell::Cell<u32>>;
    pub type Counter64 = std::thread::LocalKey<std::cell::Cell<u64>>;
    macro_rules! counter {
        ($name:ident, $int:ty) => {
            thread_local!(static $name: std::cell::Cell<$int> = const { std::cell::Cell::new(0) });
        };
    }
    pub(crate) use counter;
    /// The counter after adding one (wrapping).
    #[inline]
    pub fn bump32(c: &'static Counter32) -> u32 {
        c.with(|c| {
            let id = c.get().wrapping_add(1);
            c.set(id);
            id
        })
    }
    /// The counter before adding one.
    #[inline]
    pub fn take64(c: &'static Counter64) -> u64 {
        c.with(|c| {
            let n = c.get();
            c.set(n + 1);
            n
        })
    }
}

#[cfg(target_arch = "wasm32")]
mod counter {
    use std::sync::atomic::Ordering::Relaxed;
    pub type Counter32 = std::sync::atomic::AtomicU32;
    pub type Counter64 = std::sync::atomic::AtomicU64;
    macro_rules! counter {
        ($name:ident, u32) => {
            static $name: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        };
        ($name:ident, u64) => {
            static $name: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        };
    }
    pub(crate) use counter;
    /// The counter after adding one (wrapping).
    #[inline]
    pub fn bump32(c: &'static Counter32) -> u32 {
        c.fetch_add(1, Relaxed).wrapping_add(1)
    }
    /// The counter before adding one.
    #[inline]
    pub fn take64(c: &'static Counter64) -> u64 {
        c.fetch_add(1, Relaxed)
    }
}

macro_rules! id_type {
    ($name:ident, $counter:ident) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);
        counter::counter!($counter, u32);
        impl $name {
            #[inline]
            pub fn next() -> Self {
                $name(counter::bump32(&$counter))
            }
        }
    };
}

id_type!(TensorId, NEXT_TENSOR_ID);
id_type!(NodeId, NEXT_NODE_ID);
id_type!(HandleId, NEXT_HANDLE_ID);
id_type!(ModuleId, NEXT_MODULE_ID);

counter::counter!(NEXT_SEQUENCE_NR, u64);

/// PyTorch's per-thread `sequence_nr`: later-created nodes run first when
/// several are ready. `AccumulateGrad` uses `u64::MAX` (see `node.rs`).
#[inline]
pub fn next_sequence_nr() -> u64 {
    counter::take64(&NEXT_SEQUENCE_NR)
}
