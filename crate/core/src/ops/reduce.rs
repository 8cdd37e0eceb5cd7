//! sum and mean, over everything (`SumBackward0`, `MeanBackward0`) or over one
//! dimension (`SumBackward1`, `MeanBackward1`, with keepdim).

use ndarray::{Axis, IxDyn};

use super::{grad_or_zeros, grad_tensor, record};
use crate::error::Result;
use crate::shape::{expand, wrap_dim};
use crate::tensor::{Array, Tensor};

fn full_reduce(a: &Tensor, name: &'static str, mean: bool) -> Result<Tensor> {
    let (total, shape, n) = {
        let d = a.data()?;
        (d.sum(), d.shape().to_vec(), d.len().max(1) as f32)
    };
    let value = if mean { total / n } else { total };
    Ok(record(
        name,
        &[Some(a)],
        Array::from_elem(IxDyn(&[]), value),
        Vec::new,
        Box::new(move |ctx| {
            let g = grad_or_zeros(ctx.grads, &[])?;
            let scale = if mean { 1.0 / n } else { 1.0 };
            let g = g.mapv(|v| v * scale);
            Ok(vec![grad_tensor(expand(&g, &shape)?)])
        }),
    ))
}

pub fn sum(a: &Tensor) -> Result<Tensor> {
    full_reduce(a, "SumBackward0", false)
}

pub fn mean(a: &Tensor) -> Result<Tensor> {
    full_reduce(a, "MeanBackward0", true)
}

fn dim_reduce(
    a: &Tensor,
    dim: i64,
    keepdim: bool,
    name: &'static str,
    mean: bool,
) -> Result<Tensor> {
    let (out, shape, axis, n) = {
        let d = a.data()?;
        let axis = wrap_dim(dim, d.ndim())?;
        if d.ndim() == 0 {
            // A 0-d tensor reduced over dim 0/-1 is itself.
            (d.clone(), Vec::new(), None, 1.0)
        } else {
            let n = d.shape()[axis] as f32;
            let mut r = d.sum_axis(Axis(axis));
            if mean {
                r.mapv_inplace(|v| v / n);
            }
            if keepdim {
                r = r.insert_axis(Axis(axis));
            }
            (r, d.shape().to_vec(), Some(axis), n)
        }
    };
    let out_shape = out.shape().to_vec();
    Ok(record(
        name,
        &[Some(a)],
        out,
        Vec::new,
        Box::new(move |ctx| {
            let mut g = grad_or_zeros(ctx.grads, &out_shape)?;
            if mean {
                g.mapv_inplace(|v| v / n);
            }
            let Some(axis) = axis else {
                return Ok(vec![grad_tensor(g)]);
            };
            if !keepdim {
                g = g.insert_axis(Axis(axis));
            }
            Ok(vec![grad_tensor(expand(&g, &shape)?)])
        }),
    ))
}

pub fn sum_dim(a: &Tensor, dim: i64, keepdim: bool) -> Result<Tensor> {
    dim_reduce(a, dim, keepdim, "SumBackward1", false)
}

pub fn mean_dim(a: &Tensor, dim: i64, keepdim: bool) -> Result<Tensor> {
    dim_reduce(a, dim, keepdim, "MeanBackward1", true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::*;

    #[test]
    fn reductions_match_finite_differences() {
        check_unary_gradients("sum", &[2, 3], sum);
        check_unary_gradients("mean", &[2, 3], mean);
        for dim in [0i64, 1, -1] {
            for keepdim in [false, true] {
                check_unary_gradients("sum_dim", &[2, 3], |a| sum_dim(a, dim, keepdim));
                check_unary_gradients("mean_dim", &[2, 3], |a| mean_dim(a, dim, keepdim));
            }
        }
    }

    #[test]
    fn reduction_names_and_values() {
        let a = leaf(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
        let s = ok(sum_dim(&a, 1, false));
        assert_eq!(s.grad_fn().map(|f| f.name), Some("SumBackward1"));
        assert_eq!(values(&s), vec![6.0, 15.0]);
        let m = ok(mean(&a));
        assert_eq!(m.grad_fn().map(|f| f.name), Some("MeanBackward0"));
        assert_eq!(values(&m), vec![3.5]);
        assert!(sum_dim(&a, 2, false).is_err());
    }
}
