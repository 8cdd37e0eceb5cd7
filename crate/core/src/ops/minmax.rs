//! `max()` / `min()` over everything (`MaxBackward1` / `MinBackward1`: the
//! gradient shared evenly among the elements equal to the result) and along
//! one dim with indices (`MaxBackward0` / `MinBackward0`: the gradient goes
//! to the index picked, the first of equal values, as PyTorch's CPU kernel
//! picks). NaN propagates: it is the max and the min. PyTorch:
//! ReduceOps.cpp, TensorCompare.cpp, FunctionsManual.cpp
//! (`evenly_distribute_backward`, `value_selecting_reduction_backward`).

use super::backward_ops::map_with;
use super::{constant, grad_in, record, save_result, shape_ops};
use crate::error::{Error, Result};
use crate::node::SavedTensor;
use crate::shape::wrap_dim;
use crate::tensor::{Array, Tensor};

/// Whether `v` beats the best so far (`max`: greater; NaN always wins and
/// then stays).
fn better(v: f32, best: f32, max: bool) -> bool {
    if best.is_nan() {
        return false;
    }
    v.is_nan() || if max { v > best } else { v < best }
}

fn op_name(max: bool) -> &'static str {
    if max {
        "max"
    } else {
        "min"
    }
}

/// `t.max()` / `t.min()`: a 0-d tensor.
pub fn extreme(a: &Tensor, max: bool) -> Result<Tensor> {
    let value = {
        let d = a.data()?;
        let mut it = d.iter().copied();
        let Some(first) = it.next() else {
            return Err(Error::runtime(format!(
                "{}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.",
                op_name(max)
            )));
        };
        it.fold(first, |b, v| if better(v, b, max) { v } else { b })
    };
    let shape = a.shape();
    let t = record(
        if max { "MaxBackward1" } else { "MinBackward1" },
        &[Some(a)],
        Array::scalar(value),
        || vec![SavedTensor::save(a)],
        // PyTorch evenly_distribute_backward(grad, self, result): the
        // elements equal to the result (NaN to NaN) share the gradient.
        Box::new(move |ctx| {
            let g = grad_in(ctx.grads, &[]);
            let (x, result) = (&ctx.saved[0], &ctx.saved[1]);
            let r = result.item()?;
            let mask = map_with(&*x.data()?, r, |v, r| {
                f32::from(u8::from(v == r || (v.is_nan() && r.is_nan())))
            });
            let share = map_with(&mask, mask.sum(), |m, count| m / count);
            let sizes: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
            let e = shape_ops::expand(&g, &sizes)?;
            Ok(vec![Some(e.mul(&constant(share))?)])
        }),
    )?;
    save_result(&t)?;
    Ok(t)
}

/// `t.max(dim, keepdim)` / `t.min(dim, keepdim)`: the values (differentiable)
/// and the indices (as float32 values: hookgrad's tensors are all float32).
pub fn extreme_dim(a: &Tensor, dim: i64, keepdim: bool, max: bool) -> Result<(Tensor, Tensor)> {
    let (values, indices, shape, axis) = {
        let d = a.data()?;
        let shape = d.shape().to_vec();
        if shape.is_empty() {
            // A 0-d tensor along dim 0 / -1 is itself, index 0.
            wrap_dim(dim, 0)?;
            (d.clone(), Array::scalar(0.0), shape, None)
        } else {
            let axis = wrap_dim(dim, shape.len())?;
            let len = shape[axis];
            if len == 0 {
                return Err(Error::Index(format!(
                    "{}(): Expected reduction dim {axis} to have non-zero size.",
                    op_name(max)
                )));
            }
            let outer: usize = shape[..axis].iter().product();
            let inner: usize = shape[axis + 1..].iter().product();
            let src = d.as_slice();
            let mut vals = Vec::with_capacity(outer * inner);
            let mut idx = Vec::with_capacity(outer * inner);
            for o in 0..outer {
                for i in 0..inner {
                    let at = |k: usize| src[(o * len + k) * inner + i];
                    let mut best = 0;
                    for k in 1..len {
                        if better(at(k), at(best), max) {
                            best = k;
                        }
                    }
                    vals.push(at(best));
                    idx.push(best as f32);
                }
            }
            let mut out_shape = shape.clone();
            if keepdim {
                out_shape[axis] = 1;
            } else {
                out_shape.remove(axis);
            }
            let mk = |v: Vec<f32>| {
                Array::from_shape_vec(&out_shape, v)
                    .map_err(|e| Error::internal(format!("max/min result: {e}")))
            };
            (mk(vals)?, mk(idx)?, shape, Some(axis))
        }
    };
    let out_shape = values.shape().to_vec();
    // PyTorch saves the indices output (a pack hook sees that very tensor;
    // changing it in place fails the backward).
    let indices = Tensor::from_array(indices);
    let t = record(
        if max { "MaxBackward0" } else { "MinBackward0" },
        &[Some(a)],
        values,
        || vec![SavedTensor::save(&indices)],
        // PyTorch value_selecting_reduction_backward: the gradient scattered
        // into zeros of the input's size at the indices (along `dim`).
        Box::new(move |ctx| {
            let mut g = grad_in(ctx.grads, &out_shape);
            let Some(axis) = axis else {
                return Ok(vec![Some(g)]);
            };
            if !keepdim {
                g = shape_ops::unsqueeze(&g, axis)?;
            }
            let onehot = one_hot(&shape, axis, &*ctx.saved[0].data()?);
            let sizes: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
            Ok(vec![Some(
                shape_ops::expand(&g, &sizes)?.mul(&constant(onehot))?,
            )])
        }),
    )?;
    Ok((t, indices))
}

/// 1 where the element's index along `axis` is the one picked for its lane.
fn one_hot(shape: &[usize], axis: usize, indices: &Array) -> Array {
    let len = shape[axis];
    let outer: usize = shape[..axis].iter().product();
    let inner: usize = shape[axis + 1..].iter().product();
    let mut m = Array::zeros(shape);
    let (idx, dst) = (indices.as_slice(), m.as_slice_mut());
    for o in 0..outer {
        for i in 0..inner {
            let k = idx.get(o * inner + i).copied().unwrap_or(0.0) as usize;
            if let Some(d) = dst.get_mut((o * len + k) * inner + i) {
                *d = 1.0;
            }
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::*;

    #[test]
    fn max_min_values_indices_and_gradients() {
        let t = leaf(&[1.0, 3.0, 3.0, 2.0, 2.0, 0.5], &[2, 3]);
        let m = ok(extreme(&t, true));
        assert_eq!(item(&m), 3.0);
        assert_eq!(m.grad_fn().map(|f| f.name), Some("MaxBackward1"));
        ok(m.backward());
        assert_eq!(grad_values(&t), vec![0.0, 0.5, 0.5, 0.0, 0.0, 0.0]);
        let (v, i) = ok(extreme_dim(&t, 1, false, true));
        assert_eq!((values(&v), values(&i)), (vec![3.0, 2.0], vec![1.0, 0.0]));
        let (v, i) = ok(extreme_dim(&t, 0, true, false));
        assert_eq!(v.shape(), vec![1, 3]);
        assert_eq!(values(&i), vec![0.0, 1.0, 1.0]);
        check_unary_gradients(
            "max dim",
            &[3, 4],
            |a| Ok(extreme_dim(a, 1, false, true)?.0),
        );
        check_unary_gradients("min", &[3, 4], |a| extreme(a, false));
    }
}
