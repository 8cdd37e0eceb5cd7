//! Backward graph nodes, like PyTorch's `Node`: a name (`MulBackward0`), the
//! edges to the next nodes (`next_functions`), the saved tensors, and the
//! node's hook lists. Ops build nodes through `ops::record`; the engine runs
//! them through `engine::call_node`.

use crate::error::{fault, fault_default};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::error::{Error, Result};
use crate::hooks::{FirstInline, LazyHooks, NodePostHook, NodePreHook, RemovableHandle};
use crate::ids::{next_sequence_nr, NodeId};
use crate::small::Small;
use crate::tensor::{Array, Data, Storage, Tensor, TensorHookList};

pub type NodeRef = Rc<Node>;

/// `(node, input_nr)`: the gradient goes to input `input_nr` of `node`.
#[derive(Clone)]
pub struct Edge {
    pub node: NodeRef,
    pub input_nr: usize,
}

/// A tensor saved for backward (PyTorch's `SavedVariable`): its storage,
/// the version it had then (so an in-place change afterwards is detected),
/// its layout, and how it enters the graph — unpacking rebuilds a tensor
/// with that history, so a backward run with `create_graph` differentiates
/// through saved tensors too. Non-leaf tensors are not held themselves
/// (that would make a cycle when a node saves its own output); leaves are.
#[derive(Clone)]
pub struct SavedTensor {
    storage: Rc<Storage>,
    saved_version: u32,
    output_nr: u32,
    /// How it enters the graph. For the saving node's own output
    /// (`Output`), the version error names that node (PyTorch keeps the
    /// saving grad_fn for outputs; for inputs it reports the tensor's
    /// current one).
    history: SavedHistory,
    /// Who produced the saved tensor, for the error message: the tensor's
    /// current grad_fn name and output_nr, looked up at unpack time.
    owner: std::rc::Weak<crate::tensor::TensorImpl>,
    /// What almost no saved tensor has, in one box: a node keeps two saved
    /// tensors inline, and at 32 bytes each (wasm32) the node stays under
    /// 256 bytes, in dlmalloc's small bins (W1: a node per scalar op).
    rare: Option<Box<RareSaved>>,
}

#[derive(Clone, Default)]
struct RareSaved {
    /// Set when not row-major.
    strides: Option<Box<[usize]>>,
    /// Set when `savedTensorsHooks` packed it: unpacking calls the hook
    /// (and, as in PyTorch, skips the version check).
    packed: Option<Rc<PackInfo>>,
}

/// A packed saved tensor: the hook's handle on it, and the saved tensor's
/// id, shape and (when tracing) value.
struct PackInfo {
    hook: Rc<dyn crate::hooks::PackedTensor>,
    tensor: crate::ids::TensorId,
    shape: Vec<usize>,
    before: Option<Array>,
}

crate::thread_cell!(
    static PACKS_ALIVE: usize = 0;
);

impl PackInfo {
    fn new(
        hook: Rc<dyn crate::hooks::PackedTensor>,
        tensor: crate::ids::TensorId,
        shape: Vec<usize>,
        before: Option<Array>,
    ) -> Rc<Self> {
        PACKS_ALIVE.with(|p| p.set(p.get() + 1));
        Rc::new(PackInfo {
            hook,
            tensor,
            shape,
            before,
        })
    }
}

impl Drop for PackInfo {
    fn drop(&mut self) {
        // `try_with`: may run while thread-locals are torn down (natively).
        let _ = PACKS_ALIVE.try_with(|p| p.set(p.get().saturating_sub(1)));
    }
}

/// Whether any saved tensor packed by a `savedTensorsHooks` pack hook is
/// alive: only then can a backward run an unpack hook (user code).
pub(crate) fn packs_alive() -> bool {
    PACKS_ALIVE.with(|p| p.get() > 0)
}

#[derive(Clone, Default)]
enum SavedHistory {
    /// No history: a constant, or a tensor that needs no grad.
    #[default]
    None,
    /// A leaf that requires grad: held, so gradients reach its AccumulateGrad.
    Leaf(Tensor),
    /// A non-leaf: the edge its gradient enters the graph through.
    Edge(Edge),
    /// The saving node's own output `output_nr` (the node is known at unpack).
    Output,
}

impl SavedTensor {
    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    pub fn save(t: &Tensor) -> SavedTensor {
        // One metadata borrow for history, output_nr and layout.
        let (history, output_nr, strides) = match t.meta() {
            Ok(m) => (
                match &m.grad_fn {
                    Some(node) => SavedHistory::Edge(Edge {
                        node: node.clone(),
                        input_nr: m.output_nr,
                    }),
                    None if m.requires_grad => SavedHistory::Leaf(t.clone()),
                    None => SavedHistory::None,
                },
                m.output_nr as u32,
                m.strides.as_deref().map(Box::from),
            ),
            Err(_) => fault_default("tensor metadata is busy saving it"),
        };
        let mut st = SavedTensor {
            storage: t.storage().clone(),
            saved_version: t.version(),
            output_nr,
            history,
            owner: Rc::downgrade(&t.0),
            rare: strides.map(|strides| {
                Box::new(RareSaved {
                    strides: Some(strides),
                    packed: None,
                })
            }),
        };
        st.pack(t);
        st
    }

    /// Runs the active pack hook, if any (`hg.savedTensorsHooks`). A failing
    /// hook is reported by `ops::record` after the node is built.
    fn pack(&mut self, t: &Tensor) {
        let Some(hooks) = crate::context::saved_tensors_hooks() else {
            return;
        };
        // Ops inside the hook save plainly (no recursion into the hook).
        let result = {
            let _off = crate::context::SavedHooksGuard::push(None);
            hooks.pack(t)
        };
        match result {
            Ok(p) => {
                self.rare.get_or_insert_with(Box::default).packed = Some(PackInfo::new(
                    p,
                    t.id(),
                    t.shape(),
                    crate::trace::is_recording()
                        .then(|| crate::error::snapshot(t.to_array()))
                        .flatten(),
                ));
            }
            Err(e) => crate::context::set_pending_error(e),
        }
    }

    /// The `pack` trace event, once the saving node exists.
    fn record_pack(&self, node: crate::ids::NodeId) {
        let Some(info) = self.packed() else {
            return;
        };
        let p = &info.hook;
        crate::trace::record(|| crate::trace::Event::Hook {
            kind: crate::protocol::HookKind::Pack,
            handle: p.handle(),
            name: p.name(false),
            target: crate::trace::HookTarget::Saved(info.tensor, node),
            before: crate::trace::HookValue::One(info.before.clone()),
            after: crate::trace::HookValue::One(
                p.packed_tensor()
                    .and_then(|t| crate::error::snapshot(t.to_array())),
            ),
        });
    }

    /// An unused save slot (ops keep fixed slot positions): shares one empty
    /// storage instead of allocating per op.
    #[inline]
    pub fn empty() -> SavedTensor {
        crate::one_per_thread!(
            static EMPTY: std::cell::OnceCell<Rc<Storage>> = std::cell::OnceCell::new();
        );
        let empty = EMPTY.with(|e| e.get_or_init(|| Storage::new(Array::zeros(&[]))).clone());
        SavedTensor::constant_storage(empty)
    }

    #[inline]
    fn constant_storage(storage: Rc<Storage>) -> SavedTensor {
        SavedTensor {
            storage,
            saved_version: 0,
            output_nr: 0,
            history: SavedHistory::None,
            owner: std::rc::Weak::new(),
            rare: None,
        }
    }

    /// Saves a private copy of values (a number operand of an in-place op).
    pub fn save_copy(data: Array) -> SavedTensor {
        SavedTensor::constant_storage(Storage::new(data))
    }

    #[inline]
    fn packed(&self) -> Option<&Rc<PackInfo>> {
        self.rare.as_ref().and_then(|r| r.packed.as_ref())
    }

    /// `saver`: the name of the node whose saved tensor this is.
    fn version_error(&self, data: &Data, current: u32, saver: &'static str) -> Error {
        let shape = crate::shape::fmt_shape(data.shape());
        let mut msg = format!(
            "one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor {shape}]"
        );
        let producer = match self.history {
            SavedHistory::Output => Some(saver),
            _ => self
                .owner
                .upgrade()
                .and_then(|o| Tensor(o).grad_fn())
                .map(|f| f.name),
        };
        if let Some(name) = producer {
            // PyTorch 2.x names the op without its "Backward0" suffix.
            msg.push_str(&format!(
                ", which is output {} of {},",
                self.output_nr,
                op_name(name)
            ));
        }
        msg.push_str(&format!(
            " is at version {current}; expected version {} instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).",
            self.saved_version
        ));
        Error::runtime(msg)
    }

    /// The saved value of a one-element tensor as a plain number, checked
    /// against in-place changes exactly as `unpack` checks it (same error).
    /// `None` when it is not one element or was packed by a hook (then the
    /// caller unpacks it as a tensor, running the unpack hook).
    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    pub(crate) fn scalar_value(&self, saver: &'static str) -> Result<Option<f32>> {
        if self.packed().is_some() {
            return Ok(None);
        }
        let data = self
            .storage
            .data
            .try_borrow()
            .map_err(|_| Error::internal("saved tensor is busy"))?;
        let current = self.storage.version();
        if current != self.saved_version {
            return Err(self.version_error(&data, current, saver));
        }
        Ok(data.scalar())
    }

    /// The saved tensor as a tensor again, with its history (`saved_for` is
    /// the node unpacking it, the grad_fn of a saved output). Like PyTorch's
    /// `make_variable(data, edge)`, the result is a new tensor sharing the
    /// data; a saved leaf comes back as itself.
    fn unpack(&self, saved_for: &NodeRef) -> Result<Tensor> {
        let (storage, strides) = match self.packed() {
            Some(info) => {
                let p = &info.hook;
                let t = {
                    let _off = crate::context::SavedHooksGuard::push(None);
                    p.unpack()?
                };
                if t.shape() != info.shape {
                    return Err(Error::runtime(format!(
                        "hookgrad: the unpack hook returned a tensor of shape {} for a saved tensor of shape {}",
                        crate::shape::fmt_shape(&t.shape()),
                        crate::shape::fmt_shape(&info.shape)
                    )));
                }
                crate::trace::record(|| crate::trace::Event::Hook {
                    kind: crate::protocol::HookKind::Unpack,
                    handle: p.handle(),
                    name: p.name(true),
                    target: crate::trace::HookTarget::Saved(info.tensor, saved_for.id),
                    before: crate::trace::HookValue::One(
                        p.packed_tensor()
                            .and_then(|t| crate::error::snapshot(t.to_array())),
                    ),
                    after: crate::trace::HookValue::One(crate::error::snapshot(t.to_array())),
                });
                let strides = t.stored_strides();
                (t.storage().clone(), strides)
            }
            _ => {
                let current = self.storage.version();
                if current != self.saved_version {
                    let data = self
                        .storage
                        .data
                        .try_borrow()
                        .map_err(|_| Error::internal("saved tensor is busy"))?;
                    return Err(self.version_error(&data, current, saved_for.name));
                }
                if let SavedHistory::Leaf(leaf) = &self.history {
                    if Rc::ptr_eq(leaf.storage(), &self.storage) {
                        return Ok(leaf.clone());
                    }
                }
                (
                    self.storage.clone(),
                    self.rare
                        .as_ref()
                        .and_then(|r| r.strides.as_deref())
                        .map(<[usize]>::to_vec),
                )
            }
        };
        let (grad_fn, output_nr) = match &self.history {
            SavedHistory::Edge(e) => (Some(e.node.clone()), e.input_nr),
            SavedHistory::Output => (Some(saved_for.clone()), self.output_nr as usize),
            SavedHistory::None | SavedHistory::Leaf(_) => (None, 0),
        };
        let t = Tensor::with_storage(storage, grad_fn, output_nr, false);
        let mut m = t.meta_mut()?;
        m.strides = strides;
        if let SavedHistory::Leaf(leaf) = &self.history {
            if let Some(acc) = leaf.grad_accumulator() {
                m.requires_grad = true;
                m.grad_accumulator = Rc::downgrade(&acc);
            }
        }
        drop(m);
        Ok(t)
    }
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

    /// Gives the saved tensors on `storage` the version they were saved at
    /// (deferred.rs replays an op after its inputs may have changed).
    pub(crate) fn set_saved_version(&self, storage: &Rc<Storage>, version: u32) {
        if let NodeKind::Op { saved, .. } = &self.kind {
            match saved.try_borrow_mut() {
                Ok(mut s) => {
                    for st in s.iter_mut().filter(|st| Rc::ptr_eq(&st.storage, storage)) {
                        st.saved_version = version;
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

/// `MulBackward0` → `Mul`, as PyTorch's saved-variable message prints it.
fn op_name(node_name: &str) -> &str {
    match node_name.find("Backward") {
        Some(i) if node_name[i + 8..].chars().all(|c| c.is_ascii_digit()) => &node_name[..i],
        _ => node_name,
    }
}

/// Adds a tensor to a node's saved list after the node exists (ops that save
/// their own output).
pub(crate) fn save_output(node: &Node, t: &Tensor) {
    if let NodeKind::Op {
        saved, has_saved, ..
    } = &node.kind
    {
        let mut st = SavedTensor::save(t);
        // Held without its grad_fn (that would be a node → tensor → node
        // cycle); unpacking gives it this node back, as PyTorch does.
        st.history = SavedHistory::Output;
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

/// Dropping the last handle to a long chain of nodes would recurse once per
/// node (each `Rc<Node>` drops the next) and overflow wasm's 1 MB stack — a
/// trap. The node dropped first unlinks the chain iteratively instead: each
/// node it holds the last reference to gives up its edges before it goes (in
/// place, no copy of the node). The stack is allocated only when there is
/// such a node: a node whose inputs live on (a tensor freed while its graph
/// is still used) allocates nothing.
impl Drop for Node {
    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    fn drop(&mut self) {
        crate::live::node_dropped();
        if self.next.is_empty() {
            return;
        }
        let mut stack: Vec<NodeRef> = Vec::new();
        unlink(&mut self.next, &mut stack);
        while let Some(mut node) = stack.pop() {
            if let Some(owned) = Rc::get_mut(&mut node) {
                unlink(&mut owned.next, &mut stack);
            } else if let Ok(mut owned) = Rc::try_unwrap(node) {
                // The last owner, but weakly referenced: moved out to unlink.
                unlink(&mut owned.next, &mut stack);
                continue;
            } else {
                continue;
            }
            // Its own drop now finds no edges.
            drop(node);
        }
    }
}

/// Takes `next`'s edges: the nodes held by no one else go on `stack` (to be
/// unlinked in turn), the others are only released.
#[cfg_attr(hookgrad_nightly, optimize(speed))]
#[inline]
fn unlink(next: &mut Edges, stack: &mut Vec<NodeRef>) {
    // Not `.flatten()`: that adapter was calls and drop glue per node in the
    // size-optimized wasm.
    for edge in std::mem::take(next) {
        let Some(edge) = edge else { continue };
        if Rc::strong_count(&edge.node) == 1 {
            stack.push(edge.node);
        }
    }
}
