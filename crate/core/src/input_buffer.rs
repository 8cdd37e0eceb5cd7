//! Gradients waiting for a node (PyTorch's `InputBuffer`), one slot per node
//! input (the engine keeps one `Grads` per node of the pass). A slot holds a tensor, or — in a backward where no user code can
//! run (`GraphTask::scalar_mode`) — the plain number a 0-d node computed
//! (`Grad::Value`), which becomes a tensor only where one is needed.

use crate::error::{Error, Result};
use crate::node::NodeRef;
use crate::small::Small;
use crate::tensor::{Data, Tensor};
use std::rc::Rc;

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
/// added to it (`accumulate`).
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
            Grad::Tensor(accumulate(old, &grad.into_tensor())?)
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

/// PyTorch's `InputBuffer::accumulate`: with grad mode off, a gradient that
/// only the buffer holds (no other reference to its tensor or its storage,
/// row-major, not a view) takes the next one in place, `old.add_(new)`;
/// otherwise `old + new`, a new tensor. The same f32 additions either way —
/// in place only saves a tensor per extra gradient, and leaves the sum
/// uniquely held, so AccumulateGrad can steal it as PyTorch's does. No one
/// can see the difference: whoever could (a hook that kept the gradient, a
/// JS handle, a saved tensor, a view) holds a reference, and then it is
/// `old + new`.
fn accumulate(old: Tensor, new: &Tensor) -> Result<Tensor> {
    if !crate::context::is_grad_enabled() && held_by_buffer_alone(&old) && old.same_shape(new) {
        let added = match old.storage().data.try_borrow_mut() {
            Ok(mut dst) => match &mut *dst {
                Data::Scalar(a) => new.scalar_value().map(|b| *a += b).is_some(),
                Data::Array(a) => {
                    let src = new.data()?;
                    for (x, y) in a.as_slice_mut().iter_mut().zip(src.as_slice()) {
                        *x += *y;
                    }
                    true
                }
            },
            Err(_) => false,
        };
        if added {
            old.storage().bump_version();
            return Ok(old);
        }
    }
    old.add(new)
}

/// PyTorch's `can_accumulate_inplace` for a dense f32 tensor: the tensor and
/// its storage each have one owner, and it is neither a view nor a base of one.
/// Counted with every strong reference, JS handles made inside hooks too
/// (unlike `Tensor::owner_count` for AccumulateGrad's steal): writing in
/// place into a gradient a hook kept would change the user's value.
fn held_by_buffer_alone(t: &Tensor) -> bool {
    Rc::strong_count(&t.0) == 1
        && Rc::weak_count(&t.0) == 0
        && Rc::strong_count(t.storage()) == 1
        && t.meta()
            .is_ok_and(|m| m.view.is_none() && m.views.is_empty() && m.strides.is_none())
}
