//! `t.norm(p, dim, keepdim)` — PyTorch 2 routes `Tensor.norm` and
//! `torch.norm` to `linalg_vector_norm`, so the node is
//! `LinalgVectorNormBackward0` for every `p` — and `t.clamp(min, max)`
//! (`ClampBackward1`, numbers as bounds). PyTorch: FunctionsManual.cpp
//! (`norm_backward`), derivatives.yaml (`clamp`).

use super::arith::broadcast_zip;
use super::backward_ops::map_with;
use super::{constant, elementwise_layout, grad_in, record, save_result, shape_ops};
use crate::error::{Error, Result};
use crate::node::SavedTensor;
use crate::shape::wrap_dim;
use crate::tensor::{Array, Tensor};

/// `t.norm(p = 2, dim?, keepdim = false)`; `p` a positive finite number.
/// Built from the array's own sums (no loop of its own: the wasm is small).
pub fn norm(a: &Tensor, p: f32, dim: Option<i64>, keepdim: bool) -> Result<Tensor> {
    if !(p.is_finite() && p > 0.0) {
        // No float in the message: formatting one costs the wasm ~4 KB gzip.
        return Err(Error::runtime(
            "hookgrad does not implement torch.norm with a p that is not a positive finite number yet",
        ));
    }
    let shape = a.shape();
    let axis = match dim {
        Some(d) => Some(wrap_dim(d, shape.len())?).filter(|_| !shape.is_empty()),
        None => None,
    };
    // `map_with` (one fn pointer type), not `mapv` with closures: each
    // closure would be one more copy of the loop in the wasm.
    let powered = map_with(&*a.data()?, p, |v, p| match p {
        1.0 => v.abs(),
        2.0 => v * v,
        _ => v.abs().powf(p),
    });
    let summed = match axis {
        Some(ax) => powered.sum_axis(ax),
        None => Array::scalar(powered.sum()),
    };
    let mut out = map_with(&summed, p, |s, p| match p {
        1.0 => s,
        2.0 => s.sqrt(),
        _ => s.powf(1.0 / p),
    });
    if keepdim {
        out = match axis {
            Some(ax) => out.insert_axis(ax),
            None => Array::from_elem(&vec![1; shape.len()], out.sum()),
        };
    }
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
                let (x, r) = (ctx.saved[0].data()?, ctx.saved[1].data()?);
                let mut inv = map_with(&r, p, |n, p| match p {
                    1.0 => 1.0,
                    _ if n == 0.0 => 0.0,
                    2.0 => 1.0 / n,
                    _ => 1.0 / n.powf(p - 1.0),
                });
                if let (Some(ax), false) = (axis, keepdim) {
                    inv = inv.insert_axis(ax);
                }
                let xf = map_with(&x, p, |v, p| match p {
                    1.0 => super::backward_ops::sgn_value(v),
                    2.0 => v,
                    _ => v * v.abs().powf(p - 2.0),
                });
                broadcast_zip(&xf, &inv, |a, b| a * b)?
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
    let out = map_with(&*a.data()?, lo, |v, lo| if v < lo { lo } else { v });
    let out = map_with(&out, hi, |v, hi| if v > hi { hi } else { v });
    let shape = a.shape();
    let t = record(
        "ClampBackward1",
        &[Some(a)],
        out,
        || vec![SavedTensor::save(a)],
        Box::new(move |ctx| {
            let g = grad_in(ctx.grads, &shape);
            let x = ctx.saved[0].data()?;
            let above = map_with(&x, lo, |v, lo| f32::from(u8::from(v > lo)));
            let below = map_with(&x, hi, |v, hi| f32::from(u8::from(v < hi)));
            let inside = broadcast_zip(&above, &below, |a, b| a * b)?;
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
