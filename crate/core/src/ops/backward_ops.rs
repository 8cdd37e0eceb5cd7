//! The backward functions PyTorch's derivatives.yaml calls by name, as ops
//! with their own nodes, so a double backward (`create_graph`) builds the
//! graph PyTorch builds: `tanh_backward` (`TanhBackwardBackward0`),
//! `sigmoid_backward`, `threshold_backward` (relu), `_softmax_backward_data`,
//! `_log_softmax_backward_data`, `mse_loss_backward`, `nll_loss_backward`;
//! plus `sgn` (abs's formula) and the Scalar overloads a C++ formula uses
//! (`2 * result` is `mul.Scalar`: `MulBackward1`, one edge, where JS
//! `x.mul(2)` is `MulBackward0` with a `(None, 0)` edge).
//!
//! Each op's forward is the backward formula; its own backward is the
//! formula derivatives.yaml gives for it (PyTorch:
//! tools/autograd/derivatives.yaml, torch/csrc/autograd/FunctionsManual.cpp).
//! Without grad mode (a plain backward) `record` builds no node, so these are
//! one fused pass each.

use super::arith::broadcast_zip;
use super::{constant, elementwise_layout, grad_in, need, record};
use crate::context::no_grad;
use crate::error::Result;
use crate::node::SavedTensor;
use crate::ops::loss::Reduction;
use crate::ops::softmax::sum_keep;
use crate::tensor::{Array, Tensor};

/// `a.mapv(|v| f(v, s))`, one instance for every caller: `mapv` is
/// compiled once per closure type.
/// A plain `fn(f32) -> f32` goes through `a.mapv(f)` (`Data::map`'s).
pub(crate) fn map_with(a: &Array, s: f32, f: fn(f32, f32) -> f32) -> Array {
    a.mapv(move |v| f(v, s))
}

/// A one-edge op `f(a, s)` with a Scalar operand (`…Backward1`).
fn scalar_op(
    name: &'static str,
    a: &Tensor,
    s: f32,
    f: fn(f32, f32) -> f32,
    backward: fn(&Tensor, f32) -> Result<Tensor>,
) -> Result<Tensor> {
    let out = map_with(&*a.data()?, s, f);
    let shape = out.shape().to_vec();
    let t = record(
        name,
        &[Some(a)],
        out,
        Vec::new,
        Box::new(move |ctx| {
            let g = grad_in(ctx.grads, &shape);
            Ok(vec![Some(backward(&g, s)?)])
        }),
    )?;
    elementwise_layout(t, &[Some(a)])
}

/// `mul.Scalar`: `MulBackward1` (grad * s).
pub fn mul_scalar(a: &Tensor, s: f32) -> Result<Tensor> {
    scalar_op("MulBackward1", a, s, |x, s| x * s, mul_scalar)
}

/// `add.Scalar`: `AddBackward1` (grad passes through).
pub fn add_scalar(a: &Tensor, s: f32) -> Result<Tensor> {
    scalar_op("AddBackward1", a, s, |x, s| x + s, |g, _| Ok(g.clone()))
}

/// `div.Scalar`: `DivBackward1` (grad / s).
pub fn div_scalar(a: &Tensor, s: f32) -> Result<Tensor> {
    scalar_op("DivBackward1", a, s, |x, s| x / s, div_scalar)
}

/// A zero gradient shaped like `g` (PyTorch's `zeros_like(grad)`: defined,
/// not None, so the edge still receives a gradient).
fn zeros_like(g: &Tensor) -> Tensor {
    constant(Array::zeros(&g.shape()))
}

/// `sgn` (-1, 0, 1). PyTorch: sgn_backward is a zero tensor for real input.
pub fn sgn(a: &Tensor) -> Result<Tensor> {
    let out = a.data()?.mapv(sgn_value as fn(f32) -> f32);
    let shape = out.shape().to_vec();
    let t = record(
        "SgnBackward0",
        &[Some(a)],
        out,
        Vec::new,
        Box::new(move |ctx| Ok(vec![Some(zeros_like(&grad_in(ctx.grads, &shape)))])),
    )?;
    elementwise_layout(t, &[Some(a)])
}

/// `sgn` of one number (0 at 0 and for NaN, as the tensor op).
pub(crate) fn sgn_value(v: f32) -> f32 {
    if v > 0.0 {
        1.0
    } else if v < 0.0 {
        -1.0
    } else {
        0.0
    }
}

/// A fused op's backward: `(grad, saved grad_output, saved y, needs)`.
type Fused2Backward = fn(&Tensor, &Tensor, &Tensor, &[bool]) -> Result<Vec<Option<Tensor>>>;

/// Records a two-input fused backward op `f(go, y)` saving both.
fn fused2(
    name: &'static str,
    go: &Tensor,
    y: &Tensor,
    f: fn(f32, f32) -> f32,
    backward: Fused2Backward,
) -> Result<Tensor> {
    let out = broadcast_zip(&*go.data()?, &*y.data()?, f)?;
    let shape = out.shape().to_vec();
    let t = record(
        name,
        &[Some(go), Some(y)],
        out,
        || vec![SavedTensor::save(go), SavedTensor::save(y)],
        Box::new(move |ctx| {
            let gg = grad_in(ctx.grads, &shape);
            backward(&gg, &ctx.saved[0], &ctx.saved[1], ctx.needs)
        }),
    )?;
    elementwise_layout(t, &[Some(go), Some(y)])
}

/// `tanh_backward(grad_output, output)` = grad_output * (1 - output²).
pub fn tanh_backward(go: &Tensor, y: &Tensor) -> Result<Tensor> {
    fused2(
        "TanhBackwardBackward0",
        go,
        y,
        |g, y| g * (1.0 - y * y),
        // grad_output: tanh_backward(grad, output);
        // output: grad * (-2 * output * grad_output).
        |gg, go, y, needs| {
            Ok(vec![
                need(needs, 0, || tanh_backward(gg, y))?,
                need(needs, 1, || gg.mul(&mul_scalar(y, -2.0)?.mul(go)?))?,
            ])
        },
    )
}

/// `sigmoid_backward(grad_output, output)` = grad_output * output * (1 - output).
pub fn sigmoid_backward(go: &Tensor, y: &Tensor) -> Result<Tensor> {
    fused2(
        "SigmoidBackwardBackward0",
        go,
        y,
        |g, y| g * y * (1.0 - y),
        // grad_output: sigmoid_backward(grad, output);
        // output: grad * grad_output * (-2 * output + 1).
        |gg, go, y, needs| {
            Ok(vec![
                need(needs, 0, || sigmoid_backward(gg, y))?,
                need(needs, 1, || {
                    gg.mul(go)?.mul(&add_scalar(&mul_scalar(y, -2.0)?, 1.0)?)
                })?,
            ])
        },
    )
}

/// `threshold_backward(grad_output, self, 0)`: grad_output where self > 0
/// (relu's backward, with self = relu's result).
pub fn threshold_backward(go: &Tensor, x: &Tensor) -> Result<Tensor> {
    fused2(
        "ThresholdBackwardBackward0",
        go,
        x,
        |g, x| if x > 0.0 { g } else { 0.0 },
        // grad_output: threshold_backward(grad, self, threshold);
        // self: zeros_like(grad).
        |gg, _go, x, needs| {
            Ok(vec![
                need(needs, 0, || threshold_backward(gg, x))?,
                need(needs, 1, || Ok(zeros_like(gg)))?,
            ])
        },
    )
}

/// The value of a composite formula, computed without recording.
fn value(f: impl FnOnce() -> Result<Tensor>) -> Result<Array> {
    no_grad(f)?.to_array()
}

/// `_softmax_backward_data(grad_output, output, dim)` =
/// output * (grad_output - sum(grad_output * output, dim, keepdim)).
pub fn softmax_backward_data(go: &Tensor, y: &Tensor, axis: Option<usize>) -> Result<Tensor> {
    let out = value(|| y.mul(&go.sub(&sum_keep(&go.mul(y)?, axis)?)?))?;
    let shape = out.shape().to_vec();
    record(
        "SoftmaxBackwardDataBackward0",
        &[Some(go), Some(y)],
        out,
        || vec![SavedTensor::save(go), SavedTensor::save(y)],
        Box::new(move |ctx| {
            let gg = grad_in(ctx.grads, &shape);
            let (go, y) = (&ctx.saved[0], &ctx.saved[1]);
            // grad_output: _softmax_backward_data(grad, output, dim);
            // output: softmax_double_backward(grad, grad_output, dim, output) =
            //   grad_output * grad - (output * grad_output).sum(dim, true) * grad
            //   - grad_output * (output * grad).sum(dim, true).
            Ok(vec![
                need(ctx.needs, 0, || softmax_backward_data(&gg, y, axis))?,
                need(ctx.needs, 1, || {
                    go.mul(&gg)?
                        .sub(&sum_keep(&y.mul(go)?, axis)?.mul(&gg)?)?
                        .sub(&go.mul(&sum_keep(&y.mul(&gg)?, axis)?)?)
                })?,
            ])
        }),
    )
}

/// `_log_softmax_backward_data(grad_output, output, dim)` =
/// grad_output - exp(output) * sum(grad_output, dim, keepdim).
pub fn log_softmax_backward_data(go: &Tensor, y: &Tensor, axis: Option<usize>) -> Result<Tensor> {
    let out = value(|| go.sub(&y.exp()?.mul(&sum_keep(go, axis)?)?))?;
    let shape = out.shape().to_vec();
    record(
        "LogSoftmaxBackwardDataBackward0",
        &[Some(go), Some(y)],
        out,
        || vec![SavedTensor::save(go), SavedTensor::save(y)],
        Box::new(move |ctx| {
            let gg = grad_in(ctx.grads, &shape);
            let (go, y) = (&ctx.saved[0], &ctx.saved[1]);
            // grad_output: grad - (grad * output.exp()).sum(dim, true);
            // output: -grad_output.sum(dim, true) * output.exp() * grad.
            Ok(vec![
                need(ctx.needs, 0, || {
                    gg.sub(&sum_keep(&gg.mul(&y.exp()?)?, axis)?)
                })?,
                need(ctx.needs, 1, || {
                    sum_keep(go, axis)?.neg()?.mul(&y.exp()?)?.mul(&gg)
                })?,
            ])
        }),
    )
}

/// PyTorch mse_loss_double_backward: 2 * grad, divided by numel for 'mean'.
fn mse_loss_double_backward(g: &Tensor, reduction: Reduction, n: f32) -> Result<Tensor> {
    let two = mul_scalar(g, 2.0)?;
    if reduction == Reduction::Mean {
        div_scalar(&two, n)
    } else {
        Ok(two)
    }
}

/// `mse_loss_backward(grad_output, self, target, reduction)` =
/// norm * (self - target) * grad_output, norm = 2 (/ numel for 'mean').
/// PyTorch's mse_loss calls it for the target too, with self and target swapped.
pub fn mse_loss_backward(
    go: &Tensor,
    x: &Tensor,
    t: &Tensor,
    reduction: Reduction,
) -> Result<Tensor> {
    let n = x.numel().max(1) as f32;
    let norm = if reduction == Reduction::Mean {
        2.0 / n
    } else {
        2.0
    };
    let diff = broadcast_zip(&*x.data()?, &*t.data()?, |a, b| a - b)?;
    let out = map_with(
        &broadcast_zip(&diff, &*go.data()?, |d, g| d * g)?,
        norm,
        |v, norm| v * norm,
    );
    let shape = out.shape().to_vec();
    record(
        "MseLossBackwardBackward0",
        &[Some(go), Some(x), Some(t)],
        out,
        || {
            vec![
                SavedTensor::save(go),
                SavedTensor::save(x),
                SavedTensor::save(t),
            ]
        },
        Box::new(move |ctx| {
            let gg = grad_in(ctx.grads, &shape);
            let (go, x, t) = (&ctx.saved[0], &ctx.saved[1], &ctx.saved[2]);
            // grad_output: mse_loss_backward(grad, self, target, reduction)
            // (the engine sums it to grad_output's shape);
            // self: mse_loss_double_backward(grad * grad_output, self, reduction);
            // target: -mse_loss_double_backward(grad * grad_output, target, reduction).
            let gx = need(ctx.needs, 1, || {
                mse_loss_double_backward(&gg.mul(go)?, reduction, n)
            })?;
            let gt = need(ctx.needs, 2, || {
                mse_loss_double_backward(&gg.mul(go)?, reduction, n)?.neg()
            })?;
            Ok(vec![
                need(ctx.needs, 0, || mse_loss_backward(&gg, x, t, reduction))?,
                gx,
                gt,
            ])
        }),
    )
}

/// `nll_loss_backward(grad_output, self, target)`: `mask` (-1, or -1/N
/// for 'mean', at each target entry) times grad_output (per row for 'none').
pub fn nll_loss_backward(
    go: &Tensor,
    logp: &Tensor,
    targets: &[i64],
    mask: &Array,
    reduction: Reduction,
) -> Result<Tensor> {
    let g = go.to_array()?;
    // 'none' on [N, C]: one gradient per row, along the class dim.
    let g = match g.shape() {
        [n] => g
            .clone()
            .into_shape(&[*n, 1])
            .map_err(|e| crate::error::Error::internal(format!("nll_loss_backward: {e}")))?,
        _ => g,
    };
    let out = broadcast_zip(mask, &g, |m, g| m * g)?;
    let shape = out.shape().to_vec();
    let targets = targets.to_vec();
    record(
        "NllLossBackwardBackward0",
        &[Some(go), Some(logp)],
        out,
        Vec::new,
        // grad_output: nll_loss(grad, target, ...); self: zeros_like(grad).
        Box::new(move |ctx| {
            let gg = grad_in(ctx.grads, &shape);
            Ok(vec![
                need(ctx.needs, 0, || {
                    super::loss::nll_loss(&gg, &targets, reduction)
                })?,
                need(ctx.needs, 1, || Ok(zeros_like(&gg)))?,
            ])
        }),
    )
}

/// `select_backward(grad, sizes, dim, index)`: zeros of `sizes` with
/// `grad` at `index` along `dim`; its backward selects again.
pub fn select_backward(g: &Tensor, sizes: &[usize], axis: usize, index: usize) -> Result<Tensor> {
    // A plain copy into the zeros.
    let inner: usize = sizes[axis + 1..].iter().product();
    let outer: usize = sizes[..axis].iter().product();
    let mut out = vec![0.0f32; outer * sizes[axis] * inner];
    {
        let d = g.data()?;
        if d.len() != outer * inner || index >= sizes[axis] {
            return Err(crate::error::Error::internal(
                "select_backward got a gradient of the wrong size",
            ));
        }
        // (With `inner` 0 the checked gradient is empty: no division.)
        for (k, v) in d.iter().enumerate() {
            let (o, i) = (k / inner, k % inner);
            out[(o * sizes[axis] + index) * inner + i] = *v;
        }
    }
    let out = Array::from_shape_vec(sizes, out)
        .map_err(|e| crate::error::Error::internal(format!("select_backward: {e}")))?;
    let shape = sizes.to_vec();
    record(
        "SelectBackwardBackward0",
        &[Some(g)],
        out,
        Vec::new,
        // PyTorch: grad.select(dim, index).
        Box::new(move |ctx| {
            let gg = grad_in(ctx.grads, &shape);
            Ok(vec![Some(super::join::select(&gg, axis, index)?)])
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::*;

    #[test]
    fn fused_backward_ops_match_finite_differences() {
        check_binary_gradients("tanh_backward", &[2, 3], &[2, 3], tanh_backward);
        check_binary_gradients("sigmoid_backward", &[2, 3], &[2, 3], sigmoid_backward);
        check_binary_gradients("softmax_backward_data", &[2, 3], &[2, 3], |g, y| {
            softmax_backward_data(g, y, Some(1))
        });
        check_binary_gradients("log_softmax_backward_data", &[2, 3], &[2, 3], |g, y| {
            log_softmax_backward_data(g, y, Some(0))
        });
        check_unary_gradients("mul_scalar", &[3], |a| mul_scalar(a, -2.5));
        check_unary_gradients("add_scalar", &[3], |a| add_scalar(a, 4.0)?.mul(a));
        check_unary_gradients("div_scalar", &[3], |a| div_scalar(a, 3.0));
        check_unary_gradients("select", &[2, 3], |a| super::super::join::select(a, 1, 2));
        check_unary_gradients("select_backward", &[3], |a| {
            select_backward(a, &[3, 2], 1, 0)
        });
    }
}
