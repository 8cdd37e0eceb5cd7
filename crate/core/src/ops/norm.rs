//! `t.norm(p, dim, keepdim)` — PyTorch 2 routes `Tensor.norm` and
//! `torch.norm` to `linalg_vector_norm`, so the node is
//! `LinalgVectorNormBackward0` for every `p` — and `t.clamp(min, max)`
//! (`ClampBackward1`, numbers as bounds). PyTorch: FunctionsManual.cpp
//! (`norm_backward`), derivatives.yaml (`clamp`).

use super::{constant, elementwise_layout, grad_in, record, save_result, shape_ops};
use crate::error::{Error, Result};
use crate::node::SavedTensor;
use crate::shape::wrap_dim;
use crate::tensor::{Array, Tensor};

/// `(sum |x|^p)^(1/p)` of the values in `lane` (`p = 2`: the square root
/// of the sum of squares; `p = 1`: the sum of absolute values).
fn lane_norm(lane: impl Iterator<Item = f32>, p: f32) -> f32 {
    if p == 2.0 {
        lane.map(|v| v * v).sum::<f32>().sqrt()
    } else if p == 1.0 {
        lane.map(f32::abs).sum()
    } else {
        lane.map(|v| v.abs().powf(p)).sum::<f32>().powf(1.0 / p)
    }
}

/// Index of each element's lane in the reduced (keepdim) array.
fn lane_of(shape: &[usize], axis: Option<usize>, flat: usize) -> usize {
    match axis {
        None => 0,
        Some(a) => {
            let inner: usize = shape[a + 1..].iter().product();
            let len = shape[a];
            (flat / (inner * len)) * inner + flat % inner
        }
    }
}

/// `t.norm(p = 2, dim?, keepdim = false)`; `p` a positive finite number.
pub fn norm(a: &Tensor, p: f32, dim: Option<i64>, keepdim: bool) -> Result<Tensor> {
    if !(p.is_finite() && p > 0.0) {
        return Err(Error::runtime(format!(
            "hookgrad does not implement torch.norm with p={p} yet (only positive finite p)"
        )));
    }
    let shape = a.shape();
    let axis = match dim {
        Some(d) if !shape.is_empty() => Some(wrap_dim(d, shape.len())?),
        Some(d) => {
            wrap_dim(d, 0)?;
            None
        }
        None => None,
    };
    let out = {
        let d = a.data()?;
        let src = d.as_slice();
        match axis {
            None => {
                let v = lane_norm(src.iter().copied(), p);
                if keepdim {
                    Array::from_elem(&vec![1; shape.len()], v)
                } else {
                    Array::scalar(v)
                }
            }
            Some(ax) => {
                let (len, inner) = (shape[ax], shape[ax + 1..].iter().product::<usize>());
                let outer: usize = shape[..ax].iter().product();
                let mut vals = Vec::with_capacity(outer * inner);
                for o in 0..outer {
                    for i in 0..inner {
                        let lane = (0..len).map(|k| src[(o * len + k) * inner + i]);
                        vals.push(lane_norm(lane, p));
                    }
                }
                let mut s = shape.clone();
                if keepdim {
                    s[ax] = 1;
                } else {
                    s.remove(ax);
                }
                Array::from_shape_vec(&s, vals)
                    .map_err(|e| Error::internal(format!("norm result: {e}")))?
            }
        }
    };
    let out_shape = out.shape().to_vec();
    let t = record(
        "LinalgVectorNormBackward0",
        &[Some(a)],
        out,
        || vec![SavedTensor::save(a)],
        // PyTorch norm_backward: grad * sgn(x) (p = 1), x * grad / norm
        // (p = 2), x |x|^(p-2) grad / norm^(p-1) otherwise; 0 where the
        // norm is 0.
        Box::new(move |ctx| {
            let mut g = grad_in(ctx.grads, &out_shape);
            let factor = {
                let (x, result) = (ctx.saved[0].data()?, ctx.saved[1].data()?);
                let r = result.as_slice();
                let factor: Vec<f32> = x
                    .iter()
                    .enumerate()
                    .map(|(flat, &v)| {
                        let n = r.get(lane_of(&shape, axis, flat)).copied().unwrap_or(0.0);
                        if p == 1.0 {
                            super::backward_ops::sgn_value(v)
                        } else if n == 0.0 {
                            0.0
                        } else if p == 2.0 {
                            v / n
                        } else {
                            v * v.abs().powf(p - 2.0) / n.powf(p - 1.0)
                        }
                    })
                    .collect();
                let factor = Array::from_shape_vec(x.shape(), factor)
                    .map_err(|e| Error::internal(format!("norm backward: {e}")))?;
                factor
            };
            if let (Some(ax), false) = (axis, keepdim) {
                g = shape_ops::unsqueeze(&g, ax)?;
            }
            let sizes: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
            let e = shape_ops::expand(&g, &sizes)?;
            Ok(vec![Some(e.mul(&constant(factor))?)])
        }),
    )?;
    save_result(&t)?;
    Ok(t)
}

/// `t.clamp(min?, max?)` with number bounds (`ClampBackward1`): the
/// gradient passes where `min < x < max` (PyTorch 2.15 gives 0 on a bound).
pub fn clamp(a: &Tensor, min: Option<f32>, max: Option<f32>) -> Result<Tensor> {
    if min.is_none() && max.is_none() {
        return Err(Error::runtime(
            "torch.clamp: At least one of 'min' or 'max' must not be None",
        ));
    }
    let (lo, hi) = (
        min.unwrap_or(f32::NEG_INFINITY),
        max.unwrap_or(f32::INFINITY),
    );
    // PyTorch: min(max(x, lo), hi) (so hi wins when lo > hi); NaN stays.
    let out = a
        .data()?
        .mapv(|v| if v.is_nan() { v } else { v.max(lo).min(hi) });
    let shape = a.shape();
    let t = record(
        "ClampBackward1",
        &[Some(a)],
        out,
        || vec![SavedTensor::save(a)],
        Box::new(move |ctx| {
            let g = grad_in(ctx.grads, &shape);
            let inside = ctx.saved[0]
                .data()?
                .mapv(|v| if v > lo && v < hi { 1.0 } else { 0.0 });
            Ok(vec![Some(g.mul(&constant(inside))?)])
        }),
    )?;
    elementwise_layout(t, &[Some(a)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::*;

    #[test]
    fn norm_and_clamp() {
        let z = leaf(&[0.0, 0.0, 0.0, 3.0, -4.0, 0.0], &[2, 3]);
        let n = ok(norm(&z, 2.0, Some(1), false));
        assert_eq!(values(&n), vec![0.0, 5.0]);
        ok(ok(n.sum()).backward());
        assert_eq!(grad_values(&z), vec![0.0, 0.0, 0.0, 0.6, -0.8, 0.0]);
        check_unary_gradients("norm", &[2, 3], |a| norm(a, 2.0, None, false));
        check_unary_gradients("norm p3 dim", &[2, 3], |a| norm(a, 3.0, Some(0), true));
        check_unary_gradients("clamp", &[2, 3], |a| clamp(a, Some(-0.3), Some(0.4)));
    }
}
