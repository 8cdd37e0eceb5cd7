//! reshape / view, transpose, t, clone, unsqueeze, squeeze, expand. hookgrad copies
//! data instead of sharing strides, but keeps PyTorch's node names: a
//! reshape of a contiguous tensor is a view (`ViewBackward0`); of a
//! transposed one, a copy (`CloneBackward0`) then `UnsafeViewBackward0`.

use super::{grad_in, record};
use crate::error::{Error, Result};
use crate::shape::{infer_shape, wrap_dim};
use crate::tensor::{Array, Tensor};

fn reshaped(a: &Array, shape: &[usize]) -> Result<Array> {
    a.clone()
        .into_shape(shape)
        .map_err(|e| Error::internal(format!("reshape failed: {e}")))
}

/// How a reshape-like node's backward maps the gradient back (PyTorch's
/// formulas, so a double backward records the same nodes).
#[derive(Clone)]
pub(crate) enum Inverse {
    /// `grad.reshape(self.sizes())` (view, _reshape_alias, _unsafe_view).
    Reshape,
    /// `grad.squeeze(dim)` (unsqueeze).
    Squeeze(usize),
    /// `unsqueeze_to(grad, …)`: unsqueeze at each dim, in order (squeeze).
    Unsqueeze(Vec<usize>),
}

/// A node whose backward reshapes the gradient back to `from`.
pub(crate) fn reshape_node(a: &Tensor, name: &'static str, to: &[usize]) -> Result<Tensor> {
    reshape_node_with(a, name, to, Inverse::Reshape)
}

pub(crate) fn reshape_node_with(
    a: &Tensor,
    name: &'static str,
    to: &[usize],
    inverse: Inverse,
) -> Result<Tensor> {
    let from = a.shape();
    let out = reshaped(&*a.data()?, to)?;
    let to_owned = to.to_vec();
    let from_i: Vec<i64> = from.iter().map(|&d| d as i64).collect();
    record(
        name,
        &[Some(a)],
        out,
        Vec::new,
        Box::new(move |ctx| {
            let mut g = grad_in(ctx.grads, &to_owned);
            match &inverse {
                Inverse::Reshape => g = reshape(&g, &from_i)?,
                Inverse::Squeeze(d) => g = squeeze(&g, Some(*d as i64))?,
                Inverse::Unsqueeze(dims) => {
                    for &d in dims {
                        g = unsqueeze(&g, d)?;
                    }
                }
            }
            Ok(vec![Some(g)])
        }),
    )
}

/// PyTorch's `reshape` (TensorShape.cpp): a `view` of a contiguous tensor
/// (`ViewBackward0`); else `_reshape_alias` when `computeStride` finds strides
/// (`ReshapeAliasBackward0`, still a view); else a contiguous copy and
/// `_unsafe_view` (`UnsafeViewBackward0` over `CloneBackward0`).
pub fn reshape(a: &Tensor, shape: &[i64]) -> Result<Tensor> {
    let target = infer_shape(shape, a.numel())?;
    let (from, strides) = a.layout();
    if a.is_contiguous() {
        let v = reshape_node(a, "ViewBackward0", &target)?;
        crate::view::link(a, &v, crate::view::ViewStep::Reshape { from, to: target })?;
        return Ok(v);
    }
    match crate::layout::compute_stride(&from, &strides, &target) {
        Some(view_strides) => {
            let v = reshape_node(a, "ReshapeAliasBackward0", &target)?;
            v.set_strides(view_strides)?;
            crate::view::link(a, &v, crate::view::ViewStep::Reshape { from, to: target })?;
            Ok(v)
        }
        None => {
            let copy = clone_with(a, false)?;
            reshape_node(&copy, "UnsafeViewBackward0", &target)
        }
    }
}

/// `t.view(shape)`: always a view (`ViewBackward0`); PyTorch's error when
/// the strides cannot give the new shape (where `reshape` would copy).
pub fn view(a: &Tensor, shape: &[i64]) -> Result<Tensor> {
    let target = infer_shape(shape, a.numel())?;
    let (from, strides) = a.layout();
    let Some(view_strides) = crate::layout::compute_stride(&from, &strides, &target) else {
        return Err(Error::runtime("view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead."));
    };
    let v = reshape_node(a, "ViewBackward0", &target)?;
    v.set_strides(view_strides)?;
    crate::view::link(a, &v, crate::view::ViewStep::Reshape { from, to: target })?;
    Ok(v)
}

/// `t.contiguous()`: the tensor itself when contiguous, else a row-major
/// copy (`CloneBackward0`).
pub fn contiguous(a: &Tensor) -> Result<Tensor> {
    if a.is_contiguous() {
        return Ok(a.clone());
    }
    clone_with(a, false)
}

pub fn unsqueeze(a: &Tensor, dim: usize) -> Result<Tensor> {
    let mut shape = a.shape();
    if dim > shape.len() {
        return Err(Error::Index(format!(
            "Dimension out of range (expected to be in range of [{}, {}], but got {dim})",
            -(shape.len() as i64) - 1,
            shape.len()
        )));
    }
    // PyTorch's `inferUnsqueezeGeometry`: the new dim's stride spans the dim after it.
    let mut strides = a.strides();
    let new_stride = if dim >= strides.len() {
        1
    } else {
        shape[dim] * strides[dim]
    };
    strides.insert(dim, new_stride);
    shape.insert(dim, 1);
    // PyTorch: grad.squeeze(dim).
    view_node(
        a,
        "UnsqueezeBackward0",
        &shape,
        strides,
        Inverse::Squeeze(dim),
    )
}

/// `t.unsqueeze(dim)`: `dim` in `[-ndim-1, ndim]`.
pub fn unsqueeze_at(a: &Tensor, dim: i64) -> Result<Tensor> {
    let d = wrap_dim(dim, a.ndim() + 1)?;
    unsqueeze(a, d)
}

/// `t.squeeze()` (every size-1 dim, `SqueezeBackward0`) or `t.squeeze(dim)`
/// (that dim if its size is 1, `SqueezeBackward1`). Both are views.
pub fn squeeze(a: &Tensor, dim: Option<i64>) -> Result<Tensor> {
    let (shape, strides) = a.layout();
    let dim = dim.map(|d| wrap_dim(d, shape.len())).transpose()?;
    let keep = |i: usize| match dim {
        None => shape[i] != 1,
        Some(d) => i != d || shape[i] != 1,
    };
    let to: Vec<usize> = (0..shape.len())
        .filter(|&i| keep(i))
        .map(|i| shape[i])
        .collect();
    let st: Vec<usize> = (0..shape.len())
        .filter(|&i| keep(i))
        .map(|i| strides[i])
        .collect();
    let name = if dim.is_none() {
        "SqueezeBackward0"
    } else {
        "SqueezeBackward1"
    };
    // PyTorch: unsqueeze_to(grad, …): back at each removed dim.
    let removed = (0..shape.len()).filter(|&i| !keep(i)).collect();
    view_node(a, name, &to, st, Inverse::Unsqueeze(removed))
}

pub fn squeeze_dim(a: &Tensor, dim: usize) -> Result<Tensor> {
    let mut shape = a.shape();
    let mut removed = Vec::new();
    if shape.get(dim) == Some(&1) {
        shape.remove(dim);
        removed.push(dim);
    }
    reshape_node_with(a, "SqueezeBackward4", &shape, Inverse::Unsqueeze(removed))
}

/// A reshape-like view (unsqueeze, squeeze): a node plus the view link;
/// `strides` is the view's layout.
fn view_node(
    a: &Tensor,
    name: &'static str,
    to: &[usize],
    strides: Vec<usize>,
    inverse: Inverse,
) -> Result<Tensor> {
    let from = a.shape();
    let v = reshape_node_with(a, name, to, inverse)?;
    v.set_strides(strides)?;
    crate::view::link(
        a,
        &v,
        crate::view::ViewStep::Reshape {
            from,
            to: to.to_vec(),
        },
    )?;
    Ok(v)
}

/// `t.expand(sizes)`: a view repeating size-1 dims (stride 0); `-1` keeps a
/// size; new leading dims may be added. Backward sums the gradient back.
pub fn expand(a: &Tensor, sizes: &[i64]) -> Result<Tensor> {
    let (from, from_strides) = a.layout();
    let target = expand_target(&from, sizes)?;
    // PyTorch's `inferExpandGeometry`: new and repeated dims get stride 0.
    let lead = target.len() - from.len();
    let strides: Vec<usize> = (0..target.len())
        .map(|i| {
            if i < lead || from[i - lead] != target[i] {
                0
            } else {
                from_strides[i - lead]
            }
        })
        .collect();
    let out = crate::shape::expand(&*a.data()?, &target)?;
    let back = from.clone();
    let t = record(
        "ExpandBackward0",
        &[Some(a)],
        out,
        Vec::new,
        // PyTorch: at::sum_to(grad, self.sizes()).
        Box::new(move |ctx| {
            let g = ctx.grads.first().cloned().flatten();
            Ok(vec![match g {
                Some(g) => Some(super::reduce::sum_to(&g, &back)?),
                None => None,
            }])
        }),
    )?;
    t.set_strides(strides)?;
    crate::view::link(
        a,
        &t,
        crate::view::ViewStep::Expand {
            from,
            to: target.clone(),
        },
    )?;
    Ok(t)
}

/// PyTorch's `inferExpandGeometry` checks and messages.
fn expand_target(from: &[usize], sizes: &[i64]) -> Result<Vec<usize>> {
    let shape_str = |v: &[i64]| {
        format!(
            "[{}]",
            v.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let from_i: Vec<i64> = from.iter().map(|&d| d as i64).collect();
    if sizes.len() < from.len() {
        return Err(Error::runtime(format!(
            "expand(torch.FloatTensor{{{}}}, size=[{}]): the number of sizes provided ({}) must be greater or equal to the number of dimensions in the tensor ({})",
            shape_str(&from_i),
            sizes.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", "),
            sizes.len(),
            from.len()
        )));
    }
    let lead = sizes.len() - from.len();
    let mut out = Vec::with_capacity(sizes.len());
    for (i, &s) in sizes.iter().enumerate() {
        if i < lead {
            if s < 0 {
                return Err(Error::runtime(format!(
                    "The expanded size of the tensor ({s}) isn't allowed in a leading, non-existing dimension {i}"
                )));
            }
            out.push(s as usize);
            continue;
        }
        let have = from[i - lead];
        let want = if s == -1 { have as i64 } else { s };
        if want < 0 {
            return Err(Error::runtime(format!(
                "Trying to create tensor with negative dimension {want}: {}",
                shape_str(sizes)
            )));
        }
        if have != 1 && want as usize != have {
            return Err(Error::runtime(format!(
                "The expanded size of the tensor ({want}) must match the existing size ({have}) at non-singleton dimension {i}.  Target sizes: {}.  Tensor sizes: {}",
                shape_str(sizes),
                shape_str(&from_i)
            )));
        }
        out.push(want as usize);
    }
    crate::shape::checked_numel(&out)?;
    Ok(out)
}

/// The values with axes `d0` and `d1` swapped, row-major (a copy for a 0-d
/// or 1-d array).
fn swap(a: &Array, d0: usize, d1: usize) -> Array {
    a.swapped(d0, d1)
}

fn transpose_node(a: &Tensor, name: &'static str, d0: usize, d1: usize) -> Result<Tensor> {
    let out = swap(&*a.data()?, d0, d1);
    let out_shape = out.shape().to_vec();
    let mut strides = a.strides();
    if d0 != d1 && d0 < strides.len() && d1 < strides.len() {
        strides.swap(d0, d1);
    }
    let t = record(
        name,
        &[Some(a)],
        out,
        Vec::new,
        // PyTorch: grad.transpose(dim0, dim1) / grad.t().
        Box::new(move |ctx| {
            let g = grad_in(ctx.grads, &out_shape);
            Ok(vec![Some(transpose_node(&g, name, d0, d1)?)])
        }),
    )?;
    // A transpose is a strided view in PyTorch: the strides swap.
    t.set_strides(strides)?;
    crate::view::link(a, &t, crate::view::ViewStep::Transpose { d0, d1 })?;
    Ok(t)
}

pub fn transpose(a: &Tensor, d0: i64, d1: i64) -> Result<Tensor> {
    let n = a.ndim();
    let (d0, d1) = (wrap_dim(d0, n)?, wrap_dim(d1, n)?);
    if n == 0 {
        return transpose_node(a, "TransposeBackward0", 0, 0);
    }
    transpose_node(a, "TransposeBackward0", d0, d1)
}

pub fn t(a: &Tensor) -> Result<Tensor> {
    let n = a.ndim();
    if n > 2 {
        return Err(Error::runtime(format!(
            "t() expects a tensor with <= 2 dimensions, but self is {n}D"
        )));
    }
    if n < 2 {
        return transpose_node(a, "TBackward0", 0, 0);
    }
    transpose_node(a, "TBackward0", 0, 1)
}

/// `t.clone()`: PyTorch's default `MemoryFormat::Preserve` keeps a dense
/// layout (so `x.t().clone()` is still not contiguous).
pub fn clone(a: &Tensor) -> Result<Tensor> {
    clone_with(a, true)
}

/// `clone(memory_format=preserve)` or `clone(memory_format=contiguous)`.
pub(crate) fn clone_with(a: &Tensor, preserve: bool) -> Result<Tensor> {
    let out = a.to_array()?;
    let shape = out.shape().to_vec();
    let t = record(
        "CloneBackward0",
        &[Some(a)],
        out,
        Vec::new,
        Box::new(move |ctx| Ok(vec![Some(grad_in(ctx.grads, &shape))])),
    )?;
    if preserve {
        let (s, st) = a.layout();
        t.set_strides(crate::layout::preserve_strides(&s, &st))?;
    }
    Ok(t)
}

/// AccumulateGrad's differentiable copy under `create_graph`
/// (`new_empty_strided(variable layout).copy_(grad)`: `CopyBackwards`).
pub(crate) fn copy_backwards(g: &Tensor, layout: &(Vec<usize>, Vec<usize>)) -> Result<Tensor> {
    let out = g.to_array()?;
    let shape = out.shape().to_vec();
    let t = record(
        "CopyBackwards",
        &[Some(g)],
        out,
        Vec::new,
        Box::new(move |ctx| Ok(vec![Some(grad_in(ctx.grads, &shape))])),
    )?;
    t.lay_out_as_grad_copy(layout)?;
    Ok(t)
}

/// Sum over an axis keeping it (used by tests and the reference checks).
pub fn sum_keep(a: &Array, axis: usize) -> Array {
    a.sum_axis(axis).insert_axis(axis)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::*;

    #[test]
    fn shape_op_gradients() {
        check_unary_gradients("reshape", &[2, 3], |a| reshape(a, &[3, -1]));
        check_unary_gradients("transpose", &[2, 3], |a| transpose(a, 0, 1));
        check_unary_gradients("t", &[2, 3], t);
        check_unary_gradients("clone", &[4], clone);
        check_unary_gradients("reshape of transpose", &[2, 3], |a| reshape(&t(a)?, &[6]));
        check_unary_gradients("unsqueeze", &[2, 3], |a| unsqueeze_at(a, -1));
        check_unary_gradients("squeeze", &[2, 1, 3], |a| squeeze(a, None));
        check_unary_gradients("squeeze dim", &[2, 1, 3], |a| squeeze(a, Some(1)));
        check_unary_gradients("expand", &[2, 1], |a| expand(a, &[3, -1, 4]));
    }

    #[test]
    fn reshape_names_follow_contiguity() {
        let a = leaf(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
        let v = ok(reshape(&a, &[6]));
        assert_eq!(v.grad_fn().map(|f| f.name), Some("ViewBackward0"));
        let tr = ok(t(&a));
        let u = ok(reshape(&tr, &[6]));
        let f = u.grad_fn();
        assert_eq!(f.as_ref().map(|f| f.name), Some("UnsafeViewBackward0"));
        let next = f.map(|f| f.next_functions()).unwrap_or_default();
        assert_eq!(next[0].0.as_ref().map(|n| n.name), Some("CloneBackward0"));
        assert_eq!(values(&u), vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    }
}
