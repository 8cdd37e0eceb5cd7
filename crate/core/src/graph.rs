//! `hg.graph(roots)`: a plain-data snapshot of every tensor and backward node
//! reachable from the roots, with copied values, for the playground.

// Ids are small sequential integers: the engine's multiplicative hash, not
// SipHash (which was a quarter of graph() in wasm).
use crate::engine::HashSet;

use crate::hooks::TensorHookEntry;
use crate::ids::{NodeId, TensorId};
use crate::node::NodeRef;
use crate::protocol::HookKind;
pub use crate::protocol::{GraphInfo, HookInfo, NextEdge, NodeInfo, TensorInfo};
use crate::tensor::Tensor;

fn tensor_info(t: &Tensor) -> TensorInfo {
    let mut hooks: Vec<HookInfo> = t
        .hook_entries()
        .into_iter()
        .map(|(handle, e)| match &*e {
            TensorHookEntry::User(h) => HookInfo {
                source: h.source(),
                ..HookInfo::new(handle, HookKind::Tensor, h.name())
            },
            TensorHookEntry::RetainGrad(_) => {
                HookInfo::new(handle, HookKind::RetainGrad, "retain_grad".into())
            }
        })
        .collect();
    hooks.extend(
        t.post_accumulate_hook_entries()
            .into_iter()
            .map(|(handle, h)| HookInfo {
                source: h.source(),
                ..HookInfo::new(handle, HookKind::PostAccumulate, h.name())
            }),
    );
    TensorInfo {
        id: t.id(),
        name: t.name(),
        shape: t.shape(),
        stride: t.strides(),
        data: t.to_array().unwrap_or_else(|_| {
            crate::error::fault_default("tensor data is busy while describing the graph")
        }),
        requires_grad: t.requires_grad(),
        is_leaf: t.is_leaf(),
        retains_grad: t.retains_grad(),
        grad_fn: t.grad_fn().map(|f| f.id),
        grad: t
            .grad_raw()
            .and_then(|g| crate::error::snapshot(g.to_array())),
        hooks,
    }
}

fn node_info(n: &NodeRef) -> NodeInfo {
    NodeInfo {
        id: n.id,
        name: n.name,
        next: n
            .next_functions()
            .into_iter()
            .map(|(node, nr)| NextEdge {
                node: node.map(|x| x.id),
                input_nr: nr,
            })
            .collect(),
        variable: n.variable().map(|v| v.id()),
        pre_hooks: n
            .pre_hook_entries()
            .into_iter()
            .map(|(handle, h)| HookInfo {
                source: h.source(),
                ..HookInfo::new(handle, h.kind(), h.name())
            })
            .collect(),
        post_hooks: n
            .post_hook_entries()
            .into_iter()
            // A module's backward-hook wrapper lists the user's hooks it
            // runs, under the handles the user holds (= the trace's).
            .flat_map(|(handle, h)| h.rows(handle))
            .collect(),
    }
}

/// Walks from the roots through grad_fn / next edges, collecting nodes, the
/// leaves of AccumulateGrad nodes and the live outputs of every node.
pub fn graph(roots: &[Tensor]) -> GraphInfo {
    let mut info = GraphInfo::default();
    let mut seen_t: HashSet<TensorId> = HashSet::default();
    let mut seen_n: HashSet<NodeId> = HashSet::default();
    let mut stack: Vec<NodeRef> = Vec::new();
    let mut add_tensor = |t: &Tensor,
                          info: &mut GraphInfo,
                          stack: &mut Vec<NodeRef>,
                          seen_n: &mut HashSet<NodeId>| {
        if seen_t.insert(t.id()) {
            info.tensors.push(tensor_info(t));
        }
        let node = t.grad_fn().or_else(|| t.existing_grad_accumulator());
        if let Some(n) = node {
            if seen_n.insert(n.id) {
                stack.push(n);
            }
        }
    };
    for t in roots {
        add_tensor(t, &mut info, &mut stack, &mut seen_n);
    }
    while let Some(n) = stack.pop() {
        for t in n.output_tensors().iter().chain(n.variable().iter()) {
            add_tensor(t, &mut info, &mut stack, &mut seen_n);
        }
        for e in n.next.iter().flatten() {
            if seen_n.insert(e.node.id) {
                stack.push(e.node.clone());
            }
        }
        info.nodes.push(node_info(&n));
    }
    info.tensors.sort_by_key(|t| t.id);
    info.nodes.sort_by_key(|n| n.id);
    info
}
