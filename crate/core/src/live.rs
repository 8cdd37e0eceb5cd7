//! Live object counts for `hg.memory()`: tensors and graph nodes that exist
//! right now (a leak shows as a count that keeps growing). Plain counters:
//! the engine is single-threaded, and on wasm32 relaxed atomics compile to
//! ordinary loads and stores.

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

static TENSORS: AtomicUsize = AtomicUsize::new(0);
static NODES: AtomicUsize = AtomicUsize::new(0);

#[inline]
pub(crate) fn tensor_created() {
    TENSORS.fetch_add(1, Relaxed);
}
#[inline]
pub(crate) fn tensor_dropped() {
    TENSORS.fetch_sub(1, Relaxed);
}
/// `n` tensors at once (a scope's end drops a whole deferred graph).
#[inline]
pub(crate) fn tensors_dropped(n: usize) {
    TENSORS.fetch_sub(n, Relaxed);
}
#[inline]
pub(crate) fn node_created() {
    NODES.fetch_add(1, Relaxed);
}
#[inline]
pub(crate) fn node_dropped() {
    NODES.fetch_sub(1, Relaxed);
}

#[inline]
pub(crate) fn nodes_dropped(n: usize) {
    NODES.fetch_sub(n, Relaxed);
}

/// Tensors alive now (every `TensorImpl`: leaves, results, gradients, views).
pub fn tensors() -> usize {
    TENSORS.load(Relaxed)
}

/// Backward graph nodes alive now (`AccumulateGrad` included).
pub fn nodes() -> usize {
    NODES.load(Relaxed)
}
