//! Basic indexing: `select` (`SelectBackward0`) and `slice`
//! (`SliceBackward0`), both views of their input as in PyTorch (they share
//! its version counter, an in-place op through them rebases the base onto
//! `CopySlices`), and advanced indexing with a list of integers along dim 0
//! (`IndexBackward0`, a copy). PyTorch: aten/src/ATen/native/TensorShape.cpp
//! (`select`, `slice`), Indexing.cpp, tools/autograd/derivatives.yaml.

use super::{grad_in, record};
use crate::error::{Error, Result};
use crate::shape::{fmt_shape, wrap_dim};
use crate::tensor::{Array, Tensor};
use crate::view::ViewStep;

/// Entries `start, start + step, …` (`len` of them) along `dim` of `shape`.
#[derive(Clone, Copy, Debug)]
pub struct Lanes {
    pub dim: usize,
    pub start: usize,
    pub step: usize,
    pub len: usize,
}

impl Lanes {
    /// Calls `f(flat index in the full array, flat index in the part)` for
    /// every element of the part, in row-major order of the part.
    fn each(&self, shape: &[usize], mut f: impl FnMut(usize, usize)) {
        let size = shape.get(self.dim).copied().unwrap_or(0);
        let outer: usize = shape[..self.dim.min(shape.len())].iter().product();
        let inner: usize = shape.get(self.dim + 1..).map_or(1, |s| s.iter().product());
        let mut j = 0;
        for o in 0..outer {
            for k in 0..self.len {
                let from = (o * size + self.start + k * self.step) * inner;
                for i in 0..inner {
                    f(from + i, j);
                    j += 1;
                }
            }
        }
    }

    /// The part's shape (`dim` keeps its length `len`).
    fn part_shape(&self, shape: &[usize]) -> Vec<usize> {
        let mut s = shape.to_vec();
        if let Some(d) = s.get_mut(self.dim) {
            *d = self.len;
        }
        s
    }

    /// The part of `a` these lanes pick, with `dim` kept.
    pub fn gather(&self, a: &Array) -> Array {
        let src = a.as_slice();
        let mut out = Vec::with_capacity(src.len());
        self.each(a.shape(), |from, _| {
            out.push(src.get(from).copied().unwrap_or(0.0));
        });
        let shape = self.part_shape(a.shape());
        Array::from_shape_vec(&shape, out)
            .unwrap_or_else(|_| crate::error::fault_default("an index gather of the wrong size"))
    }

    /// `full` with the lanes' elements replaced by `part`'s (row-major
    /// values of the part, whatever its shape: a select's has no `dim`).
    pub fn scatter(&self, full: &Array, part: &Array) -> Array {
        let mut out = full.clone();
        let src = part.as_slice();
        let dst = out.as_slice_mut();
        self.each(full.shape(), |to, from| {
            if let (Some(d), Some(s)) = (dst.get_mut(to), src.get(from)) {
                *d = *s;
            }
        });
        out
    }
}

/// `t.select(dim, index)`: the sub-tensor at `index` along `dim`, without
/// that dim; a view (`SelectBackward0`). Errors as PyTorch's `select()`.
pub fn select(a: &Tensor, dim: i64, index: i64) -> Result<Tensor> {
    let shape = a.shape();
    if shape.is_empty() {
        return Err(Error::Index(
            "select() cannot be applied to a 0-dim tensor.".into(),
        ));
    }
    let d = wrap_dim(dim, shape.len())?;
    let size = shape[d] as i64;
    if index < -size || index >= size {
        return Err(Error::Index(format!(
            "select(): index {index} out of range for tensor of size {} at dimension {d}",
            fmt_shape(&shape)
        )));
    }
    let i = if index < 0 { index + size } else { index } as usize;
    let lanes = Lanes {
        dim: d,
        start: i,
        step: 1,
        len: 1,
    };
    view_op(a, "SelectBackward0", lanes, true)
}

/// `t.slice(dim, start, end, step)` (`aten::slice`; Python's `t[start:end:step]`
/// along `dim`): `None` bounds are the ends; bounds are clamped like a
/// Python slice's. A view (`SliceBackward0`), even when it covers everything.
pub fn slice(
    a: &Tensor,
    dim: i64,
    start: Option<i64>,
    end: Option<i64>,
    step: i64,
) -> Result<Tensor> {
    let shape = a.shape();
    if shape.is_empty() {
        return Err(Error::Index(
            "slice() cannot be applied to a 0-dim tensor.".into(),
        ));
    }
    let d = wrap_dim(dim, shape.len())?;
    if step <= 0 {
        return Err(Error::runtime("slice step must be positive"));
    }
    let size = shape[d] as i64;
    // PyTorch's `slice`: negative bounds count from the end, then clamp to
    // [0, size]; an end before the start gives an empty slice.
    let clamp = |v: i64| {
        let v = if v < 0 { v + size } else { v };
        v.clamp(0, size)
    };
    let s = clamp(start.unwrap_or(0));
    let e = clamp(end.unwrap_or(size)).max(s);
    let len = ((e - s + step - 1) / step) as usize;
    let lanes = Lanes {
        dim: d,
        start: s as usize,
        step: step as usize,
        len,
    };
    view_op(a, "SliceBackward0", lanes, false)
}

/// The view's values, its strides (PyTorch's: the picked dim's stride
/// times `step`, or the dim gone for a select) and its base link.
fn view_op(a: &Tensor, name: &'static str, lanes: Lanes, drop_dim: bool) -> Result<Tensor> {
    let (shape, strides) = a.layout();
    let out = part_values(&*a.data()?, &lanes, drop_dim)?;
    let grad_shape = out.shape().to_vec();
    let full = shape.clone();
    let t = record(
        name,
        &[Some(a)],
        out,
        Vec::new,
        // PyTorch: select_backward / slice_backward (grad into zeros of
        // the input's size), themselves differentiable ops.
        Box::new(move |ctx| {
            let g = grad_in(ctx.grads, &grad_shape);
            Ok(vec![Some(part_backward(&g, &full, lanes, drop_dim)?)])
        }),
    )?;
    let mut st = strides;
    if drop_dim {
        st.remove(lanes.dim);
    } else {
        st[lanes.dim] *= lanes.step;
    }
    t.set_strides(st)?;
    crate::view::link(
        a,
        &t,
        ViewStep::Part {
            from: shape,
            lanes,
            drop_dim,
        },
    )?;
    Ok(t)
}

/// The values a select / slice picks from `a`.
pub(crate) fn part_values(a: &Array, lanes: &Lanes, drop_dim: bool) -> Result<Array> {
    let part = lanes.gather(a);
    if !drop_dim {
        return Ok(part);
    }
    let mut shape = part.shape().to_vec();
    shape.remove(lanes.dim);
    part.into_shape(&shape)
        .map_err(|e| Error::internal(format!("select reshape failed: {e}")))
}

/// `select_backward` / `slice_backward`: `g` put into zeros of `full`
/// (`SelectBackwardBackward0` / `SliceBackwardBackward0` under
/// `create_graph`, whose own backward selects / slices again).
pub(crate) fn part_backward(
    g: &Tensor,
    full: &[usize],
    lanes: Lanes,
    drop_dim: bool,
) -> Result<Tensor> {
    let out = lanes.scatter(&Array::zeros(full), &*g.data()?);
    let name = if drop_dim {
        "SelectBackwardBackward0"
    } else {
        "SliceBackwardBackward0"
    };
    let full_shape = full.to_vec();
    record(
        name,
        &[Some(g)],
        out,
        Vec::new,
        Box::new(move |ctx| {
            let gg = grad_in(ctx.grads, &full_shape);
            Ok(vec![Some(apply_part(&gg, lanes, drop_dim)?)])
        }),
    )
}

/// The select / slice itself, as an op (for view replay and backward).
pub(crate) fn apply_part(t: &Tensor, lanes: Lanes, drop_dim: bool) -> Result<Tensor> {
    if drop_dim {
        select(t, lanes.dim as i64, lanes.start as i64)
    } else {
        slice(
            t,
            lanes.dim as i64,
            Some(lanes.start as i64),
            Some((lanes.start + lanes.step * lanes.len) as i64),
            lanes.step as i64,
        )
    }
}

/// The rows `indices` (integer values; negative count from the end) pick
/// along dim 0 of size `size`, or PyTorch's IndexError.
fn rows_of(indices: &Array, size: usize) -> Result<Vec<usize>> {
    let size = size as i64;
    indices
        .iter()
        .map(|&v| {
            if v.fract() != 0.0 || !v.is_finite() {
                return Err(Error::Index(
                    "tensors used as indices must be long, int, byte or bool tensors".into(),
                ));
            }
            let i = v as i64;
            if i < -size || i >= size {
                return Err(Error::Index(format!(
                    "index {i} is out of bounds for dimension 0 with size {size}"
                )));
            }
            Ok(if i < 0 { i + size } else { i } as usize)
        })
        .collect()
}

/// `t[indices]` with a tensor of integer values (hookgrad's tensors are
/// float32; a list becomes such a tensor in the binding): advanced indexing
/// along dim 0, a copy (`IndexBackward0`). PyTorch saves the indices (a
/// pack hook sees them).
pub fn index(a: &Tensor, indices: &Tensor) -> Result<Tensor> {
    let shape = a.shape();
    if shape.is_empty() {
        return Err(Error::Index(
            "too many indices for tensor of dimension 0".into(),
        ));
    }
    let rows = rows_of(&*indices.data()?, shape[0])?;
    let inner: usize = shape[1..].iter().product();
    let src = a.to_array()?;
    let mut out = Vec::with_capacity(rows.len() * inner);
    for &r in &rows {
        out.extend_from_slice(&src.as_slice()[r * inner..(r + 1) * inner]);
    }
    let mut out_shape = indices.shape();
    out_shape.extend_from_slice(&shape[1..]);
    crate::shape::checked_numel(&out_shape)?;
    let out = Array::from_shape_vec(&out_shape, out)
        .map_err(|e| Error::internal(format!("index result: {e}")))?;
    record(
        "IndexBackward0",
        &[Some(a)],
        out,
        || vec![crate::node::SavedTensor::save(indices)],
        // PyTorch: index_put_(zeros, indices, grad, accumulate=True): a
        // repeated index gets the sum of its rows' gradients.
        Box::new(move |ctx| {
            let g = grad_in(ctx.grads, &out_shape);
            Ok(vec![Some(index_backward(&g, &shape, &ctx.saved[0])?)])
        }),
    )
}

/// `IndexBackward0`'s formula: `g`'s rows added into zeros of `shape` at
/// the indices (PyTorch's `_index_put_impl_` on zeros:
/// `IndexPutImplBackward0` under `create_graph`, edges to the zeros (none)
/// and to `g`; its backward indexes again).
fn index_backward(g: &Tensor, shape: &[usize], indices: &Tensor) -> Result<Tensor> {
    let rows = rows_of(&*indices.data()?, shape[0])?;
    let inner: usize = shape[1..].iter().product();
    let mut out = Array::zeros(shape);
    {
        let gd = g.data()?;
        let (src, dst) = (gd.as_slice(), out.as_slice_mut());
        for (k, &r) in rows.iter().enumerate() {
            for i in 0..inner {
                if let (Some(d), Some(s)) = (dst.get_mut(r * inner + i), src.get(k * inner + i)) {
                    *d += *s;
                }
            }
        }
    }
    let idx = indices.clone();
    let g_shape: Vec<i64> = g.shape().iter().map(|&d| d as i64).collect();
    record(
        "IndexPutImplBackward0",
        &[None, Some(g)],
        out,
        Vec::new,
        Box::new(move |ctx| {
            let gg = grad_in(ctx.grads, &[]);
            Ok(vec![None, Some(index(&gg, &idx)?.reshape(&g_shape)?)])
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::*;

    #[test]
    fn select_and_slice_values_and_names() {
        let a = leaf(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
        let s = ok(select(&a, 0, -1));
        assert_eq!(values(&s), vec![4.0, 5.0, 6.0]);
        assert_eq!(s.grad_fn().map(|f| f.name), Some("SelectBackward0"));
        let c = ok(select(&a, 1, 1));
        assert_eq!(values(&c), vec![2.0, 5.0]);
        assert_eq!(c.strides(), vec![3]);
        let sl = ok(slice(&a, 1, Some(-10), Some(10), 2));
        assert_eq!(values(&sl), vec![1.0, 3.0, 4.0, 6.0]);
        assert_eq!(sl.strides(), vec![3, 2]);
        assert_eq!(ok(slice(&a, 1, Some(2), Some(1), 1)).shape(), vec![2, 0]);
        let e = select(&a, 0, 5).err().map(|e| e.to_string());
        assert_eq!(
            e.as_deref(),
            Some("select(): index 5 out of range for tensor of size [2, 3] at dimension 0")
        );
    }

    #[test]
    fn indexing_gradients() {
        check_unary_gradients("select", &[2, 3], |a| select(a, 1, -1));
        check_unary_gradients("slice", &[3, 4], |a| slice(a, 1, Some(1), None, 2));
        let rows = Tensor::from_array(crate::testing::arr(&[2.0, 0.0, -1.0], &[3]));
        check_unary_gradients("index", &[3, 2], |a| index(a, &rows));
    }
}

#[cfg(test)]
mod view_tests {
    use crate::ops::Operand;
    use crate::testing::*;

    #[test]
    fn inplace_through_a_select_rebases_the_base_onto_copy_slices() {
        // PyTorch: y = x * 1; y[0].mul_(2); y.sum().backward()
        let x = leaf(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
        let y = ok(x.mul(1.0));
        let v = ok(y.select(0, 0));
        let w = ok(y.slice(1, Some(1), None, 1));
        ok(v.mul_(Operand::Scalar(2.0)));
        assert_eq!(values(&y), vec![2.0, 4.0, 6.0, 4.0, 5.0, 6.0]);
        assert_eq!(values(&w), vec![4.0, 6.0, 5.0, 6.0]);
        assert_eq!((y.version(), v.version(), w.version()), (1, 1, 1));
        assert_eq!(y.grad_fn().map(|f| f.name), Some("CopySlices"));
        assert_eq!(v.grad_fn().map(|f| f.name), Some("AsStridedBackward0"));
        assert_eq!(w.grad_fn().map(|f| f.name), Some("AsStridedBackward0"));
        ok(ok(y.sum()).backward());
        assert_eq!(grad_values(&x), vec![2.0, 2.0, 2.0, 1.0, 1.0, 1.0]);
    }

    #[test]
    fn inplace_through_a_view_of_a_leaf_is_refused() {
        let x = leaf(&[1.0, 2.0, 3.0], &[3]);
        let s = ok(x.slice(0, Some(1), None, 1));
        let e = s.add_(1.0).err().map(|e| e.to_string());
        assert_eq!(
            e.as_deref(),
            Some(crate::ops::inplace::VIEW_OF_LEAF_INPLACE_ERROR)
        );
    }
}

#[cfg(test)]
mod lifetime_tests {
    use crate::testing::*;

    #[test]
    fn a_base_forgets_views_that_are_gone() {
        // A parameter viewed once per step (F.linear's weight.t(), w[0]).
        let w = leaf(&[1.0, 2.0, 3.0, 4.0], &[2, 2]);
        for _ in 0..100 {
            ok(w.t());
            ok(w.select(0, 0));
        }
        let kept = w.meta().map(|m| m.views.len()).unwrap_or(usize::MAX);
        assert!(kept <= 1, "{kept} view entries kept");
    }
}
