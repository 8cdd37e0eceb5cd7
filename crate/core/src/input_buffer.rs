//! Gradients waiting for a node (PyTorch's `InputBuffer`), one slot per node
//! input (the engine keeps one `Grads` per node of the pass). A slot holds a tensor, or — in a backward where no user code can
//! run (`GraphTask::scalar_mode`) — the plain number a 0-d node computed
//! (`Grad::Value`), which becomes a tensor only where one is needed.

use crate::error::{Error, Result};
use crate::node::NodeRef;
use crate::small::Small;
use crate::tensor::Tensor;

/// One gradient flowing through the engine.
#[derive(Clone)]
pub(crate) enum Grad {
    Tensor(Tensor),
    /// The value of a 0-d gradient that no one can observe as a tensor.
    Value(f32),
}

impl Grad {
    pub fn into_tensor(self) -> Tensor {
        match self {
            Grad::Tensor(t) => t,
            Grad::Value(v) => Tensor::scalar(v),
        }
    }

    /// The number in a 0-d gradient; `None` for any other tensor.
    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    #[inline]
    pub fn value(&self) -> Result<Option<f32>> {
        match self {
            Grad::Value(v) => Ok(Some(*v)),
            Grad::Tensor(t) => match t.scalar_value() {
                Some(v) => Ok(Some(v)),
                // Not 0-d, or busy (an internal error then).
                None => t.data().map(|_| None),
            },
        }
    }
}

/// A node's incoming gradients.
pub(crate) type Grads = Small<Option<Grad>>;

/// Tensors for code that takes them (hooks, tensor formulas).
pub(crate) fn to_tensors(grads: Grads) -> Vec<Option<Tensor>> {
    grads
        .into_iter()
        .map(|g| g.map(Grad::into_tensor))
        .collect()
}

/// Adds `grad` to input `pos` of `node`'s buffer `slots`. The first
/// gradient is stored as is (same tensor, as PyTorch does); later ones are
/// summed into a new tensor.
#[cfg_attr(hookgrad_nightly, optimize(speed))]
#[inline]
pub(crate) fn add_grad(
    node: &NodeRef,
    slots: &mut Grads,
    pos: usize,
    grad: Option<Grad>,
) -> Result<()> {
    let Some(grad) = grad else { return Ok(()) };
    let Some(slot) = slots.get_mut(pos) else {
        return Err(Error::internal(format!(
            "gradient for input {pos} of {} which has {} inputs",
            node.name,
            node.num_inputs()
        )));
    };
    *slot = Some(match slot.take() {
        None => grad,
        // An op, so the sum is differentiable under create_graph.
        Some(Grad::Tensor(old)) if matches!(grad, Grad::Tensor(_)) => {
            Grad::Tensor(old.add(&grad.into_tensor())?)
        }
        // A number is involved (scalar mode: both are 0-d): the same f32
        // sum the 0-d `add` computes.
        Some(old) => match (old.value()?, grad.value()?) {
            (Some(a), Some(b)) => Grad::Value(a + b),
            _ => Grad::Tensor(old.into_tensor().add(&grad.into_tensor())?),
        },
    });
    Ok(())
}
