//! softmax and log_softmax over one dimension (`SoftmaxBackward0`,
//! `LogSoftmaxBackward0`). Both save their result, as PyTorch's
//! `_softmax_backward_data` / `_log_softmax_backward_data` need only it.
//! PyTorch runs them on `input.contiguous()`, so the result is contiguous
//! whatever the input's layout.

use super::arith::broadcast_zip;
use super::{backward_ops, grad_in, record, save_result};
use crate::error::Result;
use crate::shape::wrap_dim;
use crate::tensor::{Array, Tensor};

/// `log(sum(exp(x - max)))` + max along `axis`, kept as a size-1 axis.
/// (Broadcasting through `broadcast_zip`, one instance for every op.)
fn log_sum_exp(x: &Array, axis: usize) -> Result<Array> {
    let max = x.max_axis(axis).insert_axis(axis);
    let shifted = broadcast_zip(x, &max, |a, m| a - m)?;
    let lse = shifted
        .mapv(f32::exp as fn(f32) -> f32)
        .sum_axis(axis)
        .mapv(f32::ln as fn(f32) -> f32)
        .insert_axis(axis);
    broadcast_zip(&lse, &max, |l, m| l + m)
}

fn log_softmax_values(x: &Array, axis: Option<usize>) -> Result<Array> {
    match axis {
        // A 0-d tensor is its own (only) class: log_softmax = 0.
        None => Ok(backward_ops::map_with(x, 0.0, |_, zero| zero)),
        Some(axis) => broadcast_zip(x, &log_sum_exp(x, axis)?, |a, l| a - l),
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
    let out = log_softmax_values(&*a.data()?, axis)?.mapv(f32::exp as fn(f32) -> f32);
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
    let out = log_softmax_values(&*a.data()?, axis)?;
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
