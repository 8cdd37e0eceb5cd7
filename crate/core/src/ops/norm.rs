//! `t.norm(p, dim, keepdim)` — PyTorch 2 routes `Tensor.norm` and
//! `torch.norm` to `linalg_vector_norm`, so the node is
//! `LinalgVectorNormBackward0` for every `p` — and `t.clamp(min, max)`
//! (`ClampBackward1`, numbers as bounds). PyTorch: FunctionsManual.cpp
//! (`norm_backward`), derivatives.yaml (`clamp`).

use super::arith::broadcast_zip;
use super::backward_ops::map_with;
use super::masked::{keep_where, mask_of, Spelling};
use super::{elementwise_layout, grad_in, record, save_result, shape_ops};
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
        // PyTorch norm_backward, with tensor ops (a double backward goes
        // through them): self.sgn() * grad (p = 1); grad * (self / norm)
        // (p = 2) or self * |self|^(p-2) * (grad / norm^(p-1)), the
        // quotient masked_fill_ to 0 where the norm is 0.
        Box::new(move |ctx| {
            let mut g = grad_in(ctx.grads, &out_shape);
            let (x, mut r) = (ctx.saved[0].clone(), ctx.saved[1].clone());
            if let (Some(ax), false) = (axis, keepdim) {
                g = shape_ops::unsqueeze(&g, ax)?;
                r = shape_ops::unsqueeze(&r, ax)?;
            }
            if p == 1.0 {
                return Ok(vec![Some(super::backward_ops::sgn(&x)?.mul(&g)?)]);
            }
            let keep = broadcast_zip(&*x.data()?, &*r.data()?, |_, n| {
                f32::from(u8::from(n != 0.0))
            })?;
            let grad = if p == 2.0 {
                g.mul(&keep_where(&x.div(&r)?, keep, Spelling::MaskedFill)?)?
            } else {
                let q = keep_where(&g.div(&r.pow(p - 1.0)?)?, keep, Spelling::MaskedFill)?;
                x.mul(&x.abs()?.pow(p - 2.0)?)?.mul(&q)?
            };
            Ok(vec![Some(grad)])
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
        // PyTorch: where(min < self < max, grad, 0).
        Box::new(move |ctx| {
            let g = grad_in(ctx.grads, &shape);
            let inside = {
                let x = ctx.saved[0].data()?;
                let above = mask_of(&x, lo, |v, lo| v > lo);
                broadcast_zip(&above, &mask_of(&x, hi, |v, hi| v < hi), |a, b| a * b)?
            };
            Ok(vec![Some(keep_where(&g, inside, Spelling::Where)?)])
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
