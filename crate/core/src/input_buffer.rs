//! Gradients waiting for a node (PyTorch's `InputBuffer`), one slot per
//! node input (the engine keeps one `Grads` per node of the pass). A slot
//! holds a tensor, or — in a backward where no user code can run
//! (`GraphTask::scalar_mode`) — the plain number a 0-d node computed
//! (`Grad::Value`), which becomes a tensor only where one is needed.
//!
//! A number stands for the tensor PyTorch would have made, down to what
//! `.grad._version` shows: its version (one bump per gradient added to it
//! in place) and whether anyone else holds the same tensor. Only a formula
//! that hands its incoming gradient on unchanged (`AddBackward0` to both
//! inputs, `SubBackward0` to the first) makes two holders of one tensor;
//! the pass counts them in `Shares`, so "held by this buffer alone" — the
//! test for an in-place sum and for AccumulateGrad's steal — is answered
//! as the tensor path answers it with reference counts.

use crate::error::{Error, Result};
use crate::small::Small;
use crate::tensor::{Data, Tensor};
use std::rc::Rc;

/// A 0-d gradient as a number: its value, the version its tensor would
/// have, and `share`: 0 when one holder has it, else its entry in `Shares`.
#[derive(Clone, Copy)]
pub(crate) struct Num {
    pub value: f32,
    pub version: u32,
    pub share: u32,
}

impl Num {
    /// A gradient a formula just computed: a new tensor, one holder.
    #[inline]
    pub fn fresh(value: f32) -> Num {
        Num {
            value,
            version: 0,
            share: 0,
        }
    }
}

/// How many holders each shared number has (entry 0 is unused: `share` 0
/// means unshared). One per backward pass; entries are never reused. A
/// node lets go of its inputs in one place (`engine::evaluate`), and of
/// outputs it added into slots or could not deliver in another
/// (`engine::route_outputs`).
#[derive(Default)]
pub(crate) struct Shares(Vec<u32>);

impl Shares {
    /// `holders` now hold one number that `n`'s holder hands on (the
    /// holder itself lets go of `n` later); returns the share to give them.
    #[inline]
    pub fn hand_on(&mut self, n: &Num, holders: u32) -> u32 {
        match (n.share, self.0.get_mut(n.share as usize)) {
            (0, _) if holders == 1 => 0,
            (0, _) | (_, None) => {
                if self.0.is_empty() {
                    self.0.push(0);
                }
                self.0.push(holders);
                (self.0.len() - 1) as u32
            }
            (share, Some(c)) => {
                *c += holders;
                share
            }
        }
    }

    /// A buffer holding `old` takes `b`: the same f32 sum the 0-d `add`
    /// computes, in place (the next version, the same holders) when the
    /// buffer alone holds `old` (as `accumulate`), else a new number (the
    /// buffer lets go of `old`).
    #[inline]
    pub fn sum(&mut self, old: Num, b: f32) -> Num {
        if self.alone(&old) {
            Num {
                value: old.value + b,
                version: old.version.wrapping_add(1),
                share: old.share,
            }
        } else {
            self.leave(&old);
            Num::fresh(old.value + b)
        }
    }

    /// Whether `n`'s holder is the only one (PyTorch: `use_count() == 1`).
    #[inline]
    pub fn alone(&self, n: &Num) -> bool {
        n.share == 0 || self.0.get(n.share as usize).is_some_and(|&c| c <= 1)
    }

    /// One holder of `n` lets go of it (consumed, summed away or dropped).
    #[inline]
    pub fn leave(&mut self, n: &Num) {
        if let Some(c) = self.0.get_mut(n.share as usize).filter(|_| n.share != 0) {
            *c = c.saturating_sub(1);
        }
    }

    /// The holders of `grads` let go of them (tensors count themselves).
    #[inline]
    pub fn drop_all(&mut self, grads: &Grads) {
        for g in grads.iter().flatten() {
            if let Grad::Value(n) = g {
                self.leave(n);
            }
        }
    }
}

/// One gradient flowing through the engine.
#[derive(Clone)]
pub(crate) enum Grad {
    Tensor(Tensor),
    /// A 0-d gradient that no one can observe as a tensor.
    Value(Num),
}

impl Grad {
    /// The tensor for code that takes one (the holder's count is the
    /// caller's: see `Shares::drop_all`). A shared number becomes a tensor
    /// of its own here, the one place two holders of the same PyTorch
    /// tensor could part (a node without a number formula in a scalar pass).
    pub fn into_tensor(self) -> Tensor {
        match self {
            Grad::Tensor(t) => t,
            Grad::Value(n) => Tensor::scalar_at_version(n.value, n.version),
        }
    }

    /// The number in a 0-d gradient; `None` for any other tensor.
    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    #[inline]
    pub fn value(&self) -> Result<Option<f32>> {
        match self {
            Grad::Value(n) => Ok(Some(n.value)),
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
#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub(crate) fn to_tensors(grads: Grads) -> Vec<Option<Tensor>> {
    grads
        .into_iter()
        .map(|g| g.map(Grad::into_tensor))
        .collect()
}

/// A node's input buffer as the engine's loop fills it: one slot per
/// input. A live node's is `Grads`; a deferred row (one input) is its one
/// slot, `Option<Grad>`, which keeps a 10^4-row pass's buffers small.
pub(crate) trait InputBuffer {
    /// An empty buffer for a node of `inputs` inputs.
    fn with_inputs(inputs: usize) -> Self;
    /// Slot `pos`, if the node has that input.
    fn slot(&mut self, pos: usize) -> Option<&mut Option<Grad>>;
}

impl InputBuffer for Grads {
    #[inline]
    fn with_inputs(inputs: usize) -> Self {
        Small::filled(inputs, None)
    }

    #[inline]
    fn slot(&mut self, pos: usize) -> Option<&mut Option<Grad>> {
        self.get_mut(pos)
    }
}

impl InputBuffer for Option<Grad> {
    #[inline]
    fn with_inputs(_: usize) -> Self {
        None
    }

    #[inline]
    fn slot(&mut self, pos: usize) -> Option<&mut Option<Grad>> {
        (pos == 0).then_some(self)
    }
}

/// Adds `grad` to input `pos` of `node`'s buffer `slots`. The first
/// gradient is stored as is (same tensor, as PyTorch does); later ones are
/// added to it (`accumulate`; numbers as `accumulate` would treat their
/// tensors: in place when the buffer alone holds the earlier one).
///
/// Returns a gradient that was added into the slot rather than stored: the
/// caller keeps it until all the node's outputs are routed, as PyTorch's
/// `evaluate_function` keeps its `outputs` (`InputBuffer::add` moves a
/// gradient only into an empty slot), so a later output of the same node
/// still counts it as a holder.
#[cfg_attr(hookgrad_nightly, optimize(speed))]
#[inline]
pub(crate) fn add_grad(
    name: &str,
    slots: &mut impl InputBuffer,
    pos: usize,
    grad: Grad,
    shares: &mut Shares,
) -> Result<Option<Grad>> {
    let Some(slot) = slots.slot(pos) else {
        return Err(Error::internal(format!(
            "gradient for input {pos} of {name}, which has fewer inputs"
        )));
    };
    let Some(old) = slot.take() else {
        *slot = Some(grad);
        return Ok(None);
    };
    *slot = Some(match (old, &grad) {
        // Numbers on both sides (scalar mode, the common case of a deferred
        // pass): the same f32 sum the 0-d `add` computes, in place when this
        // buffer alone holds the earlier gradient (as `accumulate`).
        (Grad::Value(old), Grad::Value(new)) => Grad::Value(shares.sum(old, new.value)),
        // An op, so the sum is differentiable under create_graph.
        (Grad::Tensor(old), Grad::Tensor(new)) => Grad::Tensor(accumulate(old, new)?),
        (Grad::Tensor(old), Grad::Value(new)) => {
            Grad::Tensor(accumulate(old, &Grad::Value(*new).into_tensor())?)
        }
        // A number and a tensor (scalar mode: both are 0-d and grad mode
        // is off): as two numbers when the tensor is 0-d.
        (Grad::Value(old), new) => match new.value()? {
            Some(b) => Grad::Value(shares.sum(old, b)),
            None => {
                shares.leave(&old);
                Grad::Tensor(
                    Grad::Value(old)
                        .into_tensor()
                        .add(&new.clone().into_tensor())?,
                )
            }
        },
    });
    Ok(Some(grad))
}

/// PyTorch's `InputBuffer::accumulate`: with grad mode off, a gradient that
/// only the buffer holds (no other reference to its tensor or its storage,
/// row-major, not a view) takes the next one in place, `old.add_(new)`;
/// otherwise `old + new`, a new tensor. The same f32 additions either way;
/// what shows is the version (one bump per in-place sum, carried into
/// `.grad` when AccumulateGrad steals the sum, as PyTorch's `_version`).
/// Values no one else can see change: whoever could (a hook that kept the
/// gradient, a JS handle, a saved tensor, a view) holds a reference, and
/// then it is `old + new`.
#[cfg_attr(hookgrad_nightly, optimize(speed))]
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
