//! sum and mean, over everything (`SumBackward0`, `MeanBackward0`) or over one
//! dimension (`SumBackward1`, `MeanBackward1`, with keepdim).

use super::backward_ops::div_scalar;
use super::{grad_in, record, shape_ops};
use crate::error::Result;
use crate::shape::wrap_dim;
use crate::tensor::{Array, Tensor};

fn full_reduce(a: &Tensor, name: &'static str, mean: bool) -> Result<Tensor> {
    let (total, shape, n) = {
        let d = a.data()?;
        (d.sum(), d.shape().to_vec(), d.len() as f32)
    };
    // The mean of no elements is 0 / 0: NaN, as PyTorch's.
    let value = if mean { total / n } else { total };
    let sizes: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    record(
        name,
        &[Some(a)],
        Array::scalar(value),
        Vec::new,
        // PyTorch: grad.expand(sizes) (divided by numel for mean): the
        // gradient is an expanded view, stride 0, as hooks see it in PyTorch.
        Box::new(move |ctx| {
            let g = grad_in(ctx.grads, &[]);
            let e = shape_ops::expand(&g, &sizes)?;
            // `/ numel` is div.Scalar: DivBackward1.
            Ok(vec![Some(if mean { div_scalar(&e, n)? } else { e })])
        }),
    )
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
            let mut r = d.sum_axis(axis);
            if mean {
                r = super::backward_ops::map_with(&r, n, |v, n| v / n);
            }
            if keepdim {
                r = r.insert_axis(axis);
            }
            (r, d.shape().to_vec(), Some(axis), n)
        }
    };
    let out_shape = out.shape().to_vec();
    let sizes: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    record(
        name,
        &[Some(a)],
        out,
        Vec::new,
        // PyTorch sum_backward: grad.unsqueeze(dim) unless keepdim, then
        // expand; mean divides by the dim's size.
        Box::new(move |ctx| {
            let mut g = grad_in(ctx.grads, &out_shape);
            if let Some(axis) = axis {
                if !keepdim {
                    g = shape_ops::unsqueeze(&g, axis)?;
                }
                g = shape_ops::expand(&g, &sizes)?;
            }
            Ok(vec![Some(if mean { div_scalar(&g, n)? } else { g })])
        }),
    )
}

/// PyTorch's `at::sum_to` (ExpandUtils.h): sums a (broadcast) gradient
/// back to `shape` with ops, so it is differentiable: `sum()` for a 0-d
/// target, else one `sum(dims, keepdim=True)` (`SumBackward1`) over the
/// leading and the broadcast dims, then `view(shape)` when there were
/// leading dims; `t` itself when it fits.
pub fn sum_to(t: &Tensor, shape: &[usize]) -> Result<Tensor> {
    let sizes = t.shape();
    if shape.is_empty() {
        return if sizes.is_empty() {
            Ok(t.clone())
        } else {
            sum(t)
        };
    }
    let lead = sizes.len().saturating_sub(shape.len());
    let dims: Vec<usize> = (0..sizes.len())
        .filter(|&i| i < lead || (shape[i - lead] == 1 && sizes[i] != 1))
        .collect();
    let g = if dims.is_empty() {
        t.clone()
    } else {
        sum_dims_keep(t, &dims)?
    };
    if lead > 0 {
        let to: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        shape_ops::reshape(&g, &to)
    } else {
        Ok(g)
    }
}

/// `t.sum(dims, keepdim=True)` (`SumBackward1`); backward expands back.
fn sum_dims_keep(a: &Tensor, dims: &[usize]) -> Result<Tensor> {
    let (out, shape) = {
        let d = a.data()?;
        // The first sum reads the data in place (no copy of the gradient).
        let mut r: Option<Array> = None;
        for &axis in dims {
            let next = match &r {
                None => d.sum_axis(axis),
                Some(x) => x.sum_axis(axis),
            };
            r = Some(next.insert_axis(axis));
        }
        (r.unwrap_or_else(|| d.clone()), d.shape().to_vec())
    };
    let out_shape = out.shape().to_vec();
    let sizes: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    record(
        "SumBackward1",
        &[Some(a)],
        out,
        Vec::new,
        // PyTorch sum_backward with keepdim: grad.expand(sizes).
        Box::new(move |ctx| {
            let g = grad_in(ctx.grads, &out_shape);
            Ok(vec![Some(shape_ops::expand(&g, &sizes)?)])
        }),
    )
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

    /// Every axis of arrays up to 4-D, in every axis order (`permuted`: the
    /// values transposes give): the same maxima as ndarray's `map_axis` on
    /// the same values in its standard layout. (Sums follow PyTorch's
    /// order: float_bits_tests.rs checks them against real torch.)
    #[test]
    fn max_axis_is_ndarrays_bit_for_bit() {
        use ndarray::{ArrayD, Axis, IxDyn};
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let shapes: [&[usize]; 11] = [
            &[5, 12, 1],
            &[9, 3, 10, 1],
            &[19],
            &[9, 17],
            &[1, 12],
            &[12, 1],
            &[3, 10, 9],
            &[2, 1, 11],
            &[0, 9],
            &[2, 3, 9, 10],
            &[8, 1, 3, 9],
        ];
        let perms4: Vec<Vec<usize>> = (0..24)
            .map(|mut k| {
                let mut left = vec![0, 1, 2, 3];
                let mut p = Vec::new();
                for f in [6, 2, 1, 1] {
                    p.push(left.remove(k / f));
                    k %= f;
                }
                p
            })
            .collect();
        let bits = |x: &mut dyn Iterator<Item = &f32>| x.map(|v| v.to_bits()).collect::<Vec<_>>();
        for shape in shapes {
            let n: usize = shape.iter().product();
            let values: Vec<f32> = (0..n)
                .map(|_| (next() % 20_000) as f32 / 7.0 - 1400.0)
                .collect();
            let base = ok(Array::from_shape_vec(shape, values.clone())
                .map_err(|e| crate::error::Error::internal(e.to_string())));
            let tbase = ok(ArrayD::from_shape_vec(IxDyn(shape), values)
                .map_err(|e| crate::error::Error::internal(e.to_string())));
            for perm in &perms4 {
                let perm: Vec<usize> = perm.iter().copied().filter(|&a| a < shape.len()).collect();
                let a = base.permuted(&perm);
                // ndarray's standard layout with its default strides (a
                // permuted view's own strides of length-1 axes could steer
                // its `sum_axis`: see `Array::sum_axis`).
                let p = tbase.clone().permuted_axes(IxDyn(&perm));
                let ta = ok(
                    ArrayD::from_shape_vec(p.raw_dim(), p.iter().copied().collect())
                        .map_err(|e| crate::error::Error::internal(e.to_string())),
                );
                assert_eq!(bits(&mut a.iter()), bits(&mut ta.iter()));
                for axis in 0..a.ndim() {
                    let m = a.max_axis(axis);
                    let tm = ta.map_axis(Axis(axis), |lane| {
                        lane.iter().copied().fold(f32::NEG_INFINITY, f32::max)
                    });
                    assert_eq!(
                        bits(&mut m.iter()),
                        bits(&mut tm.iter()),
                        "max {shape:?} {perm:?} {axis}"
                    );
                }
            }
        }
    }

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
