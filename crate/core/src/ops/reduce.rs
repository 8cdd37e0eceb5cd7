//! sum and mean, over everything (`SumBackward0`, `MeanBackward0`) or over one
//! dimension (`SumBackward1`, `MeanBackward1`, with keepdim).

use ndarray::{Axis, IxDyn};

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
        Array::from_elem(IxDyn(&[]), value),
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
            let mut r = sum_axis(&d, axis);
            if mean {
                r = super::backward_ops::map_with(&r, n, |v, n| v / n);
            }
            if keepdim {
                r = r.insert_axis(Axis(axis));
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
                None => sum_axis(&d, axis),
                Some(x) => sum_axis(x, axis),
            };
            r = Some(next.insert_axis(Axis(axis)));
        }
        (r.unwrap_or_else(|| d.to_owned()), d.shape().to_vec())
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

/// ndarray's `sum_axis`, bit for bit, in plain loops (its generic lanes/Zip
/// code was ~2.5 KB gzip of the wasm: issue 10, W5). ndarray sums along
/// `axis` lane by lane only when `axis` has the least |stride| (the last such
/// axis): a unit-stride lane with eight partial sums (`unrolled_fold`), any
/// other lane in index order from 0, which is also what its other path
/// (`res = res + subview` per index) gives. Its lane path collects the
/// result in column-major order when the other axes lean that way; that is
/// kept too, since the next `sum_axis` of a chain (`sum_to`) chooses its
/// path from those strides. Tested against ndarray's own below.
pub(crate) fn sum_axis(a: &Array, axis: usize) -> Array {
    let strides = a.strides();
    let n = strides.len();
    let mut min_axis = n - 1;
    for i in (0..n).rev() {
        if strides[i].unsigned_abs() < strides[min_axis].unsigned_abs() {
            min_axis = i;
        }
    }
    let lanes = n == 1 || axis == min_axis;
    let stride = strides[axis];
    let unrolled = lanes && (stride == 1 || stride == -1);
    let reversed = stride == -1;
    over_lanes(a, axis, lanes, &|at, len| {
        if unrolled {
            // In memory order: backwards along a negative stride.
            unrolled_sum(|k| at(if reversed { len - 1 - k } else { k }), len)
        } else {
            (0..len).fold(0.0, |s, k| s + at(k))
        }
    })
}

/// ndarray's `map_axis(axis, |lane| lane.fold(-inf, f32::max))`: each
/// lane's maximum in index order (log_softmax's shift), with its layout.
pub(crate) fn max_axis(a: &Array, axis: usize) -> Array {
    over_lanes(a, axis, a.shape()[axis] != 0, &|at, len| {
        (0..len).fold(f32::NEG_INFINITY, |m, k| f32::max(m, at(k)))
    })
}

/// A lane's result from `at(k)` (its k-th value) and its length.
type LaneFn<'a> = dyn Fn(&dyn Fn(usize) -> f32, usize) -> f32 + 'a;

/// `lane(at, len)` for every lane along `axis` (`at(k)`: the lane's k-th
/// value), as an array without `axis`. `lanes`: ndarray built this result
/// with `Zip::map_collect` over `lanes(axis)`, which collects it in
/// column-major order when the other axes lean that way; else row-major.
fn over_lanes(a: &Array, axis: usize, lanes: bool, lane: &LaneFn) -> Array {
    let shape = a.shape();
    let strides = a.strides();
    let len = shape[axis];
    let out_shape: Vec<usize> = [&shape[..axis], &shape[axis + 1..]].concat();
    let out_strides: Vec<isize> = [&strides[..axis], &strides[axis + 1..]].concat();
    let column_major = lanes
        && out_shape.len() > 1
        && !is_layout(&out_shape, &out_strides, true)
        && (is_layout(&out_shape, &out_strides, false)
            || (out_shape[0] > 1 && out_strides[0] == 1));
    // The values in row-major order, and their row-major strides.
    let copy: Vec<f32>;
    let data = match a.as_slice() {
        Some(s) => s,
        None => {
            copy = a.iter().copied().collect();
            &copy
        }
    };
    let row = crate::layout::contiguous_strides(shape);
    let step = row[axis];
    let out_row: Vec<usize> = [&row[..axis], &row[axis + 1..]].concat();
    let total: usize = out_shape.iter().product();
    let mut index = vec![0usize; out_shape.len()];
    let mut out = Vec::with_capacity(total);
    for _ in 0..total {
        let base: usize = index.iter().zip(&out_row).map(|(i, s)| i * s).sum();
        out.push(lane(&|k| data[base + k * step], len));
        // Next index: the first axis fastest in column-major order.
        for j in 0..index.len() {
            let d = if column_major { j } else { index.len() - 1 - j };
            index[d] += 1;
            if index[d] < out_shape[d] {
                break;
            }
            index[d] = 0;
        }
    }
    let dim = ndarray::IxDyn(&out_shape);
    let built = if column_major {
        Array::from_shape_vec(ndarray::ShapeBuilder::f(dim), out)
    } else {
        Array::from_shape_vec(dim, out)
    };
    built.unwrap_or_else(|_| {
        crate::error::fault_default("a reduction over an axis built a wrong shape")
    })
}

/// ndarray's `unrolled_fold` with `+` from 0 over `len` values.
fn unrolled_sum(x: impl Fn(usize) -> f32, len: usize) -> f32 {
    let mut p = [0.0f32; 8];
    let mut i = 0;
    while len - i >= 8 {
        for (k, p) in p.iter_mut().enumerate() {
            *p += x(i + k);
        }
        i += 8;
    }
    let mut acc = 0.0f32;
    for k in 0..4 {
        acc += p[k] + p[k + 4];
    }
    (i..len).fold(acc, |acc, j| acc + x(j))
}

/// ndarray's `is_layout_c` (`row_major`) / `is_layout_f`: contiguous in that
/// order, axes of length 1 skipped; any empty axis counts as both.
fn is_layout(shape: &[usize], strides: &[isize], row_major: bool) -> bool {
    if shape.contains(&0) {
        return true;
    }
    let mut expect = 1isize;
    let mut check = |d: usize, s: isize| {
        if d == 1 {
            return true;
        }
        let ok = s == expect;
        expect *= d as isize;
        ok
    };
    if row_major {
        shape.iter().zip(strides).rev().all(|(&d, &s)| check(d, s))
    } else {
        shape.iter().zip(strides).all(|(&d, &s)| check(d, s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::*;

    /// Every axis of arrays up to 4-D (lanes past 8, so the unrolled sums
    /// show), in every axis order (`permuted_axes`: the layouts transposes
    /// give), reversed axes, and chains of sums as `sum_to` runs them:
    /// the same bits and the same strides as ndarray's `sum_axis`.
    #[test]
    fn sum_axis_is_ndarrays_bit_for_bit() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let shapes: [&[usize]; 11] = [
            &[5, 12, 1], // [12, 5, 1] with strides [1, 12, 1]: a column-major result
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
        for shape in shapes {
            let n: usize = shape.iter().product();
            let values: Vec<f32> = (0..n)
                .map(|_| (next() % 20_000) as f32 / 7.0 - 1400.0)
                .collect();
            let base = ok(Array::from_shape_vec(IxDyn(shape), values)
                .map_err(|e| crate::error::Error::internal(e.to_string())));
            for perm in &perms4 {
                let perm: Vec<usize> = perm.iter().copied().filter(|&a| a < shape.len()).collect();
                for flip in [None, Some(0)] {
                    let mut a = base.clone().permuted_axes(IxDyn(&perm));
                    if let Some(f) = flip {
                        a.invert_axis(Axis(f));
                    }
                    for axis in 0..a.ndim() {
                        let m = max_axis(&a, axis);
                        let tm = a.map_axis(Axis(axis), |lane| {
                            lane.iter().copied().fold(f32::NEG_INFINITY, f32::max)
                        });
                        let mbits = |x: &Array| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                        assert_eq!(mbits(&m), mbits(&tm), "max {shape:?} {perm:?} {axis}");
                        assert_eq!(m.strides(), tm.strides(), "max {shape:?} {perm:?} {axis}");
                        let ours = sum_axis(&a, axis);
                        let theirs = a.sum_axis(Axis(axis));
                        let bits = |x: &Array| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
                        assert_eq!(bits(&ours), bits(&theirs), "{shape:?} {perm:?} {axis}");
                        assert_eq!(
                            ours.strides(),
                            theirs.strides(),
                            "{shape:?} {perm:?} {axis}"
                        );
                        if ours.ndim() > 0 {
                            for second in 0..ours.ndim() {
                                let a2 = sum_axis(&ours.clone().insert_axis(Axis(axis)), second);
                                let t2 = theirs
                                    .clone()
                                    .insert_axis(Axis(axis))
                                    .sum_axis(Axis(second));
                                assert_eq!(
                                    bits(&a2),
                                    bits(&t2),
                                    "{shape:?} {perm:?} {axis} {second}"
                                );
                                assert_eq!(a2.strides(), t2.strides());
                            }
                        }
                    }
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
