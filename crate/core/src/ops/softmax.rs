//! softmax and log_softmax over one dimension (`SoftmaxBackward0`,
//! `LogSoftmaxBackward0`). Both save their result, as PyTorch's
//! `_softmax_backward_data` / `_log_softmax_backward_data` need only it.
//! PyTorch runs them on `input.contiguous()`, so the result is contiguous
//! whatever the input's layout.

use super::{backward_ops, grad_in, record, save_result};
use crate::error::Result;
use crate::shape::wrap_dim;
use crate::tensor::{Array, Tensor};

/// softmax / log_softmax along `axis` in the order of PyTorch's CPU
/// kernels (aten/src/ATen/native/cpu/SoftMaxKernel.cpp), so float32 results
/// match to the bit: per lane, `max`, then `sum += exp(x - max)` in order;
/// log_softmax is `(x - max) - log(sum)` (adding max and log(sum) first
/// loses the small term: PyTorch issue 11752); softmax is `e * (1 / sum)`
/// on the last dim (`_vec_softmax_lastdim`) and `e / sum` on another
/// (`_vec_softmax`). PyTorch sums a last dim of 8 or more (16 with AVX512)
/// in vector lanes: there the last bit may differ.
fn softmax_values(x: &Array, axis: usize, log: bool) -> Array {
    let shape = x.shape();
    let dim = shape.get(axis).copied().unwrap_or(1);
    let outer: usize = shape[..axis].iter().product();
    let inner: usize = shape.get(axis + 1..).map_or(1, |s| s.iter().product());
    let last_dim = axis + 1 == shape.len();
    let src = x.as_slice();
    let mut out = x.clone();
    let dst = out.as_slice_mut();
    for o in 0..outer {
        for i in 0..inner {
            let at = |d: usize| (o * dim + d) * inner + i;
            let mut max = f32::NEG_INFINITY;
            for d in 0..dim {
                let v = src[at(d)];
                if v > max || v.is_nan() {
                    max = v;
                }
            }
            let mut sum = 0.0f32;
            for d in 0..dim {
                let e = (src[at(d)] - max).exp();
                dst[at(d)] = e;
                sum += e;
            }
            if log {
                let l = sum.ln();
                for d in 0..dim {
                    dst[at(d)] = src[at(d)] - max - l;
                }
            } else if last_dim {
                let r = 1.0 / sum;
                for d in 0..dim {
                    dst[at(d)] *= r;
                }
            } else {
                for d in 0..dim {
                    dst[at(d)] /= sum;
                }
            }
        }
    }
    out
}

/// A 0-d tensor is its own (only) class: log_softmax 0, softmax 1.
fn forward_values(x: &Array, axis: Option<usize>, log: bool) -> Array {
    match axis {
        Some(axis) => softmax_values(x, axis, log),
        None => backward_ops::map_with(x, if log { 0.0 } else { 1.0 }, |_, c| c),
    }
}

fn axis_of(a: &Tensor, dim: i64) -> Result<Option<usize>> {
    let n = a.ndim();
    let d = wrap_dim(dim, n)?;
    Ok(if n == 0 { None } else { Some(d) })
}

/// Sum along `axis` keeping it (identity for a 0-d tensor), differentiably.
pub(crate) fn sum_keep(a: &Tensor, axis: Option<usize>) -> Result<Tensor> {
    match axis {
        Some(axis) => a.sum_dim(axis as i64, true),
        None => Ok(a.clone()),
    }
}

pub fn softmax(a: &Tensor, dim: i64) -> Result<Tensor> {
    let axis = axis_of(a, dim)?;
    let out = forward_values(&*a.data()?, axis, false);
    let shape = out.shape().to_vec();
    let t = record(
        "SoftmaxBackward0",
        &[Some(a)],
        out,
        Vec::new,
        // PyTorch: _softmax_backward_data(grad, result, dim).
        Box::new(move |ctx| {
            let g = grad_in(ctx.grads, &shape);
            let y = &ctx.saved[0];
            Ok(vec![Some(backward_ops::softmax_backward_data(
                &g, y, axis,
            )?)])
        }),
    )?;
    save_result(&t)?;
    Ok(t)
}

pub fn log_softmax(a: &Tensor, dim: i64) -> Result<Tensor> {
    let axis = axis_of(a, dim)?;
    let out = forward_values(&*a.data()?, axis, true);
    let shape = out.shape().to_vec();
    let t = record(
        "LogSoftmaxBackward0",
        &[Some(a)],
        out,
        Vec::new,
        // PyTorch: _log_softmax_backward_data(grad, result, dim).
        Box::new(move |ctx| {
            let g = grad_in(ctx.grads, &shape);
            let y = &ctx.saved[0];
            Ok(vec![Some(backward_ops::log_softmax_backward_data(
                &g, y, axis,
            )?)])
        }),
    )?;
    save_result(&t)?;
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::*;

    #[test]
    fn softmax_gradients_match_finite_differences() {
        for dim in [0i64, 1, -1] {
            check_unary_gradients("softmax", &[2, 3], |a| softmax(a, dim));
            check_unary_gradients("log_softmax", &[2, 3], |a| log_softmax(a, dim));
        }
        check_unary_gradients("softmax 1-d", &[4], |a| softmax(a, 0));
    }

    #[test]
    fn softmax_values_by_hand() {
        // softmax([0, ln 3]) = [1/4, 3/4]
        let a = leaf(&[0.0, 3.0f32.ln()], &[2]);
        let s = ok(softmax(&a, 0));
        let v = values(&s);
        assert!((v[0] - 0.25).abs() < 1e-6 && (v[1] - 0.75).abs() < 1e-6);
        assert_eq!(s.grad_fn().map(|f| f.name), Some("SoftmaxBackward0"));
        let l = ok(log_softmax(&a, -1));
        assert!((values(&l)[0] - 0.25f32.ln()).abs() < 1e-6);
        assert!(softmax(&a, 1).is_err());
    }
}
