//! Differentiable ops. Each family file keeps forward and backward side by
//! side; `record` is the one place that decides whether an op joins the graph
//! and builds its node, so adding an op touches one file.

use crate::context;
use crate::error::Result;
use crate::node::{BackwardFn, Node, SavedTensor};
use crate::tensor::{Array, Storage, Tensor};
use crate::trace;

pub mod arith;
pub mod inplace;
pub mod kernel;
pub mod matmul;
pub mod random;
pub mod reduce;
pub mod shape_ops;
pub mod unary;

/// The right-hand side of a binary op: a tensor or a plain number (which
/// PyTorch wraps into a 0-d tensor that does not require grad, giving a
/// `(None, 0)` edge).
#[derive(Clone)]
pub enum Operand {
    Tensor(Tensor),
    Scalar(f32),
}

impl Operand {
    pub fn tensor(&self) -> Option<&Tensor> {
        match self {
            Operand::Tensor(t) => Some(t),
            Operand::Scalar(_) => None,
        }
    }
    pub fn array(&self) -> Result<Array> {
        match self {
            Operand::Tensor(t) => t.to_array(),
            Operand::Scalar(s) => Ok(Array::from_elem(ndarray::IxDyn(&[]), *s)),
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
pub(crate) fn needs_graph(inputs: &[Option<&Tensor>]) -> bool {
    context::is_grad_enabled() && inputs.iter().flatten().any(|t| t.requires_grad())
}

/// Wraps `output` in a new tensor and, if needed, a backward node named `name`
/// with one edge per input. `save` runs only when a node is built.
pub(crate) fn record(
    name: &'static str,
    inputs: &[Option<&Tensor>],
    output: Array,
    save: impl FnOnce() -> Vec<SavedTensor>,
    backward: BackwardFn,
) -> Tensor {
    if !needs_graph(inputs) {
        return Tensor::from_array(output);
    }
    let next = inputs
        .iter()
        .map(|t| t.and_then(|t| t.gradient_edge()))
        .collect();
    let node = Node::new_op(name, next, vec![output.shape().to_vec()], save(), backward);
    let out = Tensor::with_storage(Storage::new(output), Some(node.clone()), 0, false);
    node.add_output(&out);
    let ins: Vec<&Tensor> = inputs.iter().flatten().copied().collect();
    trace::record_op(node.id, node.name, &ins, &out);
    out
}

/// A gradient result as a fresh tensor.
pub(crate) fn grad_tensor(a: Array) -> Option<Tensor> {
    Some(Tensor::from_array(a))
}

/// The first defined incoming gradient, or zeros of `shape` (PyTorch
/// materializes undefined grads for most formulas).
pub(crate) fn grad_or_zeros(grads: &[Option<Tensor>], shape: &[usize]) -> Result<Array> {
    match grads.first().and_then(|g| g.as_ref()) {
        Some(g) => g.to_array(),
        None => Ok(Array::zeros(ndarray::IxDyn(shape))),
    }
}
