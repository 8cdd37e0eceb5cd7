//! `hg.graph(roots)`: a plain-data snapshot of every tensor and backward node
//! reachable from the roots, with copied values, for the playground.
//!
//! The walk hands each tensor and node to a [`GraphSink`] as a row borrowed
//! from the live object, in the record's order (by id): [`graph`] copies the
//! rows into a [`GraphInfo`]; the wasm binding writes them straight onto its
//! record tape, so nothing is copied twice (a 1,000-node graph: ~7,000
//! allocations fewer).

// Ids are small sequential integers: the engine's multiplicative hash, not
// SipHash (which was a quarter of graph() in wasm).
use crate::engine::HashSet;

use crate::hooks::TensorHookEntry;
use crate::ids::{NodeId, TensorId};
use crate::node::{Edge, NodeKind, NodeRef};
use crate::protocol::HookKind;
pub use crate::protocol::{GraphInfo, HookInfo, NextEdge, NodeInfo, TensorInfo};
use crate::tensor::{Array, Meta, Tensor, TensorImpl};

/// One tensor of the graph, borrowed (the fields of [`TensorInfo`]).
pub struct TensorRow<'a> {
    pub id: TensorId,
    pub name: Option<&'a str>,
    pub shape: &'a [usize],
    pub stride: &'a [usize],
    pub data: &'a Array,
    pub requires_grad: bool,
    pub is_leaf: bool,
    pub retains_grad: bool,
    pub grad_fn: Option<NodeId>,
    pub grad: Option<&'a Array>,
    pub hooks: &'a [HookInfo],
}

/// One backward node, borrowed (the fields of [`NodeInfo`]).
pub struct NodeRow<'a> {
    pub id: NodeId,
    pub name: &'static str,
    /// `next_functions`: an absent edge is `(None, 0)`.
    pub next: &'a [Option<Edge>],
    pub variable: Option<TensorId>,
    pub pre_hooks: &'a [HookInfo],
    pub post_hooks: &'a [HookInfo],
}

/// Receives the graph: `tensors(n)`, n tensor rows, `nodes(m)`, m node rows.
/// A sink must not call back into the engine (rows borrow live tensors).
pub trait GraphSink {
    fn tensors(&mut self, count: usize);
    fn tensor(&mut self, row: &TensorRow<'_>);
    fn nodes(&mut self, count: usize);
    fn node(&mut self, row: &NodeRow<'_>);
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
    sink.tensor(&TensorRow {
        id: t.id(),
        name: m.and_then(|m| m.name.as_deref()),
        shape: values.shape(),
        stride,
        data: values,
        requires_grad,
        is_leaf,
        retains_grad,
        grad_fn,
        grad: grad_data.as_deref(),
        hooks: &hooks,
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
    sink.node(&NodeRow {
        id: n.id,
        name: n.name,
        next: &n.next,
        variable: match &n.kind {
            NodeKind::AccumulateGrad { variable } => Some(variable.id()),
            NodeKind::Op { .. } => None,
        },
        pre_hooks: &pre_hooks,
        post_hooks: &post_hooks,
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
    fn tensor(&mut self, r: &TensorRow<'_>) {
        self.tensors.push(TensorInfo {
            id: r.id,
            name: r.name.map(str::to_owned),
            shape: r.shape.to_vec(),
            stride: r.stride.to_vec(),
            data: r.data.clone(),
            requires_grad: r.requires_grad,
            is_leaf: r.is_leaf,
            retains_grad: r.retains_grad,
            grad_fn: r.grad_fn,
            grad: r.grad.cloned(),
            hooks: r.hooks.to_vec(),
        });
    }
    fn nodes(&mut self, count: usize) {
        self.nodes.reserve(count);
    }
    fn node(&mut self, r: &NodeRow<'_>) {
        self.nodes.push(NodeInfo {
            id: r.id,
            name: r.name,
            next: r
                .next
                .iter()
                .map(|e| match e {
                    Some(e) => NextEdge {
                        node: Some(e.node.id),
                        input_nr: e.input_nr,
                    },
                    None => NextEdge {
                        node: None,
                        input_nr: 0,
                    },
                })
                .collect(),
            variable: r.variable,
            pre_hooks: r.pre_hooks.to_vec(),
            post_hooks: r.post_hooks.to_vec(),
        });
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
