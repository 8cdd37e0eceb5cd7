//! `pow` with a tensor exponent (`PowBackward1`: self and exponent both
//! tensors, broadcasting) and with a number base (`torch.pow(2, t)`,
//! `2 ** t`: `PowBackward2`). PyTorch: FunctionsManual.cpp
//! (`pow_backward_self`, `pow_backward_exponent`).

use super::arith::broadcast_zip;
use super::backward_ops::map_with;
use super::masked::{keep_where, mask_of, Spelling};
use super::{elementwise_layout, grad_in, record, record_elementwise, save_result};
use crate::error::Result;
use crate::node::SavedTensor;
use crate::small::Small;
use crate::tensor::Tensor;

/// `a.pow(e)` for a tensor `e` (`PowBackward1`).
pub fn pow_tensor(a: &Tensor, e: &Tensor) -> Result<Tensor> {
    let out = broadcast_zip(&*a.data()?, &*e.data()?, f32::powf)?;
    let out_shape = out.shape().to_vec();
    let t = record_elementwise(
        "PowBackward1",
        &[Some(a), Some(e)],
        out.into(),
        // PyTorch's order (its pack / unpack hooks see them so): exponent,
        // self, then the result.
        |_| Small::Two([SavedTensor::save(e), SavedTensor::save(a)]),
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
        // 0-d: the same formula on numbers (the engine's scalar mode and
        // the deferred rows make no temporary tensors, so no ids).
        pow_tensor_rule,
        0.0,
    )?;
    save_result(&t)?;
    elementwise_layout(t, &[Some(a), Some(e)])
}

/// `PowBackward1`'s formula on numbers, for a deferred 0-d `a.pow(e)`
/// (`deferred::op`): `saved` is the node's `[exponent, self, result]`, and
/// every step is the tensor formula's above, in its order (so the bits are
/// the same, NaN and infinities included):
/// `where(e == 0, 0, g * (e * self.pow(e - 1)))` and
/// `g * where(self == 0 & e >= 0, 0, result * self.log())`.
pub(crate) fn pow_tensor_rule(g: f32, saved: &[f32], _: f32) -> [f32; 2] {
    // The deferred step always reads three values; anything else is a
    // fault, shown as NaN rather than a trap.
    let &[e, x, r] = saved else {
        return [f32::NAN; 2];
    };
    let gs = if e != 0.0 {
        g * (e * x.powf(e - 1.0))
    } else {
        0.0
    };
    let w = if x == 0.0 && e >= 0.0 {
        0.0
    } else {
        r * x.ln()
    };
    [gs, g * w]
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

    /// The number formula against the tensor formula, bit for bit, on the
    /// corners (zero base and exponent, negative bases, NaN results).
    #[test]
    fn pow_tensor_rule_is_the_tensor_formula() {
        let values = [0.0, -0.0, 1.0, 2.5, -1.5, 0.5, -2.0, 3.0, f32::INFINITY];
        for &x in &values {
            for &p in &values {
                let a = leaf(&[x], &[]);
                let e = leaf(&[p], &[]);
                let y = ok(pow_tensor(&a, &e));
                ok(y.backward_ext(
                    Some(crate::tensor::Tensor::scalar(0.75)),
                    false,
                    false,
                    None,
                ));
                let grads = [a.grad_raw(), e.grad_raw()].map(|g| g.and_then(|g| g.item().ok()));
                let r = ok(y.item());
                let rule = pow_tensor_rule(0.75, &[p, x, r], 0.0);
                let bits =
                    |v: Option<f32>| v.map(|v| if v.is_nan() { u32::MAX } else { v.to_bits() });
                assert_eq!(
                    [bits(grads[0]), bits(grads[1])],
                    [bits(Some(rule[0])), bits(Some(rule[1]))],
                    "{x}.pow({p})"
                );
            }
        }
    }
}
