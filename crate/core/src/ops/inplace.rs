//! In-place add_ sub_ mul_ div_ zero_. They write into the tensor's shared
//! storage and bump its version (so backward can detect a saved tensor that
//! changed), then rebase the tensor's history onto a new node whose first
//! edge is the tensor's previous grad_fn — PyTorch's `rebase_history`.

use std::rc::Rc;

use super::arith::broadcast_zip;
use super::{constant, grad_in, need, needs_graph, Operand};
use crate::context;
use crate::error::{Error, Result};
use crate::hooks::{LazyHooks, TensorHookEntry};
use crate::node::{BackwardFn, Node, SavedTensor};
use crate::shape::fmt_shape;
use crate::tensor::{Array, Tensor};
use crate::trace;

pub const LEAF_INPLACE_ERROR: &str =
    "a leaf Variable that requires grad is being used in an in-place operation.";
/// PyTorch's `assert_no_internal_overlap` (an in-place op on an `expand`ed tensor).
pub const INTERNAL_OVERLAP_ERROR: &str = "unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.";
pub const VIEW_OF_LEAF_INPLACE_ERROR: &str =
    "a view of a leaf Variable that requires grad is being used in an in-place operation.";

/// `other_edge`: whether `other` is an input of the node (a number given to
/// `fill_` is not: `FillBackward2` has one edge).
pub(crate) fn inplace(
    t: &Tensor,
    name: &'static str,
    other: Option<&Operand>,
    other_edge: bool,
    f: fn(f32, f32) -> f32,
    // `dyn`, not generic: one copy of this function for the five ops
    // instead of one each (issue 10, W5: ~2 KB gzip of the wasm).
    save: &dyn Fn(&Array, Option<crate::node::Edge>) -> Vec<SavedTensor>,
    backward: BackwardFn,
) -> Result<Tensor> {
    inplace_node(t, name, other, other_edge, f, save, backward)?;
    Ok(t.clone())
}

/// `inplace`, giving back the node it made (`None` when no graph was
/// recorded): relu_ saves its result on it after the write.
fn inplace_node(
    t: &Tensor,
    name: &'static str,
    other: Option<&Operand>,
    other_edge: bool,
    f: fn(f32, f32) -> f32,
    save: &dyn Fn(&Array, Option<crate::node::Edge>) -> Vec<SavedTensor>,
    backward: BackwardFn,
) -> Result<Option<Rc<Node>>> {
    // A `.data` / detached alias syncs its values but is no view for autograd.
    let view = t.view_info().filter(|i| i.differentiable);
    if context::is_grad_enabled() {
        // PyTorch's check_inplace: the view check comes before the leaf ones.
        crate::view::handle_view_on_rebase(t)?;
        match &view {
            Some(info) if info.base.is_leaf() && info.base.requires_grad() => {
                return Err(Error::runtime(VIEW_OF_LEAF_INPLACE_ERROR));
            }
            None if t.is_leaf() && t.requires_grad() => {
                return Err(Error::runtime(LEAF_INPLACE_ERROR))
            }
            _ => {}
        }
    }
    let (shape, strides) = t.layout();
    if crate::layout::has_internal_overlap(&shape, &strides) {
        return Err(Error::runtime(INTERNAL_OVERLAP_ERROR));
    }
    let old = t.to_array()?;
    let rhs = match other {
        Some(o) => o.array()?,
        None => Array::zeros(&[]),
    };
    let new = broadcast_zip(&old, &rhs, f)?;
    if new.shape() != old.shape() {
        return Err(Error::runtime(format!(
            "output with shape {} doesn't match the broadcast shape {}",
            fmt_shape(old.shape()),
            fmt_shape(new.shape())
        )));
    }
    let other_t = other.and_then(|o| o.tensor());
    let graph = needs_graph(&[Some(t), other_t]);
    // Edges are taken before the write: they point at the old history.
    let node = if graph {
        let other_edge = other
            .filter(|_| other_edge)
            .map(|_| other_t.and_then(|o| o.gradient_edge()));
        let saved = save(&old, t.gradient_edge());
        if let Some(e) = context::take_pending_error() {
            return Err(e);
        }
        Some(match &view {
            None => {
                let next = std::iter::once(t.gradient_edge())
                    .chain(other_edge)
                    .collect();
                Node::new_op(name, next, vec![old.shape().to_vec()], saved, backward)
            }
            Some(info) => copy_slices(info, other_edge, saved, backward),
        })
    } else {
        None
    };
    {
        let mut data = t
            .storage()
            .data
            .try_borrow_mut()
            .map_err(|_| Error::internal("tensor data is busy"))?;
        *data = new.into();
    }
    t.storage().bump_version();
    crate::view::sync_after_write(t)?;
    if let Some(node) = node {
        // The tensor whose history changes: the view's base for a view.
        let owner = view
            .as_ref()
            .map(|i| i.base.clone())
            .unwrap_or_else(|| t.clone());
        rebase_history(&owner, node.clone())?;
        node.add_output(&owner);
        crate::view::regenerate_view_grad_fns(&owner, rebase_history)?;
        let inputs: Vec<&Tensor> = std::iter::once(t).chain(other_t).collect();
        trace::record_op(node.id, node.name, &inputs, t);
        return Ok(Some(node));
    }
    Ok(None)
}

/// PyTorch's `CopySlices`: the base's new grad_fn after an in-place op on one
/// of its views. Backward takes the base's gradient, runs the op's backward
/// on the view's part of it, and puts the result back in the base's layout.
fn copy_slices(
    info: &crate::view::ViewInfo,
    other_edge: Option<Option<crate::node::Edge>>,
    saved: Vec<SavedTensor>,
    op_backward: BackwardFn,
) -> Rc<Node> {
    let steps = info.steps.clone();
    let base_shape = info.base.shape();
    let next = std::iter::once(info.base.gradient_edge())
        .chain(other_edge)
        .collect();
    let shape = base_shape.clone();
    Node::new_op(
        "CopySlices",
        next,
        vec![base_shape],
        saved,
        Box::new(move |ctx| {
            let g = grad_in(ctx.grads, &shape);
            let slice = crate::view::apply_t(&steps, &g)?;
            let slice_shape = slice.shape();
            let inner = op_backward(&crate::node::BackwardCtx {
                grads: &[Some(slice)],
                shape: &slice_shape,
                param: ctx.param,
                saved: ctx.saved,
                needs: ctx.needs,
            })?;
            let mut out = Vec::with_capacity(inner.len());
            let mut parts = inner.into_iter();
            // The base's gradient outside the view passes through as is.
            let gs = parts.next().flatten();
            out.push(crate::view::replace_t(&steps, &g, gs.as_ref())?);
            out.extend(parts);
            Ok(out)
        }),
    )
}

/// Points `t` at its new grad_fn. Hooks registered before stay on the old
/// node (they see the gradient of the old value, as in PyTorch 2); a
/// retain-grad moves to the new node.
fn rebase_history(t: &Tensor, node: Rc<Node>) -> Result<()> {
    let retains = t.retains_grad();
    if retains {
        // PyTorch 2 moves retain_grad to the new grad_fn: drop the old one.
        let old = t.meta()?.hooks.get().cloned();
        for old in old.iter() {
            for (id, entry) in old.snapshot() {
                if matches!(entry, TensorHookEntry::RetainGrad(_)) {
                    crate::hooks::RemoveHook::remove_hook(&**old, id);
                }
            }
        }
    }
    {
        let mut m = t.meta_mut()?;
        m.grad_fn = Some(node.clone());
        m.output_nr = 0;
        m.hooks = LazyHooks::default();
        m.hooks_registered_on_node = false;
    }
    if retains {
        let list = t.meta()?.hooks.get_or_create();
        list.add(TensorHookEntry::RetainGrad(Rc::downgrade(&t.0)), false);
        node.add_tensor_pre_hooks(0, t.id(), list);
        t.meta_mut()?.hooks_registered_on_node = true;
    }
    Ok(())
}

fn pass_through(negate_other: bool) -> BackwardFn {
    Box::new(move |ctx| {
        let g = ctx.grads.first().cloned().flatten();
        let go = match (&g, ctx.needs.get(1).copied().unwrap_or(false)) {
            (Some(g), true) if negate_other => Some(g.neg()?),
            (Some(g), true) => Some(g.clone()),
            _ => None,
        };
        Ok(vec![g, go])
    })
}

pub fn add_(t: &Tensor, other: &Operand) -> Result<Tensor> {
    inplace(
        t,
        "AddBackward0",
        Some(other),
        true,
        |x, y| x + y,
        &|_, _| Vec::new(),
        pass_through(false),
    )
}

pub fn sub_(t: &Tensor, other: &Operand) -> Result<Tensor> {
    inplace(
        t,
        "SubBackward0",
        Some(other),
        true,
        |x, y| x - y,
        &|_, _| Vec::new(),
        pass_through(true),
    )
}

fn other_saved(other: &Operand) -> SavedTensor {
    match other {
        Operand::Tensor(o) => SavedTensor::save(o),
        Operand::Scalar(s) => SavedTensor::save_copy(Array::scalar(*s)),
    }
}

/// PyTorch's `original_self` for an in-place op whose `other` gradient needs
/// self (saved after `other`, as PyTorch packs them): `self.clone()` taken before the write (a `CloneBackward0` over the
/// old history, so a double backward goes through it), saved only when
/// `other` requires grad (`should_compute_output(1)`).
fn original_self(t: &Tensor, other: &Operand) -> SavedTensor {
    match other.tensor() {
        Some(o) if o.requires_grad() => match super::shape_ops::clone(t) {
            Ok(c) => SavedTensor::save(&c),
            Err(e) => {
                context::set_pending_error(e);
                SavedTensor::empty()
            }
        },
        _ => SavedTensor::empty(),
    }
}

pub fn mul_(t: &Tensor, other: &Operand) -> Result<Tensor> {
    let shape = t.shape();
    let o = other.clone();
    let tc = t.clone();
    inplace(
        t,
        "MulBackward0",
        Some(other),
        true,
        |x, y| x * y,
        &|_, _| vec![other_saved(&o), original_self(&tc, &o)],
        Box::new(move |ctx| {
            let g = grad_in(ctx.grads, &shape);
            let gs = need(ctx.needs, 0, || g.mul(&ctx.saved[0]))?;
            let go = need(ctx.needs, 1, || g.mul(&ctx.saved[1]))?;
            Ok(vec![gs, go])
        }),
    )
}

pub fn div_(t: &Tensor, other: &Operand) -> Result<Tensor> {
    let shape = t.shape();
    let o = other.clone();
    let tc = t.clone();
    inplace(
        t,
        "DivBackward0",
        Some(other),
        true,
        |x, y| x / y,
        &|_, _| vec![other_saved(&o), original_self(&tc, &o)],
        Box::new(move |ctx| {
            let g = grad_in(ctx.grads, &shape);
            let (y, x) = (&ctx.saved[0], &ctx.saved[1]);
            let gs = need(ctx.needs, 0, || g.div(y))?;
            // PyTorch div_tensor_other_backward: -grad * ((self / other) / other).
            let go = need(ctx.needs, 1, || g.neg()?.mul(&x.div(y)?.div(y)?))?;
            Ok(vec![gs, go])
        }),
    )
}

pub fn zero_(t: &Tensor) -> Result<Tensor> {
    let shape = t.shape();
    inplace(
        t,
        "ZeroBackward0",
        None,
        false,
        |_, _| 0.0,
        &|_, _| Vec::new(),
        Box::new(move |_ctx| Ok(vec![Some(constant(Array::zeros(&shape)))])),
    )
}

/// `relu_()` (`nn.ReLU(inplace=True)`, `F.relu(x, inplace=True)`):
/// `ReluBackward0` like `relu`, saving its result — which is `t` after the
/// write. PyTorch saves it after `rebase_history`, at the bumped version, so
/// a later in-place change of `t` fails backward ("…output 0 of
/// ReluBackward0, is at version 2; expected version 1").
pub fn relu_(t: &Tensor) -> Result<Tensor> {
    let node = inplace_node(
        t,
        "ReluBackward0",
        None,
        false,
        |x, _| super::unary::relu_value(x),
        &|_, _| Vec::new(),
        Box::new(|ctx| {
            let g = grad_in(ctx.grads, ctx.shape);
            let y = ctx
                .saved
                .first()
                .ok_or_else(|| Error::internal("relu_ lost its saved result"))?;
            Ok(vec![Some(super::backward_ops::threshold_backward(&g, y)?)])
        }),
    )?;
    if let Some(node) = node {
        // The node's own output, held without its grad_fn (no cycle).
        let st = SavedTensor::save_output(t);
        if let Some(e) = context::take_pending_error() {
            return Err(e);
        }
        node.add_saved(st)?;
    }
    Ok(t.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::*;

    #[test]
    fn inplace_on_leaf_requiring_grad_is_an_error() {
        let a = leaf(&[1.0], &[1]);
        let e = add_(&a, &Operand::Scalar(1.0)).err().map(|e| e.to_string());
        assert_eq!(e.as_deref(), Some(LEAF_INPLACE_ERROR));
        // ...but allowed under no_grad, bumping the version.
        ok(context::no_grad(|| add_(&a, &Operand::Scalar(1.0))));
        assert_eq!(values(&a), vec![2.0]);
        assert_eq!(a.version(), 1);
    }

    #[test]
    fn inplace_rebases_history_and_gradients_flow() {
        // c = a * 2; c.mul_(b); loss = c.sum()  → dc/da = 2b, dc/db = 2a
        let a = leaf(&[1.0, 2.0], &[2]);
        let b = leaf(&[3.0, 4.0], &[2]);
        let c = ok(crate::ops::arith::mul(&a, &Operand::Scalar(2.0)));
        let c2 = ok(mul_(&c, &Operand::Tensor(b.clone())));
        assert!(c2.ptr_eq(&c));
        assert_eq!(c.grad_fn().map(|f| f.name), Some("MulBackward0"));
        let s = ok(crate::ops::reduce::sum(&c));
        ok(crate::engine::backward(&s, None, false, None));
        assert_eq!(grad_values(&a), vec![6.0, 8.0]);
        assert_eq!(grad_values(&b), vec![2.0, 4.0]);
    }

    #[test]
    fn modifying_a_saved_tensor_fails_backward() {
        let a = leaf(&[1.0, 2.0, 3.0], &[3]);
        let b = ok(crate::ops::arith::mul(&a, &Operand::Scalar(2.0)));
        let c = ok(crate::ops::arith::mul(&b, &Operand::Tensor(b.clone())));
        ok(add_(&b, &Operand::Scalar(1.0)));
        let s = ok(crate::ops::reduce::sum(&c));
        let e = crate::engine::backward(&s, None, false, None)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert_eq!(e, "one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [3]], which is output 0 of Add, is at version 1; expected version 0 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).");
    }
}
