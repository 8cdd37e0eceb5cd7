//! `pow` with a tensor exponent (`PowBackward1`: self and exponent both
//! tensors, broadcasting) and with a number base (`torch.pow(2, t)`,
//! `2 ** t`: `PowBackward2`). PyTorch: FunctionsManual.cpp
//! (`pow_backward_self`, `pow_backward_exponent`).

use super::arith::broadcast_zip;
use super::backward_ops::map_with;
use super::masked::{keep_where, mask_of, Spelling};
use super::{elementwise_layout, grad_in, record, save_result};
use crate::error::Result;
use crate::node::SavedTensor;
use crate::tensor::Tensor;

/// `a.pow(e)` for a tensor `e` (`PowBackward1`).
pub fn pow_tensor(a: &Tensor, e: &Tensor) -> Result<Tensor> {
    let out = broadcast_zip(&*a.data()?, &*e.data()?, f32::powf)?;
    let out_shape = out.shape().to_vec();
    let t = record(
        "PowBackward1",
        &[Some(a), Some(e)],
        out,
        // PyTorch's order (its pack / unpack hooks see them so): exponent,
        // self, then the result.
        || vec![SavedTensor::save(e), SavedTensor::save(a)],
        // PyTorch pow_backward_self / pow_backward_exponent, with tensor
        // ops (so a double backward differentiates them); the engine sums
        // each gradient back to its input's shape.
        Box::new(move |ctx| {
            let g = grad_in(ctx.grads, &out_shape);
            let (y, x, r) = (&ctx.saved[0], &ctx.saved[1], &ctx.saved[2]);
            // where(exponent == 0, 0, grad * (exponent * self.pow(exponent - 1)))
            let gs = super::need(ctx.needs, 0, || {
                let d = y.mul(&pow_tensor(x, &y.sub(1.0)?)?)?;
                let keep = mask_of(&*y.data()?, 0.0, |p, z| p != z);
                keep_where(
                    &g.mul(&d)?,
                    keep.broadcast(&out_shape).unwrap_or(keep),
                    Spelling::Where,
                )
            })?;
            // grad * where(self == 0 & exponent >= 0, 0, result * self.log())
            let ge = super::need(ctx.needs, 1, || {
                let keep = broadcast_zip(&*x.data()?, &*y.data()?, |b, p| {
                    f32::from(u8::from(!(b == 0.0 && p >= 0.0)))
                })?;
                g.mul(&keep_where(&r.mul(&x.log()?)?, keep, Spelling::Where)?)
            })?;
            Ok(vec![gs, ge])
        }),
    )?;
    save_result(&t)?;
    elementwise_layout(t, &[Some(a), Some(e)])
}

/// `torch.pow(base, e)` for a number `base` (`PowBackward2`).
pub fn pow_number_base(base: f32, e: &Tensor) -> Result<Tensor> {
    let out = map_with(&*e.data()?, base, |p, b| b.powf(p));
    let shape = e.shape();
    let t = record(
        "PowBackward2",
        &[Some(e)],
        out,
        || vec![SavedTensor::save(e)],
        // PyTorch: grad * (result * log(base)); for base 0, 0 where the
        // exponent is >= 0.
        Box::new(move |ctx| {
            let g = grad_in(ctx.grads, &shape);
            let (e, r) = (&ctx.saved[0], &ctx.saved[1]);
            let ge = g.mul(&super::backward_ops::mul_scalar(r, base.ln())?)?;
            if base != 0.0 {
                return Ok(vec![Some(ge)]);
            }
            let keep = mask_of(&*e.data()?, 0.0, |p, z| p < z);
            Ok(vec![Some(keep_where(&ge, keep, Spelling::Where)?)])
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
