//! Tensors: float32 row-major values (`array::Array`) in a shared, versioned storage plus autograd
//! metadata. `detach()` and in-place ops share the storage exactly as PyTorch
//! tensors share theirs, so the version counter can catch modifications of
//! tensors saved for backward.

use std::cell::{Cell, Ref, RefCell};
use std::rc::{Rc, Weak};

use crate::error::{fault_default, Error, Result};
use crate::hooks::{HookList, LazyHooks, PostAccumulateGradHook, TensorHookEntry};
use crate::ids::TensorId;
use crate::node::{Node, NodeRef};

pub use crate::array::Array;
pub type TensorHookList = HookList<TensorHookEntry>;

// Storage (values + version), `.grad` and the graph edge, and hook
// registration each have their own file; their items stay at tensor::.
mod grad;
mod hook_registration;
mod storage;
pub use grad::NON_LEAF_GRAD_WARNING;
pub(crate) use storage::Data;
pub use storage::Storage;

pub struct TensorImpl {
    pub(crate) id: TensorId,
    pub(crate) storage: Rc<Storage>,
    pub(crate) meta: RefCell<Meta>,
    /// Strong references that are not owners for AccumulateGrad's steal:
    /// JS handles created while a JS hook ran (its argument, results of ops
    /// inside it), whose liveness JS cannot tell (see `engine::accumulate`).
    pub(crate) hook_refs: Cell<u32>,
    /// Where the deferred-op table last shared this tensor as an input
    /// (index + 1; 0: never): a hint, checked against the table's entry.
    pub(crate) deferred_source: Cell<u32>,
}

impl Drop for TensorImpl {
    fn drop(&mut self) {
        crate::live::tensor_dropped();
    }
}

pub struct Meta {
    pub name: Option<String>,
    /// Only meaningful on leaves; a non-leaf requires grad iff it has a grad_fn.
    pub requires_grad: bool,
    pub grad_fn: Option<NodeRef>,
    pub output_nr: usize,
    pub grad: Option<Tensor>,
    pub retains_grad: bool,
    /// Tensor hooks (and the retain-grad entry), shared with the grad_fn that
    /// runs them (non-leaf) or read lazily by AccumulateGrad (leaf).
    pub hooks: LazyHooks<TensorHookEntry>,
    pub hooks_registered_on_node: bool,
    pub grad_accumulator: Weak<Node>,
    pub post_accumulate_hooks: LazyHooks<Rc<dyn PostAccumulateGradHook>>,
    /// PyTorch's strides for this tensor (see `layout`); `None` is the
    /// row-major layout, which most tensors have (no allocation for it).
    pub strides: Option<Vec<usize>>,
    /// Set on views: their root base and how to get from it to this view.
    pub view: Option<crate::view::ViewInfo>,
    /// On a base: its live views, kept in sync on in-place writes.
    pub views: Vec<Weak<TensorImpl>>,
    /// How this tensor was made, when that forbids in-place ops on it
    /// (PyTorch's `CreationMeta`; see `view::handle_view_on_rebase`).
    pub creation: crate::view::CreationMeta,
}

/// A reference-counted tensor handle; clones share everything.
#[derive(Clone)]
pub struct Tensor(pub(crate) Rc<TensorImpl>);

#[derive(Default, Clone)]
pub struct TensorOptions {
    pub requires_grad: bool,
    pub name: Option<String>,
}

impl Tensor {
    /// A new leaf owning `data`.
    pub fn from_array(data: Array) -> Tensor {
        Tensor::with_storage(Storage::new(data), None, 0, false)
    }

    pub fn from_array_opts(data: Array, opts: &TensorOptions) -> Tensor {
        let t = Tensor::from_array(data);
        // A fresh tensor: nothing else can hold its metadata.
        if let Ok(mut m) = t.0.meta.try_borrow_mut() {
            m.requires_grad = opts.requires_grad;
            m.name = opts.name.clone();
        }
        t
    }

    pub fn scalar(v: f32) -> Tensor {
        Tensor::from_data(Data::Scalar(v))
    }

    /// A new 0-d tensor whose version counter already reads `version` (the
    /// tensor a gradient computed as a number would have been).
    pub(crate) fn scalar_at_version(v: f32, version: u32) -> Tensor {
        let t = Tensor::scalar(v);
        t.storage().own.set(version);
        t
    }

    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    #[inline]
    pub(crate) fn from_data(data: Data) -> Tensor {
        Tensor::with_storage(Storage::from_data(data), None, 0, false)
    }

    /// A leaf of `shape` filled with `value` (`zeros`, `ones`); refuses shapes
    /// over the element limit instead of aborting on allocation.
    pub fn full(shape: &[usize], value: f32, opts: &TensorOptions) -> Result<Tensor> {
        crate::shape::checked_numel(shape)?;
        Ok(Tensor::from_array_opts(
            Array::from_elem(shape, value),
            opts,
        ))
    }

    /// Builds a tensor from a shape and row-major values, checking they agree.
    pub fn from_vec(shape: &[usize], values: Vec<f32>, opts: &TensorOptions) -> Result<Tensor> {
        let numel: usize = shape.iter().product();
        if numel != values.len() {
            return Err(Error::type_error(format!(
                "shape {} needs {} values, but {} were given",
                crate::shape::fmt_shape(shape),
                numel,
                values.len()
            )));
        }
        let data = Array::from_shape_vec(shape, values)
            .map_err(|e| Error::type_error(format!("invalid tensor data: {e}")))?;
        Ok(Tensor::from_array_opts(data, opts))
    }

    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    #[inline]
    pub(crate) fn with_storage(
        storage: Rc<Storage>,
        grad_fn: Option<NodeRef>,
        output_nr: usize,
        requires_grad: bool,
    ) -> Tensor {
        crate::live::tensor_created();
        Tensor(Rc::new(TensorImpl {
            id: TensorId::next(),
            hook_refs: Cell::new(0),
            deferred_source: Cell::new(0),
            storage,
            meta: RefCell::new(Meta {
                name: None,
                requires_grad,
                grad_fn,
                output_nr,
                grad: None,
                retains_grad: false,
                hooks: LazyHooks::default(),
                hooks_registered_on_node: false,
                grad_accumulator: Weak::new(),
                post_accumulate_hooks: LazyHooks::default(),
                strides: None,
                view: None,
                views: Vec::new(),
                creation: crate::view::CreationMeta::Default,
            }),
        }))
    }

    // ----- plain accessors -------------------------------------------------

    #[inline]
    pub fn id(&self) -> TensorId {
        self.0.id
    }

    pub fn ptr_eq(&self, other: &Tensor) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }

    /// A binding's handle that holds this tensor without counting as an
    /// owner for AccumulateGrad's steal (a handle created inside a JS hook).
    /// Pair every call with `remove_hook_ref` when that handle goes.
    pub fn add_hook_ref(&self) {
        self.0
            .hook_refs
            .set(self.0.hook_refs.get().saturating_add(1));
    }

    pub fn remove_hook_ref(&self) {
        self.0
            .hook_refs
            .set(self.0.hook_refs.get().saturating_sub(1));
    }

    /// References to this tensor that own it: PyTorch's `use_count` as
    /// AccumulateGrad reads it, without handles JS cannot vouch for.
    pub(crate) fn owner_count(&self) -> usize {
        Rc::strong_count(&self.0).saturating_sub(self.0.hook_refs.get() as usize)
    }

    #[inline]
    pub(crate) fn meta(&self) -> Result<Ref<'_, Meta>> {
        self.0
            .meta
            .try_borrow()
            .map_err(|_| Error::internal("tensor metadata is busy"))
    }

    #[inline]
    pub(crate) fn meta_mut(&self) -> Result<std::cell::RefMut<'_, Meta>> {
        self.0
            .meta
            .try_borrow_mut()
            .map_err(|_| Error::internal("tensor metadata is busy"))
    }

    /// Borrow of the data. Never hold it across a call into a hook.
    #[inline]
    pub fn data(&self) -> Result<Ref<'_, Array>> {
        self.0.storage.read()
    }

    /// The value of a 0-d tensor without building an array (`None`: not 0-d).
    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    #[inline]
    pub(crate) fn scalar_value(&self) -> Option<f32> {
        self.0.storage.scalar()
    }

    /// A copy of the values, read in one borrow (the trace copies every
    /// gradient it records through here).
    pub fn to_array(&self) -> Result<Array> {
        match self.0.storage.data.try_borrow() {
            Ok(d) => Ok(match &*d {
                Data::Scalar(v) => Array::scalar(*v),
                Data::Array(a) => a.clone(),
            }),
            Err(_) => Err(Error::internal("tensor data is busy")),
        }
    }

    /// `Data::map_blocks`: PyTorch's vector function on whole blocks, its
    /// scalar one on the tail.
    pub(crate) fn map_data_blocks(
        &self,
        block: usize,
        vector: fn(f32) -> f32,
        tail: fn(f32) -> f32,
    ) -> Result<Data> {
        self.0
            .storage
            .data
            .try_borrow()
            .map(|d| d.map_blocks(block, vector, tail))
            .map_err(|_| Error::internal("tensor data is busy"))
    }

    /// `f` elementwise, without building an array for a 0-d tensor.
    pub(crate) fn map_data(&self, f: fn(f32) -> f32) -> Result<Data> {
        self.0
            .storage
            .data
            .try_borrow()
            .map(|d| d.map(f))
            .map_err(|_| Error::internal("tensor data is busy"))
    }

    /// Reads the stored `Data` without building an array.
    fn peek<T: Default>(&self, what: &'static str, f: impl FnOnce(&Data) -> T) -> T {
        match self.0.storage.data.try_borrow() {
            Ok(d) => f(&d),
            Err(_) => fault_default(what),
        }
    }

    pub fn shape(&self) -> Vec<usize> {
        self.peek("tensor data is busy in shape()", |d| d.shape().to_vec())
    }

    /// `self.shape() == other.shape()` without copying either shape.
    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    pub(crate) fn same_shape(&self, other: &Tensor) -> bool {
        self.peek("tensor data is busy comparing shapes", |a| {
            other.peek("tensor data is busy comparing shapes", |b| {
                a.shape() == b.shape()
            })
        })
    }

    pub fn ndim(&self) -> usize {
        self.peek("tensor data is busy in ndim()", |d| d.shape().len())
    }

    pub fn numel(&self) -> usize {
        self.peek("tensor data is busy in numel()", |d| d.len())
    }

    #[inline]
    pub fn storage(&self) -> &Rc<Storage> {
        &self.0.storage
    }

    pub fn version(&self) -> u32 {
        self.0.storage.version()
    }

    pub fn item(&self) -> Result<f32> {
        if let Some(v) = self.scalar_value() {
            return Ok(v);
        }
        let d = self.data()?;
        if d.len() != 1 {
            return Err(Error::runtime(format!(
                "a Tensor with {} elements cannot be converted to Scalar",
                d.len()
            )));
        }
        d.iter()
            .next()
            .copied()
            .ok_or_else(|| Error::runtime("a Tensor with 0 elements cannot be converted to Scalar"))
    }

    /// Benign default: a name only labels messages and the graph view.
    pub fn name(&self) -> Option<String> {
        self.meta().ok().and_then(|m| m.name.clone())
    }

    pub fn set_name(&self, name: Option<String>) -> Result<()> {
        self.meta_mut()?.name = name;
        Ok(())
    }

    /// How error messages and traces refer to this tensor.
    pub fn label(&self) -> String {
        match self.name() {
            Some(n) if !n.is_empty() => format!("tensor '{n}'"),
            _ => format!("tensor #{}", self.id().0),
        }
    }

    #[inline]
    pub fn grad_fn(&self) -> Option<NodeRef> {
        self.meta()
            .map(|m| m.grad_fn.clone())
            .unwrap_or_else(|_| fault_default("tensor metadata is busy in grad_fn()"))
    }

    pub fn output_nr(&self) -> usize {
        self.meta()
            .map(|m| m.output_nr)
            .unwrap_or_else(|_| fault_default("tensor metadata is busy in output_nr()"))
    }

    #[inline]
    pub fn is_leaf(&self) -> bool {
        self.grad_fn().is_none()
    }

    #[inline]
    pub fn requires_grad(&self) -> bool {
        self.meta()
            .map(|m| m.grad_fn.is_some() || m.requires_grad)
            .unwrap_or_else(|_| fault_default("tensor metadata is busy in requires_grad()"))
    }

    pub fn set_requires_grad(&self, value: bool) -> Result<()> {
        if !self.is_leaf() {
            let mut msg =
                String::from("you can only change requires_grad flags of leaf variables.");
            if !value {
                msg.push_str(" If you want to use a computed variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().");
            }
            return Err(Error::runtime(msg));
        }
        self.meta_mut()?.requires_grad = value;
        Ok(())
    }

    /// `t.detach_()`: this tensor leaves the graph in place (no grad_fn, no
    /// longer requiring grad); its node and everything saved stay as they
    /// are. PyTorch refuses it on every view, autograd's or not.
    pub fn detach_(&self) -> Result<()> {
        if self.view_info().is_some() {
            return Err(Error::runtime("Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and hence detach_() cannot be called on these gradients. To fix this error, please refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."));
        }
        let mut m = self.meta_mut()?;
        m.requires_grad = false;
        m.grad_fn = None;
        m.output_nr = 0;
        Ok(())
    }

    pub fn retains_grad(&self) -> bool {
        !self.is_leaf()
            && self
                .meta()
                .map(|m| m.retains_grad)
                .unwrap_or_else(|_| fault_default("tensor metadata is busy in retains_grad()"))
    }

    pub fn view_info(&self) -> Option<crate::view::ViewInfo> {
        self.meta()
            .map(|m| m.view.clone())
            .unwrap_or_else(|_| fault_default("tensor metadata is busy in view_info()"))
    }

    /// `t.stride()`, in elements.
    pub fn strides(&self) -> Vec<usize> {
        match self.stored_strides() {
            Some(s) => s,
            None => crate::layout::contiguous_strides(&self.shape()),
        }
    }

    /// `t.is_contiguous()` (size-1 dims ignored, as PyTorch does).
    pub fn is_contiguous(&self) -> bool {
        match self.stored_strides() {
            Some(s) => crate::layout::is_contiguous(&self.shape(), &s),
            None => true,
        }
    }

    /// Whether the layout is not row-major (without copying the strides).
    #[inline]
    pub(crate) fn has_strides(&self) -> bool {
        self.meta()
            .map(|m| m.strides.is_some())
            .unwrap_or_else(|_| fault_default("tensor metadata is busy reading strides"))
    }

    /// The stored strides (`None`: row-major).
    pub(crate) fn stored_strides(&self) -> Option<Vec<usize>> {
        self.meta()
            .map(|m| m.strides.clone())
            .unwrap_or_else(|_| fault_default("tensor metadata is busy reading strides"))
    }

    /// Sets the layout; row-major strides are stored as `None`.
    pub(crate) fn set_strides(&self, strides: Vec<usize>) -> Result<()> {
        let row_major = strides == crate::layout::contiguous_strides(&self.shape());
        self.meta_mut()?.strides = if row_major { None } else { Some(strides) };
        Ok(())
    }

    /// The second half of PyTorch's `clone_obey_contract` for a fresh copy
    /// of a gradient: for a variable that is non-overlapping and dense, the
    /// copy is `new_empty_strided(variable's layout).copy_(grad)` — laid out
    /// like the variable and, the copy_ being a write, at version 1 (a
    /// `clone`, otherwise: row-major, version 0).
    pub(crate) fn lay_out_as_grad_copy(
        &self,
        variable_layout: &(Vec<usize>, Vec<usize>),
    ) -> Result<()> {
        let (shape, strides) = variable_layout;
        if crate::layout::is_non_overlapping_and_dense(shape, strides) {
            self.set_strides(strides.clone())?;
            self.storage().bump_version();
        }
        Ok(())
    }

    /// This tensor's `(shape, strides)`, for layout rules.
    pub(crate) fn layout(&self) -> (Vec<usize>, Vec<usize>) {
        (self.shape(), self.strides())
    }

    /// A new tensor sharing this storage, with no history (`t.detach()`).
    pub fn detach(&self) -> Tensor {
        let t = Tensor::with_storage(self.0.storage.clone(), None, 0, false);
        // A fresh tensor: nothing else can hold its metadata.
        if let Ok(mut m) = t.meta_mut() {
            m.strides = self.stored_strides();
        }
        t
    }
}
