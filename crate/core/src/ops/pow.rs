//! `pow` with a tensor exponent (`PowBackward1`: self and exponent both
//! tensors, broadcasting) and with a number base (`torch.pow(2, t)`,
//! `2 ** t`: `PowBackward2`). PyTorch: FunctionsManual.cpp
//! (`pow_backward_self`, `pow_backward_exponent`).

use super::arith::broadcast_zip;
use super::{constant, elementwise_layout, grad_in, record, save_result};
use crate::error::Result;
use crate::node::SavedTensor;
use crate::tensor::{Array, Tensor};

/// `grad * result * log(base)`'s factor, 0 where `base == 0` and the
/// exponent is `>= 0` (PyTorch masks what would be `0 * -inf`).
fn exponent_factor(base: f32, exponent: f32, result: f32) -> f32 {
    if base == 0.0 && exponent >= 0.0 {
        0.0
    } else {
        result * base.ln()
    }
}

/// `a.pow(e)` for a tensor `e` (`PowBackward1`).
pub fn pow_tensor(a: &Tensor, e: &Tensor) -> Result<Tensor> {
    let out = broadcast_zip(&*a.data()?, &*e.data()?, f32::powf)?;
    let out_shape = out.shape().to_vec();
    let t = record(
        "PowBackward1",
        &[Some(a), Some(e)],
        out,
        || vec![SavedTensor::save(a), SavedTensor::save(e)],
        // The engine sums each gradient back to its input's shape.
        Box::new(move |ctx| {
            let g = grad_in(ctx.grads, &out_shape);
            let (x, y, r) = (&ctx.saved[0], &ctx.saved[1], &ctx.saved[2]);
            let gs = super::need(ctx.needs, 0, || {
                // exponent * self^(exponent - 1), 0 where the exponent is 0.
                let f = broadcast_zip(&*x.data()?, &*y.data()?, |b, p| {
                    if p == 0.0 {
                        0.0
                    } else {
                        p * b.powf(p - 1.0)
                    }
                })?;
                g.mul(&constant(f))
            })?;
            let ge = super::need(ctx.needs, 1, || {
                let xy =
                    broadcast_zip(&*x.data()?, &*y.data()?, |b, p| exponent_factor(b, p, 1.0))?;
                let f = broadcast_zip(&xy, &*r.data()?, |f, r| if f == 0.0 { 0.0 } else { f * r })?;
                g.mul(&constant(f))
            })?;
            Ok(vec![gs, ge])
        }),
    )?;
    save_result(&t)?;
    elementwise_layout(t, &[Some(a), Some(e)])
}

/// `torch.pow(base, e)` for a number `base` (`PowBackward2`).
pub fn pow_number_base(base: f32, e: &Tensor) -> Result<Tensor> {
    let out: Array = e.data()?.mapv(|p| base.powf(p));
    let shape = e.shape();
    let t = record(
        "PowBackward2",
        &[Some(e)],
        out,
        || vec![SavedTensor::save(e)],
        Box::new(move |ctx| {
            let g = grad_in(ctx.grads, &shape);
            let (e, r) = (ctx.saved[0].data()?, ctx.saved[1].data()?);
            let f: Vec<f32> = (e.iter().zip(r.iter()))
                .map(|(&p, &r)| exponent_factor(base, p, r))
                .collect();
            let f = Array::from_shape_vec(e.shape(), f)
                .map_err(|err| crate::error::Error::internal(format!("pow backward: {err}")))?;
            Ok(vec![Some(g.mul(&constant(f))?)])
        }),
    )?;
    save_result(&t)?;
    // PyTorch wraps the number into a tensor first: the result is
    // row-major whatever the exponent's layout (`torch.pow(2, x.t())`).
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::*;

    #[test]
    fn pow_gradients() {
        check_unary_gradients("number base", &[2, 3], |a| pow_number_base(2.0, a));
        let p = leaf(&[0.5, 1.0, 1.5, 2.0, 2.5, 3.0], &[2, 3]);
        check_unary_gradients("tensor exponent", &[2, 3], |e| pow_tensor(&p, e));
        let e = crate::testing::constant(&[0.5, -1.0, 2.0], &[3]);
        check_unary_gradients("tensor base", &[2, 3], |b| pow_tensor(&b.exp()?, &e));
    }
}
