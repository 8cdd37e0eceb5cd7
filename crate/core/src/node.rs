//! Backward graph nodes, like PyTorch's `Node`: a name (`MulBackward0`), the
//! edges to the next nodes (`next_functions`), the saved tensors, and the
//! node's hook lists. Ops build nodes through `ops::record`; the engine runs
//! them through `engine::call_node`. One saved tensor (its version check,
//! pack/unpack hooks) is saved.rs.

use crate::error::{fault, fault_default};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::error::{Error, Result};
use crate::hooks::{FirstInline, LazyHooks, NodePostHook, NodePreHook, RemovableHandle};
use crate::ids::{next_sequence_nr, NodeId};
use crate::small::Small;
use crate::tensor::{Storage, Tensor, TensorHookList};

// Saved tensors live in saved.rs; their old paths (`node::SavedTensor`,
// `node::packs_alive`) stay, since the engine and the binding import them.
pub(crate) use crate::saved::packs_alive;
pub use crate::saved::SavedTensor;

// Dropping a node: iterative, so a long chain does not overflow the stack.
mod unlink;

pub type NodeRef = Rc<Node>;

/// `(node, input_nr)`: the gradient goes to input `input_nr` of `node`.
#[derive(Clone)]
pub struct Edge {
    pub node: NodeRef,
    pub input_nr: usize,
}

/// What a node's backward receives.
pub struct BackwardCtx<'a> {
    /// Gradients w.r.t. the forward outputs (None = undefined / zero).
    pub grads: &'a [Option<Tensor>],
    /// The shape of the first forward output (of a missing gradient), so
    /// formulas need not capture it (a capture-free closure is not boxed).
    pub shape: &'a [usize],
    /// The op's number operand (`x * 3`, `x.pow(3)`), for the same reason.
    pub param: f32,
    /// The saved tensors, in the order the op saved them, unpacked with
    /// their history (differentiable when grad mode is on: `create_graph`).
    pub saved: &'a [Tensor],
    /// Whether the gradient for next edge `i` is needed at all.
    pub needs: &'a [bool],
}

pub type BackwardFn = Box<dyn Fn(&BackwardCtx) -> Result<Vec<Option<Tensor>>>>;

/// An elementwise op's backward on plain numbers, for a node whose tensors
/// are all 0-d: `(grad, saved values, param) -> (grad_self, grad_other)`.
/// The same arithmetic, in the same order, as the op's tensor formula, so
/// the engine may use it instead when nothing can observe the difference
/// (see `scalar_backward`).
pub type ScalarBackward = fn(f32, &[f32], f32) -> [f32; 2];

/// A node's edges, input shapes and saved tensors: one or two almost always.
pub type Edges = Small<Option<Edge>>;
pub type Shapes = Small<Vec<usize>>;
pub type SavedList = Small<SavedTensor>;

// The Op variant is large (its saved tensors are inline); boxing it would
// cost the allocation per node that keeping them inline saves.
#[allow(clippy::large_enum_variant)]
pub enum NodeKind {
    Op {
        backward: BackwardFn,
        /// The op's number operand, handed to `backward` in the context.
        param: f32,
        /// Set on elementwise ops whose output is 0-d.
        scalar: Option<ScalarBackward>,
        saved: RefCell<SavedList>,
        /// Whether backward needs saved tensors (then it fails once freed).
        has_saved: Cell<bool>,
        released: Cell<bool>,
    },
    /// Holds its leaf strongly; the leaf holds this node weakly.
    AccumulateGrad { variable: Tensor },
}

pub struct Node {
    pub id: NodeId,
    pub sequence_nr: u64,
    /// PyTorch's node name; always a static string, so nodes allocate less.
    pub name: &'static str,
    pub next: Edges,
    /// Shape of the gradient expected at each input of this node (the shapes
    /// of the forward op's outputs), used to validate and reduce grads.
    pub input_shapes: Shapes,
    pub kind: NodeKind,
    /// The forward outputs, weakly: lets `graph()` find live intermediate
    /// tensors without a tensor → node → tensor cycle.
    /// The first inline (almost every node has one output): no allocation.
    pub(crate) first_output: RefCell<Option<std::rc::Weak<crate::tensor::TensorImpl>>>,
    pub(crate) outputs: RefCell<Vec<std::rc::Weak<crate::tensor::TensorImpl>>>,
    /// `(output_nr, owning tensor, its hook list)`.
    /// The first inline: no allocation when hooking a node's output, and
    /// one pointer less to chase when its backward runs them.
    pub(crate) tensor_pre_hooks:
        RefCell<FirstInline<(usize, crate::ids::TensorId, Rc<TensorHookList>)>>,
    pub(crate) pre_hooks: LazyHooks<Rc<dyn NodePreHook>>,
    pub(crate) post_hooks: LazyHooks<Rc<dyn NodePostHook>>,
    /// PyTorch's custom `Function` nodes (PyNode) return every gradient they
    /// computed, also for inputs that need none; built-in nodes drop those.
    pub(crate) custom_function: Cell<bool>,
    /// `(backward pass, index)`: this node's entry in that pass's
    /// `graph_task::NodeTable`.
    pub(crate) engine_slot: Cell<(u64, u32)>,
}

// On wasm32 a node in its Rc (+8 bytes) must stay under dlmalloc's 256-byte
// small-bin limit (chunk = size + 4, rounded to 8): a larger one goes to the
// tree bins, slower to allocate and free, once per op (W1).
#[cfg(target_arch = "wasm32")]
const _: () = assert!(std::mem::size_of::<Node>() <= 232);

impl Node {
    pub fn new_op(
        name: &'static str,
        next: Vec<Option<Edge>>,
        input_shapes: Vec<Vec<usize>>,
        saved: Vec<SavedTensor>,
        backward: BackwardFn,
    ) -> NodeRef {
        Node::new_op_with(
            name,
            next.into(),
            input_shapes.into(),
            saved.into(),
            backward,
            None,
            0.0,
        )
    }

    /// `new_op` with a number operand and, for 0-d elementwise ops, the
    /// formula on plain numbers.
    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    #[inline]
    pub(crate) fn new_op_with(
        name: &'static str,
        next: Edges,
        input_shapes: Shapes,
        saved: SavedList,
        backward: BackwardFn,
        scalar: Option<ScalarBackward>,
        param: f32,
    ) -> NodeRef {
        let has_saved = !saved.is_empty();
        crate::live::node_created();
        let node = Rc::new(Node {
            id: NodeId::next(),
            sequence_nr: next_sequence_nr(),
            name,
            next,
            input_shapes,
            kind: NodeKind::Op {
                backward,
                param,
                scalar,
                saved: RefCell::new(saved),
                has_saved: Cell::new(has_saved),
                released: Cell::new(false),
            },
            first_output: RefCell::new(None),
            outputs: RefCell::new(Vec::new()),
            tensor_pre_hooks: RefCell::new(FirstInline::default()),
            pre_hooks: LazyHooks::default(),
            post_hooks: LazyHooks::default(),
            custom_function: Cell::new(false),
            engine_slot: Cell::new((0, 0)),
        });
        if let NodeKind::Op { saved, .. } = &node.kind {
            // A node made just above: nothing else can hold its saved list.
            if let Ok(saved) = saved.try_borrow() {
                for st in saved.iter() {
                    st.record_pack(node.id);
                }
            }
        }
        node
    }

    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    pub fn new_accumulate_grad(variable: Tensor) -> NodeRef {
        let shape = variable.shape();
        crate::live::node_created();
        Rc::new(Node {
            id: NodeId::next(),
            // PyTorch: AccumulateGrad gets UINT64_MAX so it runs as soon as ready.
            sequence_nr: u64::MAX,
            name: "AccumulateGrad",
            next: Small::Zero,
            input_shapes: Small::One(shape),
            kind: NodeKind::AccumulateGrad { variable },
            first_output: RefCell::new(None),
            outputs: RefCell::new(Vec::new()),
            tensor_pre_hooks: RefCell::new(FirstInline::default()),
            pre_hooks: LazyHooks::default(),
            post_hooks: LazyHooks::default(),
            custom_function: Cell::new(false),
            engine_slot: Cell::new((0, 0)),
        })
    }

    #[inline]
    pub fn num_inputs(&self) -> usize {
        self.input_shapes.len()
    }

    /// Whether any hook (tensor, retain-grad, node pre/post, and for
    /// AccumulateGrad its leaf's hooks) is registered: without any in a
    /// whole graph no user code runs during its backward.
    pub(crate) fn has_hooks(&self) -> bool {
        fn any<E: Clone>(l: &LazyHooks<E>) -> bool {
            l.get().is_some_and(|l| !l.is_empty())
        }
        if any(&self.pre_hooks) || any(&self.post_hooks) {
            return true;
        }
        match &self.kind {
            NodeKind::AccumulateGrad { variable } => variable
                .meta()
                .map(|m| any(&m.hooks) || any(&m.post_accumulate_hooks))
                .unwrap_or(true),
            NodeKind::Op { .. } => self
                .tensor_pre_hooks
                .try_borrow()
                .map(|h| h.any(|(_, _, l)| !l.is_empty()))
                .unwrap_or(true),
        }
    }

    pub fn variable(&self) -> Option<Tensor> {
        match &self.kind {
            NodeKind::AccumulateGrad { variable } => Some(variable.clone()),
            NodeKind::Op { .. } => None,
        }
    }

    pub fn is_accumulate_grad(&self) -> bool {
        matches!(self.kind, NodeKind::AccumulateGrad { .. })
    }

    pub(crate) fn add_tensor_pre_hooks(
        &self,
        output_nr: usize,
        owner: crate::ids::TensorId,
        list: Rc<TensorHookList>,
    ) {
        match self.tensor_pre_hooks.try_borrow_mut() {
            Ok(mut hooks) => hooks.push((output_nr, owner, list)),
            Err(_) => fault("a node's tensor hooks are busy while registering one"),
        }
    }

    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    #[inline]
    pub(crate) fn add_output(&self, t: &Tensor) {
        match self.first_output.try_borrow_mut() {
            Ok(mut first) if first.is_none() => {
                *first = Some(Rc::downgrade(&t.0));
                return;
            }
            Ok(_) => {}
            Err(_) => {
                fault("a node's first output is busy while adding one");
                return;
            }
        }
        match self.outputs.try_borrow_mut() {
            Ok(mut outs) => outs.push(Rc::downgrade(&t.0)),
            Err(_) => fault("a node's outputs are busy while adding one"),
        }
    }

    /// The live forward outputs of this node.
    pub fn output_tensors(&self) -> Vec<Tensor> {
        let first = self
            .first_output
            .try_borrow()
            .map(|f| f.as_ref().and_then(|w| w.upgrade()))
            .unwrap_or_else(|_| fault_default("a node's first output is busy"));
        let more = self
            .outputs
            .try_borrow()
            .map(|o| o.iter().filter_map(|w| w.upgrade()).collect::<Vec<_>>())
            .unwrap_or_else(|_| fault_default("a node's outputs are busy"));
        first.into_iter().chain(more).map(Tensor).collect()
    }

    /// Tensor pre-hook lists by input index: how many there are now (they
    /// are only ever appended). AccumulateGrad reads its leaf's list lazily
    /// (PyTorch `accumulate_grad.h`), so hooks added later still run.
    pub(crate) fn tensor_hook_count(&self) -> usize {
        match &self.kind {
            NodeKind::AccumulateGrad { variable } => variable
                .meta()
                .map(|m| usize::from(m.hooks.get().is_some()))
                .unwrap_or_else(|_| fault_default("tensor metadata is busy reading its hooks")),
            NodeKind::Op { .. } => self
                .tensor_pre_hooks
                .try_borrow()
                .map(|h| h.len())
                .unwrap_or_else(|_| fault_default("a node's tensor hooks are busy")),
        }
    }

    /// List `i` of those, with the input it hooks and its tensor: read one
    /// at a time, so a backward step copies no list of lists.
    pub(crate) fn tensor_hook_list(
        &self,
        i: usize,
    ) -> Option<(usize, crate::ids::TensorId, Rc<TensorHookList>)> {
        match &self.kind {
            NodeKind::AccumulateGrad { variable } => variable
                .meta()
                .map(|m| {
                    m.hooks
                        .get()
                        .filter(|_| i == 0)
                        .map(|l| (0, variable.id(), l.clone()))
                })
                .unwrap_or_else(|_| fault_default("tensor metadata is busy reading its hooks")),
            NodeKind::Op { .. } => self
                .tensor_pre_hooks
                .try_borrow()
                .map(|h| h.get(i).cloned())
                .unwrap_or_else(|_| fault_default("a node's tensor hooks are busy")),
        }
    }

    pub fn register_prehook(&self, hook: Rc<dyn NodePreHook>) -> RemovableHandle {
        let list = self.pre_hooks.get_or_create();
        let id = list.add(hook, false);
        RemovableHandle::for_list(id, &list)
    }

    pub fn register_hook(&self, hook: Rc<dyn NodePostHook>) -> RemovableHandle {
        let list = self.post_hooks.get_or_create();
        let id = list.add(hook, false);
        RemovableHandle::for_list(id, &list)
    }

    pub fn pre_hook_entries(&self) -> Vec<(crate::ids::HandleId, Rc<dyn NodePreHook>)> {
        self.pre_hooks.snapshot()
    }

    pub fn post_hook_entries(&self) -> Vec<(crate::ids::HandleId, Rc<dyn NodePostHook>)> {
        self.post_hooks.snapshot()
    }

    /// `next_functions`: `(node or None, input_nr)` per forward input.
    pub fn next_functions(&self) -> Vec<(Option<NodeRef>, usize)> {
        self.next
            .iter()
            .map(|e| match e {
                Some(edge) => (Some(edge.node.clone()), edge.input_nr),
                None => (None, 0),
            })
            .collect()
    }

    /// Saves one more tensor on an op node after it was made: what an
    /// in-place op saves of its own result exists only after its write
    /// (PyTorch sets `result_` after `rebase_history`).
    pub(crate) fn add_saved(&self, st: SavedTensor) -> crate::error::Result<()> {
        let NodeKind::Op {
            saved, has_saved, ..
        } = &self.kind
        else {
            return Err(crate::error::Error::internal(
                "a saved tensor for a node that is no op",
            ));
        };
        st.record_pack(self.id);
        saved
            .try_borrow_mut()
            .map_err(|_| crate::error::Error::internal("saved tensors are busy"))?
            .push(st);
        has_saved.set(true);
        Ok(())
    }

    /// Gives the saved tensors on `storage` the version they were saved at
    /// (deferred.rs replays an op after its inputs may have changed).
    pub(crate) fn set_saved_version(&self, storage: &Rc<Storage>, version: u32) {
        if let NodeKind::Op { saved, .. } = &self.kind {
            match saved.try_borrow_mut() {
                Ok(mut s) => {
                    for st in s.iter_mut() {
                        st.set_version_if_on(storage, version);
                    }
                }
                Err(_) => fault("saved tensors are busy while replaying an op"),
            }
        }
    }

    /// Frees saved tensors after a backward without `retain_graph`.
    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    #[inline]
    pub(crate) fn release_variables(&self) {
        if let NodeKind::Op {
            saved, released, ..
        } = &self.kind
        {
            match saved.try_borrow_mut() {
                Ok(mut s) => s.clear(),
                Err(_) => fault("saved tensors are busy while releasing them"),
            }
            released.set(true);
        }
    }

    /// Runs the op's backward formula (not the hooks: see `engine::call_node`).
    pub(crate) fn apply_op(
        self: &Rc<Self>,
        grads: &[Option<Tensor>],
        needs: &[bool],
    ) -> Result<Vec<Option<Tensor>>> {
        match &self.kind {
            NodeKind::Op {
                backward,
                param,
                saved,
                has_saved,
                released,
                ..
            } => {
                if has_saved.get() && released.get() {
                    return Err(Error::runtime(FREED_GRAPH_ERROR));
                }
                // Unpack without holding the borrow while an unpack hook runs.
                let count = saved
                    .try_borrow()
                    .map(|s| s.len())
                    .map_err(|_| Error::internal("saved tensors are busy"))?;
                let mut tensors = Vec::with_capacity(count);
                for i in 0..count {
                    let entry = {
                        let s = saved
                            .try_borrow()
                            .map_err(|_| Error::internal("saved tensors are busy"))?;
                        s.get(i).cloned()
                    };
                    let Some(entry) = entry else { break };
                    tensors.push(entry.unpack(self)?);
                }
                backward(&BackwardCtx {
                    grads,
                    shape: self.input_shapes.first().map_or(&[], |s| s.as_slice()),
                    param: *param,
                    saved: &tensors,
                    needs,
                })
            }
            NodeKind::AccumulateGrad { .. } => Ok(Vec::new()),
        }
    }
}

pub const FREED_GRAPH_ERROR: &str = "Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.";

/// Adds a tensor to a node's saved list after the node exists (ops that save
/// their own output).
pub(crate) fn save_output(node: &Node, t: &Tensor) {
    if let NodeKind::Op {
        saved, has_saved, ..
    } = &node.kind
    {
        let st = SavedTensor::save_output(t);
        st.record_pack(node.id);
        match saved.try_borrow_mut() {
            Ok(mut s) => {
                s.push(st);
                has_saved.set(true);
            }
            Err(_) => fault("saved tensors are busy while saving an output"),
        }
    }
}
