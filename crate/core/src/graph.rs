//! `hg.graph(roots)`: a plain-data snapshot of every tensor and backward node
//! reachable from the roots, with copied values, for the playground.
//!
//! The walk hands each tensor and node to a [`GraphSink`] as its record
//! (`protocol::records`) borrowing from the live object, in the record's
//! order (by id): [`graph`] copies the rows into a [`GraphInfo`]; the wasm
//! binding writes them straight onto its record tape (`protocol::tape`), so
//! nothing is copied twice (a 1,000-node graph: ~7,000 allocations fewer).

use std::borrow::Cow;

// Ids are small sequential integers: the engine's multiplicative hash, not
// SipHash (which was a quarter of graph() in wasm).
use crate::engine::HashSet;

use crate::hooks::TensorHookEntry;
use crate::ids::NodeId;
use crate::node::{Edge, NodeKind, NodeRef};
use crate::protocol::HookKind;
pub use crate::protocol::{GraphInfo, HookInfo, NextEdge, NodeInfo, TensorInfo};
use crate::tensor::{Array, Meta, Tensor, TensorImpl};

/// Receives the graph: `tensors(n)`, n tensor rows, `nodes(m)`, m node rows.
/// A sink must not call back into the engine (rows borrow live tensors).
pub trait GraphSink {
    fn tensors(&mut self, count: usize);
    fn tensor(&mut self, row: &TensorInfo<'_>);
    fn nodes(&mut self, count: usize);
    fn node(&mut self, row: &NodeInfo<'_>);
}

fn tensor_hooks(m: &Meta) -> Vec<HookInfo> {
    // No list (the usual tensor): no snapshot, no allocation.
    let (hooks, post) = (m.hooks.get(), m.post_accumulate_hooks.get());
    if hooks.is_none() && post.is_none() {
        return Vec::new();
    }
    let mut rows: Vec<HookInfo> = m
        .hooks
        .snapshot()
        .into_iter()
        .map(|(handle, e)| match &e {
            TensorHookEntry::User(h) => HookInfo {
                source: h.source(),
                ..HookInfo::new(handle, HookKind::Tensor, h.name())
            },
            TensorHookEntry::RetainGrad(_) => {
                HookInfo::new(handle, HookKind::RetainGrad, "retain_grad".into())
            }
        })
        .collect();
    rows.extend(
        m.post_accumulate_hooks
            .snapshot()
            .into_iter()
            .map(|(handle, h)| HookInfo {
                source: h.source(),
                ..HookInfo::new(handle, HookKind::PostAccumulate, h.name())
            }),
    );
    rows
}

/// Row-major strides of `shape` (`layout::contiguous_strides`), in `buf`
/// up to 8 dims: no allocation for the usual tensor.
fn contiguous_strides<'a>(
    shape: &[usize],
    buf: &'a mut [usize; 8],
    heap: &'a mut Vec<usize>,
) -> &'a [usize] {
    if shape.len() > buf.len() {
        *heap = crate::layout::contiguous_strides(shape);
        return heap;
    }
    let out = &mut buf[..shape.len()];
    let mut acc = 1;
    for (s, &d) in out.iter_mut().zip(shape).rev() {
        *s = acc;
        acc *= d.max(1);
    }
    out
}

/// One row from one borrow of the tensor's metadata (each accessor would
/// borrow it again, and clone the grad_fn: ~9 borrows per row before).
fn tensor_row(t: &Tensor, sink: &mut dyn GraphSink) {
    // A failed borrow is a fault (the call reports it), never a missing row.
    let meta = t.meta().ok();
    let m = meta.as_deref();
    let hooks = m.map(tensor_hooks).unwrap_or_default();
    let grad_fn = m.and_then(|m| m.grad_fn.as_ref()).map(|f| f.id);
    let is_leaf = grad_fn.is_none();
    let requires_grad = !is_leaf || m.is_some_and(|m| m.requires_grad);
    let retains_grad = !is_leaf && m.is_some_and(|m| m.retains_grad);
    let grad_data = m
        .and_then(|m| m.grad.as_ref())
        .and_then(|g| crate::error::snapshot(g.data()));
    let data = t.data().ok();
    if m.is_none() || data.is_none() {
        crate::error::fault("tensor data is busy while describing the graph");
    }
    let empty: Array;
    let values: &Array = match data.as_deref() {
        Some(v) => v,
        None => {
            empty = Default::default();
            &empty
        }
    };
    let (mut buf, mut heap) = ([0usize; 8], Vec::new());
    let stride = match m.and_then(|m| m.strides.as_deref()) {
        Some(s) => s,
        None => contiguous_strides(values.shape(), &mut buf, &mut heap),
    };
    sink.tensor(&TensorInfo {
        id: t.id(),
        name: m.and_then(|m| m.name.as_deref()).map(Cow::Borrowed),
        shape: Cow::Borrowed(values.shape()),
        stride: Cow::Borrowed(stride),
        data: Cow::Borrowed(values),
        requires_grad,
        is_leaf,
        retains_grad,
        grad_fn,
        grad: grad_data.as_deref().map(Cow::Borrowed),
        hooks: Cow::Owned(hooks),
    });
}

fn node_hooks(n: &NodeRef) -> (Vec<HookInfo>, Vec<HookInfo>) {
    let pre_hooks: Vec<HookInfo> = match n.pre_hooks.get() {
        None => Vec::new(),
        Some(_) => n
            .pre_hook_entries()
            .into_iter()
            .map(|(handle, h)| HookInfo {
                source: h.source(),
                ..HookInfo::new(handle, h.kind(), h.name())
            })
            .collect(),
    };
    // A module's backward-hook wrapper lists the user's hooks it runs,
    // under the handles the user holds (= the trace's).
    let post_hooks: Vec<HookInfo> = match n.post_hooks.get() {
        None => Vec::new(),
        Some(_) => n
            .post_hook_entries()
            .into_iter()
            .flat_map(|(handle, h)| h.rows(handle))
            .collect(),
    };
    (pre_hooks, post_hooks)
}

fn node_row(n: &NodeRef, sink: &mut dyn GraphSink) {
    let (pre_hooks, post_hooks) = node_hooks(n);
    // Up to 4 edges on the stack (almost every node): no list per node.
    let edge = |e: &Option<Edge>| NextEdge {
        node: e.as_ref().map(|e| e.node.id),
        input_nr: e.as_ref().map_or(0, |e| e.input_nr),
    };
    let mut buf = [NextEdge {
        node: None,
        input_nr: 0,
    }; 4];
    let next = if n.next.len() <= buf.len() {
        for (b, e) in buf.iter_mut().zip(n.next.iter()) {
            *b = edge(e);
        }
        Cow::Borrowed(&buf[..n.next.len()])
    } else {
        Cow::Owned(n.next.iter().map(edge).collect())
    };
    sink.node(&NodeInfo {
        id: n.id,
        name: n.name,
        next,
        variable: match &n.kind {
            NodeKind::AccumulateGrad { variable } => Some(variable.id()),
            NodeKind::Op { .. } => None,
        },
        pre_hooks: Cow::Owned(pre_hooks),
        post_hooks: Cow::Owned(post_hooks),
    });
}

/// `f` on each live forward output of `n` and on an AccumulateGrad's leaf,
/// borrowed (`Node::output_tensors` builds a Vec per node).
fn each_tensor_of(n: &NodeRef, mut f: impl FnMut(&Tensor)) {
    let upgrade = |w: &std::rc::Weak<TensorImpl>| w.upgrade().map(Tensor);
    match n.first_output.try_borrow() {
        Ok(first) => {
            if let Some(t) = first.as_ref().and_then(upgrade) {
                f(&t);
            }
        }
        Err(_) => crate::error::fault("a node's first output is busy"),
    }
    match n.outputs.try_borrow() {
        Ok(more) => {
            for t in more.iter().filter_map(upgrade) {
                f(&t);
            }
        }
        Err(_) => crate::error::fault("a node's outputs are busy"),
    }
    if let NodeKind::AccumulateGrad { variable } = &n.kind {
        f(variable);
    }
}

/// Every tensor and node reachable from the roots (see `walk`), handed to
/// `sink` by id.
pub fn graph_into(roots: &[Tensor], sink: &mut dyn GraphSink) {
    // The last call's sets and lists, emptied: growing them again (hash
    // tables rehash at every doubling) was a fifth of the walk. Taken out
    // while in use, so a re-entrant call simply starts with new ones.
    let mut w = SCRATCH
        .with(|s| s.try_borrow_mut().ok().map(|mut s| std::mem::take(&mut *s)))
        .unwrap_or_default();
    walk(roots, &mut w);
    // Ids are unique: an unstable sort gives the same order. A tensor can be
    // met twice (a root that is also a node's output, or an output an
    // in-place op moved to a new node): kept once.
    w.tensors.sort_unstable_by_key(|t| t.id());
    w.tensors.dedup_by_key(|t| t.id());
    w.nodes.sort_unstable_by_key(|n| n.id);
    sink.tensors(w.tensors.len());
    for t in &w.tensors {
        tensor_row(t, sink);
    }
    sink.nodes(w.nodes.len());
    for n in &w.nodes {
        node_row(n, sink);
    }
    w.clear();
    // A huge graph's tables are not kept (a few hundred KB at most are).
    if w.seen_n.capacity() > KEEP_CAPACITY {
        return;
    }
    SCRATCH.with(|s| {
        if let Ok(mut s) = s.try_borrow_mut() {
            *s = w;
        }
    });
}

/// What [`graph_into`] collects; kept between calls (empty) for its capacity.
#[derive(Default)]
struct Walk {
    tensors: Vec<Tensor>,
    nodes: Vec<NodeRef>,
    seen_n: HashSet<NodeId>,
    stack: Vec<NodeRef>,
}

impl Walk {
    /// Drops every reference (the graph must not be kept alive), keeps capacity.
    fn clear(&mut self) {
        self.tensors.clear();
        self.nodes.clear();
        self.seen_n.clear();
        self.stack.clear();
    }

    /// Each node is walked once, so a tensor comes here once per node that
    /// lists it (plus once per root): duplicates are dropped after sorting,
    /// cheaper than a hash set of every tensor.
    fn add_tensor(&mut self, t: &Tensor) {
        self.tensors.push(t.clone());
        if let Some(n) = t.grad_fn().or_else(|| t.existing_grad_accumulator()) {
            if self.seen_n.insert(n.id) {
                self.stack.push(n);
            }
        }
    }
}

const KEEP_CAPACITY: usize = 1 << 15;

thread_local! {
    static SCRATCH: std::cell::RefCell<Walk> = std::cell::RefCell::new(Walk::default());
}

/// Walks from the roots through grad_fn / next edges, collecting nodes, the
/// leaves of AccumulateGrad nodes and the live outputs of every node.
fn walk(roots: &[Tensor], w: &mut Walk) {
    for t in roots {
        w.add_tensor(t);
    }
    while let Some(n) = w.stack.pop() {
        each_tensor_of(&n, |t| w.add_tensor(t));
        for e in n.next.iter().flatten() {
            if w.seen_n.insert(e.node.id) {
                w.stack.push(e.node.clone());
            }
        }
        w.nodes.push(n);
    }
}

impl GraphSink for GraphInfo {
    fn tensors(&mut self, count: usize) {
        self.tensors.reserve(count);
    }
    fn tensor(&mut self, r: &TensorInfo<'_>) {
        self.tensors.push(r.to_owned_row());
    }
    fn nodes(&mut self, count: usize) {
        self.nodes.reserve(count);
    }
    fn node(&mut self, r: &NodeInfo<'_>) {
        self.nodes.push(r.to_owned_row());
    }
}

/// The graph as plain data (see [`graph_into`]).
pub fn graph(roots: &[Tensor]) -> GraphInfo {
    let mut info = GraphInfo::default();
    graph_into(roots, &mut info);
    info
}

#[cfg(test)]
mod tests {
    use crate::testing::{leaf, ok};

    #[test]
    fn every_tensor_and_node_once_by_id() {
        // y = x·2 then y.mul_(3): y's first node still lists y as its output,
        // y is a root twice and x's AccumulateGrad lists x.
        let x = leaf(&[1.0, 2.0], &[2]);
        let y = ok(x.mul(2.0));
        let z = ok(y.add(1.0));
        ok(y.mul_(3.0));
        let g = super::graph(&[y.clone(), z.clone(), y.clone()]);
        let ids: Vec<u32> = g.tensors.iter().map(|t| t.id.0).collect();
        let mut want = vec![x.id().0, y.id().0, z.id().0];
        want.sort_unstable();
        assert_eq!(ids, want);
        let nodes: Vec<u32> = g.nodes.iter().map(|n| n.id.0).collect();
        let mut sorted = nodes.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(nodes, sorted, "by id, each once");
        // AccumulateGrad(x), MulBackward0 (y = x·2), AddBackward0 (z), MulBackward0 (mul_).
        assert_eq!(nodes.len(), 4);
        // The same again (the walk's sets are reused between calls).
        let again = super::graph(&[y, z]);
        assert_eq!(again.tensors.len(), 3);
        assert_eq!(again.nodes.len(), 4);
    }

    #[test]
    fn contiguous_strides_match_layout_s() {
        for shape in [&[][..], &[3], &[2, 3], &[2, 0, 4], &[1, 1, 5], &[2; 9]] {
            let (mut buf, mut heap) = ([0usize; 8], Vec::new());
            assert_eq!(
                super::contiguous_strides(shape, &mut buf, &mut heap),
                crate::layout::contiguous_strides(shape).as_slice()
            );
        }
    }
}
