//! A tensor saved for backward (PyTorch's `SavedVariable`), apart from the
//! node that holds it: saving (with the `savedTensorsHooks` pack hook),
//! the in-place version check and its PyTorch error text, and unpacking
//! back into a tensor with its history. node.rs keeps the graph structure;
//! this file is everything about one saved value.

use std::rc::Rc;

use crate::error::fault_default;
use crate::error::{Error, Result};
use crate::node::{Edge, NodeRef};
use crate::tensor::{Array, Data, Storage, Tensor};

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

    /// The saving node's own output: held without its grad_fn (that would
    /// be a node → tensor → node cycle); unpacking gives it the node back,
    /// as PyTorch does.
    pub(crate) fn save_output(t: &Tensor) -> SavedTensor {
        let mut st = SavedTensor::save(t);
        st.history = SavedHistory::Output;
        st
    }

    /// Takes `version` as the saved one when this saves `storage`
    /// (deferred.rs replays an op after its inputs may have changed).
    pub(crate) fn set_version_if_on(&mut self, storage: &Rc<Storage>, version: u32) {
        if Rc::ptr_eq(&self.storage, storage) {
            self.saved_version = version;
        }
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
    pub(crate) fn record_pack(&self, node: crate::ids::NodeId) {
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
    pub(crate) fn unpack(&self, saved_for: &NodeRef) -> Result<Tensor> {
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

/// `MulBackward0` → `Mul`, as PyTorch's saved-variable message prints it.
/// A node's name as PyTorch 2.x prints the op in error texts: without its
/// last "Backward" and the digits after it (`AddBackward0` → `Add`,
/// `BackwardHookFunctionBackward` → `BackwardHookFunction`).
pub(crate) fn op_name(node_name: &str) -> &str {
    match node_name.rfind("Backward") {
        Some(i) if node_name[i + 8..].chars().all(|c| c.is_ascii_digit()) => &node_name[..i],
        _ => node_name,
    }
}
