//! `graph()`'s records: every tensor and backward node reachable from the
//! roots. The rows borrow from the live graph while it is walked (`'a`), so
//! the tape is written without copying them; [`GraphInfo`] owns copies.

use std::borrow::Cow;

use super::kinds::{HookKind, SourceLoc};
use crate::ids::{HandleId, ModuleId, NodeId, TensorId};
use crate::tensor::Array;

record! {
    /// A hook row of a tensor or node. `handle` is the id of the handle that
    /// `register*()` returned, so it equals the `handle` of the trace's events.
    pub struct HookInfo {
        pub handle: HandleId,
        pub kind: HookKind,
        pub name: String,
        /// Module hooks only: the module's name and id.
        #[json(omit_none)]
        pub module: Option<String>,
        #[json(omit_none)]
        pub module_id as "moduleId": Option<ModuleId>,
        /// Where the user registered it, when the binding knows.
        pub source: Option<SourceLoc>,
    }
}

impl HookInfo {
    pub fn new(handle: HandleId, kind: HookKind, name: String) -> Self {
        HookInfo {
            handle,
            kind,
            name,
            module: None,
            module_id: None,
            source: None,
        }
    }
}

record! {
    /// A tensor of the graph.
    pub struct TensorInfo<'a> {
        pub id: TensorId,
        pub name: Option<Cow<'a, str>>,
        pub shape: Cow<'a, [usize]>,
        /// PyTorch's strides (`t.stride()`).
        pub stride: Cow<'a, [usize]>,
        pub data: Cow<'a, Array>,
        pub requires_grad as "requiresGrad": bool,
        pub is_leaf as "isLeaf": bool,
        pub retains_grad as "retainsGrad": bool,
        pub grad_fn as "gradFn": Option<NodeId>,
        pub grad: Option<Cow<'a, Array>>,
        pub hooks: Cow<'a, [HookInfo]>,
    }
}

record! {
    /// One of a node's `next_functions`.
    pub struct NextEdge {
        pub node: Option<NodeId>,
        pub input_nr as "inputNr": usize,
    }
}

impl Copy for NextEdge {}

record! {
    /// A backward node of the graph.
    pub struct NodeInfo<'a> {
        pub id: NodeId,
        pub name: &'static str,
        pub next: Cow<'a, [NextEdge]>,
        /// An AccumulateGrad node's leaf.
        pub variable: Option<TensorId>,
        pub pre_hooks as "preHooks": Cow<'a, [HookInfo]>,
        pub post_hooks as "postHooks": Cow<'a, [HookInfo]>,
    }
}

record! {
    /// What `hg.graph(roots)` returns, by id.
    pub struct GraphInfo {
        pub tensors: Vec<TensorInfo<'static>>,
        pub nodes: Vec<NodeInfo<'static>>,
    }
}

// `record!` writes the struct and takes no derive list.
#[allow(clippy::derivable_impls)]
impl Default for GraphInfo {
    fn default() -> Self {
        GraphInfo {
            tensors: Vec::new(),
            nodes: Vec::new(),
        }
    }
}

impl TensorInfo<'_> {
    /// A copy that borrows nothing.
    pub fn to_owned_row(&self) -> TensorInfo<'static> {
        TensorInfo {
            id: self.id,
            name: self.name.as_deref().map(|n| Cow::Owned(n.to_owned())),
            shape: Cow::Owned(self.shape.to_vec()),
            stride: Cow::Owned(self.stride.to_vec()),
            data: Cow::Owned(self.data.as_ref().clone()),
            requires_grad: self.requires_grad,
            is_leaf: self.is_leaf,
            retains_grad: self.retains_grad,
            grad_fn: self.grad_fn,
            grad: self.grad.as_deref().map(|g| Cow::Owned(g.clone())),
            hooks: Cow::Owned(self.hooks.to_vec()),
        }
    }
}

impl NodeInfo<'_> {
    /// A copy that borrows nothing.
    pub fn to_owned_row(&self) -> NodeInfo<'static> {
        NodeInfo {
            id: self.id,
            name: self.name,
            next: Cow::Owned(self.next.to_vec()),
            variable: self.variable,
            pre_hooks: Cow::Owned(self.pre_hooks.to_vec()),
            post_hooks: Cow::Owned(self.post_hooks.to_vec()),
        }
    }
}

/// What `hg.traceRun(fn)` returns (built by the binding; declared here so
/// the TypeScript types name it).
pub struct TraceRun;

impl super::schema::Declared for TraceRun {
    fn decl() -> super::schema::Decl {
        use super::schema::{Decl, Field, Mode, Shape, Ty};
        let field = |json, ty| Field {
            json,
            doc: "",
            ty,
            mode: Mode::Plain,
        };
        Decl {
            rust: "TraceRun",
            ts: "TraceRun",
            doc: " What `hg.traceRun(fn)` returns.\n",
            shape: Shape::Record(vec![
                field("trace", Ty::List(Box::new(Ty::Ref("Event")))),
                field("graph", Ty::Ref("GraphInfo")),
            ]),
        }
    }
}
