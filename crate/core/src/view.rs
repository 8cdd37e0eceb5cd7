//! Views sharing storage with their base, as PyTorch's `reshape` (of a
//! contiguous tensor), `transpose`, `t`, `permute`, `expand`, `select`, `slice` and `unbind` return. hookgrad keeps each view's
//! values in its own row-major array (so reads stay plain borrows) and keeps
//! them in sync on every in-place write; base and views share one version
//! counter, so modifying either invalidates tensors saved from the other.
//!
//! Autograd follows PyTorch's `rebase_history` for views: an in-place op on a
//! view makes the base's grad_fn a `CopySlices` wrapping the op, and views of
//! a base modified in place get `AsStridedBackward0` pointing at the base.

use std::rc::{Rc, Weak};

use crate::error::{Error, Result};
use crate::node::{BackwardFn, Node};
use crate::tensor::{Array, Tensor, TensorImpl};

/// One step from a base's values to a view's.
#[derive(Clone, Debug)]
pub enum ViewStep {
    Reshape {
        from: Vec<usize>,
        to: Vec<usize>,
    },
    Transpose {
        d0: usize,
        d1: usize,
    },
    /// `permute`: axis `perm[i]` as axis `i`.
    Permute {
        perm: Vec<usize>,
    },
    /// `expand`: size-1 dims repeated (stride 0). Writes through such a view
    /// are refused (internal overlap), so its inverse only ever maps
    /// gradients back, by summing (PyTorch's `sum_to`).
    Expand {
        from: Vec<usize>,
        to: Vec<usize>,
    },
    /// `select` / `slice` of a tensor of shape `from`: a part of its base,
    /// so writing it back needs the base's other values (`write_back`).
    Part {
        from: Vec<usize>,
        lanes: crate::ops::index::Lanes,
        drop_dim: bool,
    },
}

/// PyTorch's `CreationMeta` (the cases hookgrad has): how a tensor sharing
/// another's memory was made, when that forbids an in-place op on it. The
/// autograd logic for view + in-place (a `CopySlices` over the base) would
/// bypass the backward of the node that made it, so PyTorch raises instead.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CreationMeta {
    #[default]
    Default,
    /// An input a custom Function returned as-is (`BackwardHookFunction`
    /// returns the module's tensors as-is; custom_function.cpp
    /// `_process_backward_mode_ad` marks them `IN_CUSTOM_FUNCTION`).
    InCustomFunction,
    /// One of several differentiable outputs of such a Function
    /// (`MULTI_OUTPUT_NODE`).
    MultiOutputNode,
}

pub const IN_CUSTOM_FUNCTION_REASON: &str = "This view was created inside a custom Function (or because an input was returned as-is) and the autograd logic to handle view+inplace would override the custom backward associated with the custom Function, leading to incorrect gradients. This behavior is forbidden. You can fix this by cloning the output of the custom Function.";
pub const MULTI_OUTPUT_NODE_REASON: &str = "This view is the output of a function that returns multiple views. Such functions do not allow the output views to be modified inplace. You should replace the inplace operation by an out-of-place one.";

/// PyTorch's `handle_view_on_rebase` (variable.cpp), called by every
/// in-place op while grad mode is on, before anything is written: the
/// error for a tensor whose creation forbids in-place ops, named after its
/// grad_fn as PyTorch 2.x prints it ("Output 0 of BackwardHookFunction").
pub fn handle_view_on_rebase(t: &Tensor) -> Result<()> {
    let (creation, output_nr, grad_fn) = {
        let m = t.meta()?;
        (
            m.creation,
            m.output_nr,
            m.grad_fn.as_ref().map(|f| (f.name, f.id)),
        )
    };
    let reason = match creation {
        CreationMeta::Default => return Ok(()),
        CreationMeta::InCustomFunction => IN_CUSTOM_FUNCTION_REASON,
        CreationMeta::MultiOutputNode => MULTI_OUTPUT_NODE_REASON,
    };
    // Only differentiable tensors are marked, and they keep a grad_fn.
    let name = grad_fn
        .map(|(n, _)| crate::saved::op_name(n))
        .unwrap_or_default();
    let e = Error::runtime(format!(
        "Output {output_nr} of {name} is a view and is being modified inplace. {reason}"
    ));
    // The trace's error names the tensor's node, so the figure pins the
    // error on the tensor that refused (not on the module it failed in).
    crate::trace::record_error(&e, grad_fn.map(|(_, id)| id));
    Err(e)
}

/// A view's root base (never itself a view) and the steps from it.
#[derive(Clone)]
pub struct ViewInfo {
    pub base: Tensor,
    pub steps: Vec<ViewStep>,
    /// False for what `detach()` of a view and `.data` return (PyTorch's
    /// non-differentiable views): their values stay in sync with the base,
    /// but an in-place op on them, or on the base, leaves autograd alone.
    pub differentiable: bool,
}

fn reshape(a: &Array, shape: &[usize]) -> Result<Array> {
    a.clone()
        .into_shape(shape)
        .map_err(|e| Error::internal(format!("view reshape failed: {e}")))
}

fn transpose(a: &Array, d0: usize, d1: usize) -> Array {
    a.swapped(d0, d1)
}

/// The view's values from the base's.
pub fn apply(steps: &[ViewStep], base: &Array) -> Result<Array> {
    let mut a = base.clone();
    for s in steps {
        a = match s {
            ViewStep::Reshape { to, .. } => reshape(&a, to)?,
            ViewStep::Transpose { d0, d1 } => transpose(&a, *d0, *d1),
            ViewStep::Permute { perm } => a.permuted(perm),
            ViewStep::Expand { to, .. } => crate::shape::expand(&a, to)?,
            ViewStep::Part {
                lanes, drop_dim, ..
            } => crate::ops::index::part_values(&a, lanes, *drop_dim)?,
        };
    }
    Ok(a)
}

/// The base's values after the view's were written: each step undone in
/// turn, a select / slice putting its part back into the values it was
/// taken from (the base's current ones, replayed up to that step).
pub fn write_back(steps: &[ViewStep], base: &Array, view: &Array) -> Result<Array> {
    // The values before each step, only needed under a `Part` step.
    let partial = steps.iter().any(|s| matches!(s, ViewStep::Part { .. }));
    let mut before = Vec::new();
    if partial {
        let mut a = base.clone();
        for s in steps {
            let next = apply(std::slice::from_ref(s), &a)?;
            before.push(std::mem::replace(&mut a, next));
        }
    }
    let mut a = view.clone();
    for (i, s) in steps.iter().enumerate().rev() {
        a = match s {
            ViewStep::Reshape { from, .. } => reshape(&a, from)?,
            ViewStep::Transpose { d0, d1 } => transpose(&a, *d0, *d1),
            ViewStep::Permute { perm } => a.permuted(&inverse(perm)),
            // Writes through an expanded view are refused (internal
            // overlap), except through a part of one that has none.
            ViewStep::Expand { from, .. } if partial => {
                return Err(Error::runtime(format!(
                    "hookgrad does not support in-place writes through a select or slice of an expanded tensor (of size {}); clone() it first",
                    crate::shape::fmt_shape(from)
                )))
            }
            ViewStep::Expand { from, .. } => crate::shape::sum_to(&a, from),
            ViewStep::Part { lanes, .. } => match before.get(i) {
                Some(full) => lanes.scatter(full, &a),
                None => return Err(Error::internal("a view step without its base values")),
            },
        };
    }
    Ok(a)
}

/// Whether every step covers its whole input (no select / slice).
fn covers_base(steps: &[ViewStep]) -> bool {
    !steps.iter().any(|s| matches!(s, ViewStep::Part { .. }))
}

/// `apply` with differentiable ops, for gradients (`create_graph`).
pub fn apply_t(steps: &[ViewStep], base: &Tensor) -> Result<Tensor> {
    let mut t = base.clone();
    for s in steps {
        t = match s {
            ViewStep::Reshape { to, .. } => t.reshape(&to_i64(to))?,
            ViewStep::Transpose { d0, d1 } => t.transpose(*d0 as i64, *d1 as i64)?,
            ViewStep::Permute { perm } => crate::ops::views::permute_axes(&t, perm.clone())?,
            ViewStep::Expand { to, .. } => t.expand(&to_i64(to))?,
            ViewStep::Part {
                lanes, drop_dim, ..
            } => crate::ops::index::apply_part(&t, *lanes, *drop_dim)?,
        };
    }
    Ok(t)
}

/// A view's gradient as its base's, with differentiable ops (zeros where
/// the view does not reach).
pub fn invert_t(steps: &[ViewStep], view: &Tensor) -> Result<Tensor> {
    let mut t = view.clone();
    for s in steps.iter().rev() {
        t = match s {
            ViewStep::Reshape { from, .. } => t.reshape(&to_i64(from))?,
            ViewStep::Transpose { d0, d1 } => t.transpose(*d0 as i64, *d1 as i64)?,
            ViewStep::Permute { perm } => crate::ops::views::permute_axes(&t, inverse(perm))?,
            ViewStep::Expand { from, .. } => crate::ops::reduce::sum_to(&t, from)?,
            ViewStep::Part {
                from,
                lanes,
                drop_dim,
            } => crate::ops::index::part_backward(&t, from, *lanes, *drop_dim)?,
        };
    }
    Ok(t)
}

/// CopySlices' result for the base: `base_grad` with the view's region
/// replaced by `view_grad` mapped back, or zeroed when the op gave none
/// (PyTorch: `grad_slice.copy_(res[0])` / `grad_slice.zero_()` on a clone
/// of the base's gradient). `None` when nothing of the base's gradient is
/// left (the view covers the whole base and the op gave none).
pub fn replace_t(
    steps: &[ViewStep],
    base_grad: &Tensor,
    view_grad: Option<&Tensor>,
) -> Result<Option<Tensor>> {
    let back = view_grad.map(|g| invert_t(steps, g)).transpose()?;
    if covers_base(steps) {
        return Ok(back);
    }
    // 1 outside the view's region, 0 inside.
    let view_shape = apply(steps, &Array::zeros(&base_grad.shape()))?;
    let outside = write_back(
        steps,
        &Array::ones(&base_grad.shape()),
        &Array::zeros(view_shape.shape()),
    )?;
    let kept = base_grad.mul(&crate::ops::constant(outside))?;
    Ok(Some(match back {
        Some(b) => kept.add(&b)?,
        None => kept,
    }))
}

/// The permutation that undoes `perm`.
pub(crate) fn inverse(perm: &[usize]) -> Vec<usize> {
    let mut inv = vec![0; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        if let Some(slot) = inv.get_mut(p) {
            *slot = i;
        }
    }
    inv
}

fn to_i64(s: &[usize]) -> Vec<i64> {
    s.iter().map(|&d| d as i64).collect()
}

/// Makes `view` (fresh from a view op on `input`) a view of `input`'s root.
pub fn link(input: &Tensor, view: &Tensor, step: ViewStep) -> Result<()> {
    let (base, mut steps, differentiable) = match input.view_info() {
        Some(info) => (info.base, info.steps, info.differentiable),
        None => (input.clone(), Vec::new(), true),
    };
    steps.push(step);
    // Share the input's version counter: the base's, except through a
    // `.data` alias, which has its own (PyTorch: a view shares its base's).
    view.storage().share_version_with(input.storage());
    add_view(&base, view)?;
    // PyTorch's `propagate_creation_meta`: a view of a tensor that refuses
    // in-place ops refuses them too ("Output 0 of Select is a view…").
    let creation = input.meta()?.creation;
    let mut m = view.meta_mut()?;
    m.view = Some(ViewInfo {
        base,
        steps,
        differentiable,
    });
    if differentiable {
        m.creation = creation;
    }
    Ok(())
}

/// `t.detach()` (`share_version`) or PyTorch's `t.data` (a version counter
/// of its own, so in-place changes through it escape autograd's saved-tensor
/// check): no history, the same values both ways. Of a view, or as `.data`,
/// a non-differentiable view of `t`'s base.
pub fn detached(t: &Tensor, share_version: bool) -> Result<Tensor> {
    let info = t.view_info();
    if share_version && info.is_none() {
        return Ok(t.detach());
    }
    let a = if share_version {
        t.detach()
    } else {
        let a = Tensor::from_array(t.to_array()?);
        if t.has_strides() {
            a.set_strides(t.strides())?;
        }
        a
    };
    let (base, steps) = match info {
        Some(info) => (info.base, info.steps),
        None => (t.clone(), Vec::new()),
    };
    add_view(&base, &a)?;
    a.meta_mut()?.view = Some(ViewInfo {
        base,
        steps,
        differentiable: false,
    });
    Ok(a)
}

/// A new tensor sharing `t`'s storage, with no history (`t.detach()`), that
/// stays a view of `t`'s base when `t` is one: AccumulateGrad's stolen
/// `.grad` (PyTorch takes a view over too — `x.unsqueeze(0).expand(2, 3)`:
/// UnsqueezeBackward0's squeeze of the gradient — and its
/// `new_grad.detach()` aliases the view's memory, so an in-place change of
/// `.grad` shows in the view's base).
pub fn alias(t: &Tensor) -> Result<Tensor> {
    let a = t.detach();
    if let Some(info) = t.view_info() {
        add_view(&info.base, &a)?;
        a.meta_mut()?.view = Some(info);
    }
    Ok(a)
}

/// `sync_after_write` for a tensor that is a view (AccumulateGrad's in-place
/// sum into a `.grad` it took over as a view: its base sees it, as PyTorch's
/// `+=` on the shared memory shows there).
pub fn sync_if_view(t: &Tensor) -> Result<()> {
    if t.view_info().is_some() {
        sync_after_write(t)?;
    }
    Ok(())
}

/// Registers `view` on `base`, dropping the entries of views gone since: a
/// parameter viewed every step (`w.t()` in `F.linear`, `w[0]`) would
/// otherwise keep one dead entry (and its allocation) per step.
fn add_view(base: &Tensor, view: &Tensor) -> Result<()> {
    let mut m = base.meta_mut()?;
    m.views.retain(|w: &Weak<TensorImpl>| w.strong_count() > 0);
    m.views.push(Rc::downgrade(&view.0));
    Ok(())
}

fn live_views(base: &Tensor) -> Vec<Tensor> {
    let mut out = Vec::new();
    if let Ok(mut m) = base.meta_mut() {
        m.views.retain(|w: &Weak<TensorImpl>| w.strong_count() > 0);
        out = m
            .views
            .iter()
            .filter_map(|w| w.upgrade())
            .map(Tensor)
            .collect();
    }
    out
}

fn set_data(t: &Tensor, a: Array) -> Result<()> {
    let mut d = t
        .storage()
        .data
        .try_borrow_mut()
        .map_err(|_| Error::internal("tensor data is busy"))?;
    *d = a.into();
    Ok(())
}

/// After an in-place write to `t`: propagate to its base (if `t` is a view)
/// and refresh every other view of that base.
pub fn sync_after_write(t: &Tensor) -> Result<()> {
    let base = match t.view_info() {
        Some(info) => {
            let base_values = write_back(&info.steps, &*info.base.data()?, &*t.data()?)?;
            set_data(&info.base, base_values)?;
            info.base
        }
        None => t.clone(),
    };
    let base_values = base.to_array()?;
    for v in live_views(&base) {
        if v.ptr_eq(t) {
            continue;
        }
        if let Some(info) = v.view_info() {
            set_data(&v, apply(&info.steps, &base_values)?)?;
        }
    }
    Ok(())
}

/// Gives every live view of `base` a fresh `AsStridedBackward0` onto the
/// base's current history (after the base, or one of its views, changed in
/// place).
pub fn regenerate_view_grad_fns(
    base: &Tensor,
    rebase: impl Fn(&Tensor, Rc<Node>) -> Result<()>,
) -> Result<()> {
    if !base.requires_grad() {
        return Ok(());
    }
    for v in live_views(base) {
        let Some(info) = v.view_info().filter(|i| i.differentiable) else {
            continue;
        };
        let steps = info.steps.clone();
        let view_shape = v.shape();
        let backward: BackwardFn = Box::new(move |ctx| {
            let g = crate::ops::grad_in(ctx.grads, &view_shape);
            Ok(vec![Some(invert_t(&steps, &g)?)])
        });
        let node = Node::new_op(
            "AsStridedBackward0",
            vec![base.gradient_edge()],
            vec![v.shape()],
            Vec::new(),
            backward,
        );
        rebase(&v, node.clone())?;
        node.add_output(&v);
    }
    Ok(())
}
