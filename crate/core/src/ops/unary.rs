//! exp log sin cos tanh sigmoid relu abs sqrt reciprocal. Ops whose derivative is cheapest from
//! the result save the result (as PyTorch does), others save the input.

use super::backward_ops;
use super::cpu_math::{scalar_expf, scalar_tanhf, sleef_expf, LANES};
use super::{elementwise_layout, grad_in, record_elementwise, save_result};
use crate::error::Result;
use crate::node::{BackwardFn, SavedTensor, ScalarBackward};
use crate::small::Small;
use crate::tensor::{Data, Tensor};

/// Which tensor the derivative is computed from.
#[derive(Clone, Copy)]
enum From {
    Input,
    Result,
}

/// `grad_input = backward(grad, saved)`, written with tensor ops so that it
/// is itself differentiable (`create_graph`). A fn item or a closure that
/// captures nothing: the boxed formula stays zero-sized (no allocation).
#[cfg_attr(hookgrad_nightly, optimize(speed))]
fn unary<F>(
    a: &Tensor,
    name: &'static str,
    f: fn(f32) -> f32,
    from: From,
    backward: F,
    scalar: ScalarBackward,
) -> Result<Tensor>
where
    F: Fn(&Tensor, &Tensor) -> Result<Tensor> + 'static,
{
    unary_values(a, name, a.map_data(f)?, from, backward, scalar)
}

/// `unary` with the result's values already computed (`out`).
fn unary_values<F>(
    a: &Tensor,
    name: &'static str,
    out: Data,
    from: From,
    backward: F,
    scalar: ScalarBackward,
) -> Result<Tensor>
where
    F: Fn(&Tensor, &Tensor) -> Result<Tensor> + 'static,
{
    // The per-op closure only forwards (a small thunk per op in the wasm).
    let formula: BackwardFn = Box::new(move |ctx| apply_formula(ctx, &backward));
    unary_node(a, name, out, from, formula, scalar)
}

fn apply_formula(
    ctx: &crate::node::BackwardCtx,
    backward: &dyn Fn(&Tensor, &Tensor) -> Result<Tensor>,
) -> Result<Vec<Option<Tensor>>> {
    let g = grad_in(ctx.grads, ctx.shape);
    Ok(vec![Some(backward(&g, &ctx.saved[0])?)])
}

/// `scalar`: the same formula on numbers (`(grad, [saved], _)`), for a 0-d node.
#[cfg_attr(hookgrad_nightly, optimize(speed))]
fn unary_node(
    a: &Tensor,
    name: &'static str,
    out: Data,
    from: From,
    formula: BackwardFn,
    scalar: ScalarBackward,
) -> Result<Tensor> {
    let saved_input = matches!(from, From::Input);
    let t = record_elementwise(
        name,
        &[Some(a)],
        out,
        |_| {
            if saved_input {
                Small::One(SavedTensor::save(a))
            } else {
                Small::Zero
            }
        },
        formula,
        scalar,
        0.0,
    )?;
    let t = elementwise_layout(t, &[Some(a)])?;
    // A result-saving op saves its own output, which only exists now.
    if !saved_input {
        save_result(&t)?;
    }
    Ok(t)
}
pub fn exp(a: &Tensor) -> Result<Tensor> {
    // PyTorch: grad * result.
    unary(
        a,
        "ExpBackward0",
        exp_value,
        From::Result,
        |g, y| g.mul(y),
        exp_rule,
    )
}
pub fn log(a: &Tensor) -> Result<Tensor> {
    // PyTorch: grad.div(self).
    unary(
        a,
        "LogBackward0",
        f32::ln,
        From::Input,
        |g, x| g.div(x),
        log_rule,
    )
}
pub fn sin(a: &Tensor) -> Result<Tensor> {
    // PyTorch: grad * self.cos().
    unary(
        a,
        "SinBackward0",
        f32::sin,
        From::Input,
        |g, x| g.mul(&x.cos()?),
        sin_rule,
    )
}
pub fn cos(a: &Tensor) -> Result<Tensor> {
    // PyTorch: grad * -self.sin().
    unary(
        a,
        "CosBackward0",
        f32::cos,
        From::Input,
        |g, x| g.mul(&x.sin()?.neg()?),
        cos_rule,
    )
}
#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub fn tanh(a: &Tensor) -> Result<Tensor> {
    // PyTorch: tanh_backward(grad, result), its own node in a double backward.
    unary(
        a,
        "TanhBackward0",
        tanh_value,
        From::Result,
        backward_ops::tanh_backward,
        tanh_rule,
    )
}

// The number formulas (`(grad, [saved], _)`) and the forward functions
// that are not std's, named: the deferred scalar ops (deferred/) run the
// same ones.
pub(crate) fn exp_rule(g: f32, y: &[f32], _: f32) -> [f32; 2] {
    [g * y[0], 0.0]
}
pub(crate) fn log_rule(g: f32, x: &[f32], _: f32) -> [f32; 2] {
    [g / x[0], 0.0]
}
pub(crate) fn sin_rule(g: f32, x: &[f32], _: f32) -> [f32; 2] {
    [g * x[0].cos(), 0.0]
}
pub(crate) fn cos_rule(g: f32, x: &[f32], _: f32) -> [f32; 2] {
    [g * -x[0].sin(), 0.0]
}
/// exp and tanh as PyTorch's CPU kernels give them: the correctly rounded
/// float in all but about one result in seventy (exp) or in a thousand
/// (tanh), at every size (tests/fixtures/float_bits.json, from torch 2.15;
/// `f32::exp` / `f32::tanh` differ in about one in ten).
pub(crate) fn exp_value(x: f32) -> f32 {
    scalar_expf(x)
}
pub(crate) fn tanh_value(x: f32) -> f32 {
    scalar_tanhf(x)
}
/// sigmoid's scalar loop, `1 / (1 + std::exp(-x))` in float32 steps: every
/// element of a tensor shorter than a block, and the tail of a longer one.
pub(crate) fn sigmoid_value(x: f32) -> f32 {
    1.0 / (1.0 + scalar_expf(-x))
}
/// sigmoid's vector loop, `(1 + (-x).exp()).reciprocal()` with SLEEF's exp.
fn sigmoid_vector_value(x: f32) -> f32 {
    1.0 / (1.0 + sleef_expf(-x))
}
pub(crate) fn sigmoid_rule(g: f32, y: &[f32], _: f32) -> [f32; 2] {
    [g * y[0] * (1.0 - y[0]), 0.0]
}
pub(crate) fn relu_value(x: f32) -> f32 {
    x.max(0.0)
}
pub(crate) fn relu_rule(g: f32, y: &[f32], _: f32) -> [f32; 2] {
    [if y[0] > 0.0 { g } else { 0.0 }, 0.0]
}
pub(crate) fn abs_rule(g: f32, x: &[f32], _: f32) -> [f32; 2] {
    [g * backward_ops::sgn_value(x[0]), 0.0]
}
pub(crate) fn sqrt_rule(g: f32, y: &[f32], _: f32) -> [f32; 2] {
    [g / (y[0] * 2.0), 0.0]
}

/// tanh's number formula, saved `[result]` (also run by deferred.rs).
pub(crate) fn tanh_rule(g: f32, y: &[f32], _: f32) -> [f32; 2] {
    [g * (1.0 - y[0] * y[0]), 0.0]
}
pub fn sigmoid(a: &Tensor) -> Result<Tensor> {
    // PyTorch: sigmoid_backward(grad, result). `cpu_kernel_vec` runs its
    // vector loop on whole blocks of two vectors (32 floats on AVX512).
    let out = a.map_data_blocks(2 * LANES, sigmoid_vector_value, sigmoid_value)?;
    unary_values(
        a,
        "SigmoidBackward0",
        out,
        From::Result,
        backward_ops::sigmoid_backward,
        sigmoid_rule,
    )
}
pub fn relu(a: &Tensor) -> Result<Tensor> {
    // PyTorch: threshold_backward(grad, result, 0): grad where result > 0.
    unary(
        a,
        "ReluBackward0",
        relu_value,
        From::Result,
        backward_ops::threshold_backward,
        relu_rule,
    )
}
/// PyTorch: `grad * self.sgn()` (0 at 0); sgn is an op (`SgnBackward0`).
pub fn abs(a: &Tensor) -> Result<Tensor> {
    unary(
        a,
        "AbsBackward0",
        f32::abs,
        From::Input,
        |g, x| g.mul(&backward_ops::sgn(x)?),
        abs_rule,
    )
}
/// PyTorch saves the result: `grad / (2 * result)` (`2 * result` is
/// `mul.Scalar`: `MulBackward1`).
pub fn sqrt(a: &Tensor) -> Result<Tensor> {
    unary(
        a,
        "SqrtBackward0",
        f32::sqrt,
        From::Result,
        |g, y| g.div(&backward_ops::mul_scalar(y, 2.0)?),
        sqrt_rule,
    )
}

/// PyTorch saves the result: `-grad * (result * result).conj()` (two
/// `MulBackward0` and a `NegBackward0` under `create_graph`).
pub fn reciprocal(a: &Tensor) -> Result<Tensor> {
    unary(
        a,
        "ReciprocalBackward0",
        |x| 1.0 / x,
        From::Result,
        |g, y| g.neg()?.mul(&y.mul(y)?),
        |g, y, _| [-g * (y[0] * y[0]), 0.0],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::*;

    #[test]
    fn unary_gradients_match_finite_differences() {
        check_unary_gradients("exp", &[2, 2], exp);
        check_unary_gradients("sin", &[3], sin);
        check_unary_gradients("cos", &[3], cos);
        check_unary_gradients("tanh", &[2, 3], tanh);
        check_unary_gradients("sigmoid", &[4], sigmoid);
        check_unary_gradients("relu", &[5], relu);
        check_unary_gradients("log", &[3], log);
        check_unary_gradients("sqrt", &[2, 2], sqrt);
        check_unary_gradients("reciprocal", &[3], |a| {
            reciprocal(&crate::ops::arith::add(a, &3.0f32.into())?)
        });
        check_unary_gradients("abs", &[3], |a| {
            abs(&crate::ops::arith::sub(a, &1.0f32.into())?)
        });
    }

    #[test]
    fn result_saving_op_detects_inplace_change_of_its_output() {
        let a = leaf(&[1.0, 2.0], &[2]);
        let y = ok(exp(&a));
        let s = ok(crate::ops::reduce::sum(&y));
        ok(crate::context::no_grad(|| {
            crate::ops::inplace::add_(&y, &crate::ops::Operand::Scalar(1.0))
        }));
        let err = crate::engine::backward(&s, None, false, None)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.starts_with("one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [2]]"), "{err}");
        assert!(
            err.contains("is at version 1; expected version 0 instead."),
            "{err}"
        );
    }
}
