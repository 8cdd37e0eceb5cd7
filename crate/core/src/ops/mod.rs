//! Differentiable ops. Each family file keeps forward and backward side by
//! side; `record` is the one place that decides whether an op joins the graph
//! and builds its node, so adding an op touches one file.

use crate::context;
use crate::error::Result;
use crate::node::{BackwardFn, Edges, Node, SavedList, SavedTensor, ScalarBackward};
use crate::small::Small;
use crate::tensor::{Array, Data, Storage, Tensor};
use crate::trace;

pub mod arith;
pub mod backward_ops;
pub mod fill_copy;
pub mod index;
pub mod inplace;
pub mod join;
pub mod kernel;
pub mod linear;
pub mod loss;
pub(crate) mod masked;
pub mod matmul;
pub mod minmax;
pub mod norm;
pub mod pow;
pub mod random;
pub mod reduce;
pub mod shape_ops;
pub mod softmax;
pub mod unary;
pub mod views;

/// The right-hand side of a binary op: a tensor or a plain number (which
/// PyTorch wraps into a 0-d tensor that does not require grad, giving a
/// `(None, 0)` edge).
#[derive(Clone)]
pub enum Operand {
    Tensor(Tensor),
    Scalar(f32),
}

impl Operand {
    #[inline]
    pub fn tensor(&self) -> Option<&Tensor> {
        match self {
            Operand::Tensor(t) => Some(t),
            Operand::Scalar(_) => None,
        }
    }
    pub fn array(&self) -> Result<Array> {
        match self {
            Operand::Tensor(t) => t.to_array(),
            Operand::Scalar(s) => Ok(Array::scalar(*s)),
        }
    }
}

impl From<&Tensor> for Operand {
    fn from(t: &Tensor) -> Self {
        Operand::Tensor(t.clone())
    }
}
impl From<f32> for Operand {
    fn from(v: f32) -> Self {
        Operand::Scalar(v)
    }
}

/// Whether an op on these inputs records a node: grad mode on and any tensor
/// input requiring grad.
#[inline]
pub(crate) fn needs_graph(inputs: &[Option<&Tensor>]) -> bool {
    context::is_grad_enabled() && inputs.iter().flatten().any(|t| t.requires_grad())
}

/// Wraps `output` in a new tensor and, if needed, a backward node named `name`
/// with one edge per input. `save` runs only when a node is built; a pack
/// hook (`hg.savedTensorsHooks`) that fails while saving fails the op.
pub(crate) fn record(
    name: &'static str,
    inputs: &[Option<&Tensor>],
    output: Array,
    save: impl FnOnce() -> Vec<SavedTensor>,
    backward: BackwardFn,
) -> Result<Tensor> {
    let mut save = Some(save);
    let mut save = |_: &Edges| save.take().map_or(Small::Zero, |f| f().into());
    record_with(name, inputs, output.into(), &mut save, backward, None, 0.0)
}

/// `record` for an elementwise op: `param` is its number operand (read by
/// the formula from the context, so the closure captures nothing and is not
/// boxed), `scalar` the same formula on numbers, kept when the output is 0-d.
/// `save` gets the node's edges (an input requires grad iff it has one).
#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub(crate) fn record_elementwise(
    name: &'static str,
    inputs: &[Option<&Tensor>],
    output: Data,
    save: impl FnOnce(&Edges) -> SavedList,
    backward: BackwardFn,
    scalar: ScalarBackward,
    param: f32,
) -> Result<Tensor> {
    let scalar = output.shape().is_empty().then_some(scalar);
    let mut save = Some(save);
    let mut save = |e: &Edges| save.take().map_or(Small::Zero, |f| f(e));
    record_with(name, inputs, output, &mut save, backward, scalar, param)
}

/// The one body behind `record` and `record_elementwise` (not generic: every
/// op's call site would otherwise instantiate it in the wasm).
#[cfg_attr(hookgrad_nightly, optimize(speed))]
fn record_with(
    name: &'static str,
    inputs: &[Option<&Tensor>],
    output: Data,
    save: &mut dyn FnMut(&Edges) -> SavedList,
    backward: BackwardFn,
    scalar: Option<ScalarBackward>,
    param: f32,
) -> Result<Tensor> {
    // An accessor that failed while this op read its inputs (a shape, a
    // requires_grad) fails the op instead of computing with a placeholder.
    if let Some(e) = crate::error::take_fault() {
        return Err(e);
    }
    if !context::is_grad_enabled() {
        return Ok(Tensor::from_data(output));
    }
    // An input has an edge iff it requires grad (`needs_graph`, read once).
    let next = Small::map_slice(inputs, |t| t.and_then(|t| t.gradient_edge()));
    if next.iter().all(Option::is_none) {
        return Ok(Tensor::from_data(output));
    }
    let saved = save(&next);
    if let Some(e) = context::take_pending_error() {
        return Err(e);
    }
    let shapes = Small::One(output.shape().to_vec());
    let node = Node::new_op_with(name, next, shapes, saved, backward, scalar, param);
    let out = Tensor::with_storage(Storage::from_data(output), Some(node.clone()), 0, false);
    node.add_output(&out);
    if trace::is_recording() {
        let ins: Vec<&Tensor> = inputs.iter().flatten().copied().collect();
        trace::record_op(node.id, node.name, &ins, &out);
    }
    Ok(out)
}

/// Saves a node's own output (ops whose backward uses their result), after
/// the node exists; a failing pack hook fails the op.
pub(crate) fn save_result(t: &Tensor) -> Result<()> {
    if let Some(node) = t.grad_fn() {
        crate::node::save_output(&node, t);
        if let Some(e) = context::take_pending_error() {
            return Err(e);
        }
    }
    Ok(())
}

/// Gives an elementwise op's output PyTorch's layout (TensorIterator's
/// rules, see `layout::elementwise_strides`). Row-major inputs always give a
/// row-major output, so the common case computes nothing.
#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub(crate) fn elementwise_layout(out: Tensor, inputs: &[Option<&Tensor>]) -> Result<Tensor> {
    let strided = inputs.iter().flatten().any(|t| t.has_strides());
    if strided {
        let operands: Vec<_> = inputs.iter().flatten().map(|t| t.layout()).collect();
        let strides = crate::layout::elementwise_strides(&out.shape(), &operands);
        out.set_strides(strides)?;
    }
    Ok(out)
}

/// The first incoming gradient as a tensor (zeros of `shape` when
/// undefined). Backward formulas compute with tensor ops on it, so with
/// `create_graph` (grad mode on during backward) they build the graph of the
/// gradient itself; otherwise the same ops just compute.
pub(crate) fn grad_in(grads: &[Option<Tensor>], shape: &[usize]) -> Tensor {
    match grads.first().cloned().flatten() {
        Some(g) => g,
        None => Tensor::from_array(Array::zeros(shape)),
    }
}

/// `Some(f())` when the gradient for input `i` is needed.
pub(crate) fn need(
    needs: &[bool],
    i: usize,
    f: impl FnOnce() -> Result<Tensor>,
) -> Result<Option<Tensor>> {
    if needs.get(i).copied().unwrap_or(false) {
        f().map(Some)
    } else {
        Ok(None)
    }
}

/// A constant (no history) tensor.
pub(crate) fn constant(a: Array) -> Tensor {
    Tensor::from_array(a)
}
