//! AccumulateGrad, PyTorch's `accumulate_grad.h`: a leaf's gradient stored
//! or added into `.grad` (from a tensor, or from a number on the scalar
//! paths), then the `accumulate` trace event and the post-accumulate-grad
//! hooks. Shared by the engine's node loop, its number path
//! (`scalar_backward`) and the deferred rows (`deferred::execute`), so that
//! none of them imports another for it.

use crate::context;
use crate::error::{Error, Result};
use crate::ids::HandleId;
use crate::input_buffer::{Grad, Grads, Num, Shares};
use crate::tensor::{Data, Tensor};
use crate::trace::{self, Event, HookKind, HookTarget, HookValue};

/// A hook's error as PyTorch words it: "<what> '<name>' on <target> raised
/// an error: <message>", naming the hook (`handle`, of `kind`) for the
/// trace's `error` event.
pub(crate) fn hook_error(
    e: Error,
    (handle, kind): (HandleId, HookKind),
    what: &str,
    target: &str,
    name: &str,
) -> Error {
    // A multi-grad hook runs as a tensor hook under its own handle: its error
    // already names it (and its kind), so it is not wrapped a second time.
    if e.failed_hook().is_some_and(|h| h.handle == handle) {
        return e;
    }
    let quoted = if name.is_empty() {
        String::new()
    } else {
        format!(" '{name}'")
    };
    let message = format!(
        "{what}{quoted} on {target} raised an error: {}",
        e.message()
    );
    Error::in_hook(message, handle, kind, name.to_owned())
}

/// AccumulateGrad: `.grad = grad` (a copy when the gradient is shared) or
/// `.grad += grad` in place, then post-accumulate-grad hooks.
#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub(crate) fn accumulate(variable: &Tensor, grad: Option<Tensor>) -> Result<()> {
    let Some(grad) = grad else { return Ok(()) };
    if !variable.requires_grad() {
        return Ok(());
    }
    if context::is_grad_enabled() {
        // create_graph: `.grad` becomes a differentiable copy laid out like
        // the variable (`clone_obey_contract`, CopyBackwards), later
        // `.grad + new` — never an in-place update (accumulate_grad.h).
        let new = match variable.grad_raw() {
            None => crate::ops::shape_ops::copy_backwards(&grad, &variable.layout())?,
            Some(existing) => existing.add(&grad)?,
        };
        variable.meta_mut()?.grad = Some(new);
        return after_accumulate(variable);
    }
    match variable.grad_raw() {
        None => {
            // PyTorch (`accumulate_grad.h`): when no one else holds the
            // incoming gradient and it obeys the layout contract (the leaf's
            // strides, `utils::obeys_layout_contract`), `.grad` becomes
            // `new_grad.detach()` — an alias sharing its storage, so a
            // post-accumulate-grad hook's in-place change shows in the node's
            // post hooks. Else a copy laid out like the leaf
            // (`clone_obey_contract`). Expected owners here: `call_node`'s
            // input list and this `grad`. JS handles made inside a hook are
            // not counted (JS cannot tell whether the hook kept them).
            let layout = variable.layout();
            let obeys = crate::layout::obeys_layout_contract(&layout.0, &grad.strides(), &layout.1);
            // A view too (`view::alias`: `.grad` stays a view of its base).
            let steal = grad.owner_count() <= 2 && obeys;
            let stored = if steal {
                crate::view::alias(&grad)?
            } else {
                let copy = Tensor::from_array(grad.to_array()?);
                copy.lay_out_as_grad_copy(&layout)?;
                copy
            };
            variable.meta_mut()?.grad = Some(stored);
        }
        Some(existing) if std::rc::Rc::strong_count(existing.storage()) > 1 => {
            // PyTorch adds in place (`variable_grad += new_grad`). Here the
            // storage is shared with another live tensor: a stolen gradient
            // that a JS hook may have stored (JS cannot tell, see above), or a
            // view of `.grad`. Adding in place would silently change a value
            // the user kept, so `.grad` becomes the sum instead (documented in
            // the README: a kept view of `.grad` is then not updated).
            let sum =
                crate::ops::arith::broadcast_zip(&*existing.data()?, &*grad.data()?, |a, b| a + b)?;
            let stored = Tensor::from_array(sum);
            let (shape, var_strides) = variable.layout();
            if crate::layout::is_non_overlapping_and_dense(&shape, &var_strides) {
                stored.set_strides(var_strides)?;
            }
            variable.meta_mut()?.grad = Some(stored);
        }
        Some(existing) => {
            let sum =
                crate::ops::arith::broadcast_zip(&*existing.data()?, &*grad.data()?, |a, b| a + b)?;
            {
                let mut d = existing
                    .storage()
                    .data
                    .try_borrow_mut()
                    .map_err(|_| Error::internal("grad is busy"))?;
                *d = sum.into();
            }
            existing.storage().bump_version();
            crate::view::sync_if_view(&existing)?;
        }
    }
    after_accumulate(variable)
}

/// The `accumulate` event, then post-accumulate-grad hooks.
#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub(crate) fn after_accumulate(variable: &Tensor) -> Result<()> {
    if trace::is_recording() {
        // Just accumulated: a missing or unreadable .grad is a fault, never
        // an empty gradient in the trace.
        let grad = variable
            .grad_raw()
            .ok_or_else(|| Error::internal("AccumulateGrad left .grad unset"))?
            .to_array()?;
        trace::record(|| Event::Accumulate {
            tensor: variable.id(),
            grad,
        });
    }
    for (handle, hook) in variable.post_accumulate_hook_entries() {
        // Copied before the call: the hook may change `.grad` in place.
        let before = trace::is_recording()
            .then(|| {
                variable
                    .grad_raw()
                    .and_then(|g| crate::error::snapshot(g.to_array()))
            })
            .flatten();
        let returned_a_value = hook.call(variable).map_err(|e| {
            hook_error(
                e,
                (handle, HookKind::PostAccumulate),
                "post-accumulate-grad hook",
                &variable.label(),
                &hook.name(),
            )
        })?;
        if returned_a_value {
            return Err(Error::runtime(
                "Tensor post accumulate grad hooks should return None.",
            ));
        }
        trace::record(|| Event::Hook {
            kind: HookKind::PostAccumulate,
            handle,
            name: hook.name(),
            target: HookTarget::Tensor(variable.id(), variable.name()),
            before: HookValue::One(before),
            after: HookValue::One(
                variable
                    .grad_raw()
                    .and_then(|g| crate::error::snapshot(g.to_array())),
            ),
        });
    }
    Ok(())
}

/// AccumulateGrad's step when its gradient is a number; `false`: not a
/// case for numbers (the caller runs `accumulate` on a tensor).
#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub(crate) fn accumulate_number(variable: &Tensor, slots: &Grads, shares: &Shares) -> Result<bool> {
    let [Some(Grad::Value(n))] = &slots[..] else {
        return Ok(false);
    };
    // As `accumulate`: nothing at all (no event, no hooks).
    if !variable.requires_grad() {
        return Ok(true);
    }
    if !accumulate_value(variable, n, shares)? {
        return Ok(false);
    }
    after_accumulate(variable)?;
    Ok(true)
}

/// AccumulateGrad of a number into a 0-d leaf, as `accumulate` does
/// it (grad mode is off): a gradient no one else holds is stolen, with its
/// version; a shared one is copied (version 1); an existing `.grad` takes
/// it in place. `false`: not a case for numbers (use the tensor path).
#[cfg_attr(hookgrad_nightly, optimize(speed))]
#[inline]
fn accumulate_value(variable: &Tensor, n: &Num, shares: &Shares) -> Result<bool> {
    let v = n.value;
    let Some(existing) = variable.grad_raw() else {
        // PyTorch steals an unshared gradient (its version with it), else
        // copies it (`new_empty_strided().copy_()`: version 1).
        let version = if shares.alone(n) { n.version } else { 1 };
        variable.meta_mut()?.grad = Some(Tensor::scalar_at_version(v, version));
        return Ok(true);
    };
    if std::rc::Rc::strong_count(existing.storage()) > 1 {
        return Ok(false);
    }
    {
        let mut d = existing
            .storage()
            .data
            .try_borrow_mut()
            .map_err(|_| Error::internal("grad is busy"))?;
        // `.grad += grad` in place, as `existing + grad` elementwise.
        match &mut *d {
            Data::Scalar(x) => *x += v,
            Data::Array(a) if a.ndim() == 0 => match a.as_slice_mut() {
                [x] => *x += v,
                _ => return Ok(false),
            },
            Data::Array(_) => return Ok(false),
        }
    }
    existing.storage().bump_version();
    Ok(true)
}
