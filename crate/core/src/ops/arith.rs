//! add, sub, mul, div (tensor or number operand, broadcasting), rsub, neg, pow.
//! Backward formulas return unreduced gradients; the engine sums them back to
//! each input's shape, as PyTorch's `validate_outputs` does.

use super::{elementwise_layout, grad_in, need, record_elementwise, Operand};
use crate::error::Result;
use crate::node::{Edges, SavedList, SavedTensor};
use crate::shape::broadcast_shapes;
use crate::small::Small;
use crate::tensor::{Array, Data, Tensor};

/// Elementwise `f(a, b)` after broadcasting both to a common shape.
/// Takes a plain `fn` (not a generic closure): one instance instead of one per
/// call site keeps the wasm small; the ops here are memory-bound anyway.
#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub(crate) fn broadcast_zip(a: &Array, b: &Array, f: fn(f32, f32) -> f32) -> Result<Array> {
    // Fast paths first: same shape, or a one-element side (no index walk).
    if a.shape() == b.shape() {
        // The output starts as a copy of `a` (same shape) and is
        // overwritten in place: a plain loop over the two slices.
        let mut out = a.clone();
        for (o, &y) in out.as_slice_mut().iter_mut().zip(b.as_slice()) {
            *o = f(*o, y);
        }
        return Ok(out);
    }
    if b.len() == 1 && b.ndim() <= a.ndim() {
        let y = b.first().copied().unwrap_or(0.0);
        return Ok(a.mapv(|x| f(x, y)));
    }
    if a.len() == 1 && a.ndim() <= b.ndim() {
        let x = a.first().copied().unwrap_or(0.0);
        return Ok(b.mapv(|y| f(x, y)));
    }
    // Both expanded to the common shape (a side already of that shape is
    // read as is), then zipped as above.
    let shape = broadcast_shapes(a.shape(), b.shape())?;
    let expand = |x: &Array| {
        x.broadcast(&shape)
            .ok_or_else(|| broadcast_error(x, &shape))
    };
    let (ae, be);
    let a = if a.shape() == shape.as_slice() {
        a
    } else {
        ae = expand(a)?;
        &ae
    };
    let b = if b.shape() == shape.as_slice() {
        b
    } else {
        be = expand(b)?;
        &be
    };
    broadcast_zip(a, b, f)
}

fn broadcast_error(a: &Array, shape: &[usize]) -> crate::error::Error {
    crate::error::Error::runtime(format!(
        "The expanded size of the tensor must match the existing size: cannot expand {} to {}",
        crate::shape::fmt_shape(a.shape()),
        crate::shape::fmt_shape(shape)
    ))
}

#[inline]
fn placeholder() -> SavedTensor {
    SavedTensor::empty()
}

/// Saves `t` when `cond`, else an empty slot, so backward indices stay fixed.
#[cfg_attr(hookgrad_nightly, optimize(speed))]
#[inline]
fn save_if(cond: bool, t: Option<&Tensor>) -> SavedTensor {
    match (cond, t) {
        (true, Some(t)) => SavedTensor::save(t),
        _ => placeholder(),
    }
}

/// `x + y` and `x * y` as one compiled function each, shared by the eager
/// kernel and the deferred rows (`deferred::op`): the compiler may swap the
/// operands of a commutative op wherever it inlines it, and which operand's
/// NaN comes out (its sign bit) follows the order, so two inlined copies can
/// disagree on `NaN * -NaN` (the fuzzer found it).
#[inline(never)]
pub(crate) fn add_values(x: f32, y: f32) -> f32 {
    x + y
}

/// See `add_values`.
#[inline(never)]
pub(crate) fn mul_values(x: f32, y: f32) -> f32 {
    x * y
}

/// `f(a, b)` elementwise with broadcasting, reading `b` in place (no copy of
/// a tensor operand, no 0-d array for a number); `f0` is `f` for the 0-d
/// case (the deferred rows' function: see `add_values`).
#[cfg_attr(hookgrad_nightly, optimize(speed))]
#[inline]
fn zip_operand(
    a: &Tensor,
    b: &Operand,
    f: fn(f32, f32) -> f32,
    f0: fn(f32, f32) -> f32,
) -> Result<Data> {
    // 0-d ⊕ 0-d or 0-d ⊕ number (a scalar graph): one f32, no array at all.
    if let Some(x) = a.scalar_value() {
        let y = match b {
            Operand::Scalar(s) => Some(*s),
            Operand::Tensor(t) => t.scalar_value(),
        };
        if let Some(y) = y {
            return Ok(Data::Scalar(f0(x, y)));
        }
    }
    let ad = a.data()?;
    Ok(Data::Array(match b {
        // A number broadcasts to any shape (PyTorch wraps it as a 0-d tensor).
        Operand::Scalar(s) => {
            // A copy written in place (no `mapv` instance for this hot path).
            let s = *s;
            let mut out = ad.clone();
            for o in out.as_slice_mut() {
                *o = f(*o, s);
            }
            out
        }
        Operand::Tensor(t) => broadcast_zip(&ad, &*t.data()?, f)?,
    }))
}

#[inline]
fn scalar_of(op: &Operand) -> Option<f32> {
    match op {
        Operand::Scalar(s) => Some(*s),
        Operand::Tensor(_) => None,
    }
}

/// Saves nothing.
fn no_saves(_: &Edges) -> SavedList {
    Small::Zero
}

/// Whether input `i` of the node has an edge (requires grad).
#[inline]
fn has_edge(edges: &Edges, i: usize) -> bool {
    edges.get(i).is_some_and(Option::is_some)
}

#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub fn add(a: &Tensor, b: &Operand) -> Result<Tensor> {
    let out = zip_operand(a, b, |x, y| x + y, add_values)?;
    let t = record_elementwise(
        "AddBackward0",
        &[Some(a), b.tensor()],
        out,
        no_saves,
        // The same gradient tensor goes to both inputs (PyTorch's AddBackward0
        // with alpha=1): an in-place change to it in a hook shows up on both.
        // The number path knows this by name (scalar_backward::passes_through).
        Box::new(|ctx| {
            let g = ctx.grads.first().cloned().flatten();
            Ok(vec![g.clone(), g])
        }),
        add_rule,
        0.0,
    )?;
    elementwise_layout(t, &[Some(a), b.tensor()])
}

#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub fn sub(a: &Tensor, b: &Operand) -> Result<Tensor> {
    let out = zip_operand(a, b, |x, y| x - y, |x, y| x - y)?;
    let t = record_elementwise(
        "SubBackward0",
        &[Some(a), b.tensor()],
        out,
        no_saves,
        // `self` gets the gradient tensor itself (scalar_backward::passes_through).
        Box::new(|ctx| {
            let g = ctx.grads.first().cloned().flatten();
            let neg = match (&g, ctx.needs.get(1).copied().unwrap_or(false)) {
                (Some(g), true) => Some(neg(g)?),
                _ => None,
            };
            Ok(vec![g, neg])
        }),
        sub_rule,
        0.0,
    )?;
    elementwise_layout(t, &[Some(a), b.tensor()])
}

#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub fn mul(a: &Tensor, b: &Operand) -> Result<Tensor> {
    let out = zip_operand(a, b, |x, y| x * y, mul_values)?;
    // PyTorch's MulBackward0 saves (so packs, and unpacks) `other` before
    // `self`: saved_tensors_hooks programs print their lines in that order.
    let save = |e: &Edges| {
        Small::Two([
            save_if(has_edge(e, 0), b.tensor()),
            save_if(has_edge(e, 1), Some(a)),
        ])
    };
    // PyTorch: grad * other, grad * self.
    let t = match scalar_of(b) {
        Some(s) => record_elementwise(
            "MulBackward0",
            &[Some(a), None],
            out,
            save,
            Box::new(|ctx| {
                let g = grad_in(ctx.grads, ctx.shape);
                let ga = need(ctx.needs, 0, || mul(&g, &Operand::Scalar(ctx.param)))?;
                Ok(vec![ga, None])
            }),
            mul_number_rule,
            s,
        )?,
        None => record_elementwise(
            "MulBackward0",
            &[Some(a), b.tensor()],
            out,
            save,
            Box::new(|ctx| {
                let g = grad_in(ctx.grads, ctx.shape);
                let ga = need(ctx.needs, 0, || {
                    mul(&g, &Operand::Tensor(ctx.saved[0].clone()))
                })?;
                let gb = need(ctx.needs, 1, || {
                    mul(&g, &Operand::Tensor(ctx.saved[1].clone()))
                })?;
                Ok(vec![ga, gb])
            }),
            mul_rule,
            0.0,
        )?,
    };
    elementwise_layout(t, &[Some(a), b.tensor()])
}

// The number formulas of add, sub and mul (`(grad, saved, param)`), named:
// the deferred scalar ops (deferred.rs) run the same ones.
pub(crate) fn add_rule(g: f32, _: &[f32], _: f32) -> [f32; 2] {
    [g, g]
}
pub(crate) fn sub_rule(g: f32, _: &[f32], _: f32) -> [f32; 2] {
    [g, -g]
}
/// `a * number`: saves nothing, the number is the param.
pub(crate) fn mul_number_rule(g: f32, _: &[f32], s: f32) -> [f32; 2] {
    [g * s, 0.0]
}
/// `a * b`: saved `[b, a]` (PyTorch's order: other, then self).
pub(crate) fn mul_rule(g: f32, s: &[f32], _: f32) -> [f32; 2] {
    [g * s[0], g * s[1]]
}

/// `a / number`: the number is the param.
pub(crate) fn div_number_rule(g: f32, _: &[f32], s: f32) -> [f32; 2] {
    [g / s, 0.0]
}
/// `a / b`: saved `[b, a]`; PyTorch's div_tensor_other_backward for `b`:
/// `-grad * ((self / other) / other)`.
pub(crate) fn div_rule(g: f32, s: &[f32], _: f32) -> [f32; 2] {
    [g / s[0], -g * ((s[1] / s[0]) / s[0])]
}
pub(crate) fn neg_rule(g: f32, _: &[f32], _: f32) -> [f32; 2] {
    [-g, 0.0]
}
/// `a.pow(e)` for a number `e` (the param): saved `[a]`; PyTorch's
/// pow_backward, zeros for exponent 0.
pub(crate) fn pow_rule(g: f32, x: &[f32], e: f32) -> [f32; 2] {
    if e == 0.0 {
        [g * 0.0, 0.0]
    } else {
        [g * (x[0].powf(e - 1.0) * e), 0.0]
    }
}

pub fn div(a: &Tensor, b: &Operand) -> Result<Tensor> {
    let out = zip_operand(a, b, |x, y| x / y, |x, y| x / y)?;
    // PyTorch's DivBackward0 saves `other`, then `self` (see `mul`).
    let save =
        |e: &Edges| Small::Two([save_if(true, b.tensor()), save_if(has_edge(e, 1), Some(a))]);
    // PyTorch: grad / other, -grad * self / (other * other).
    let t = match scalar_of(b) {
        Some(s) => record_elementwise(
            "DivBackward0",
            &[Some(a), None],
            out,
            save,
            Box::new(|ctx| {
                let g = grad_in(ctx.grads, ctx.shape);
                let ga = need(ctx.needs, 0, || div(&g, &Operand::Scalar(ctx.param)))?;
                Ok(vec![ga, None])
            }),
            div_number_rule,
            s,
        )?,
        None => record_elementwise(
            "DivBackward0",
            &[Some(a), b.tensor()],
            out,
            save,
            Box::new(|ctx| {
                let g = grad_in(ctx.grads, ctx.shape);
                let ga = need(ctx.needs, 0, || {
                    div(&g, &Operand::Tensor(ctx.saved[0].clone()))
                })?;
                // PyTorch div_tensor_other_backward: -grad * ((self / other) / other).
                let gb = need(ctx.needs, 1, || {
                    let (y, x) = (&ctx.saved[0], &ctx.saved[1]);
                    let q = div(
                        &div(x, &Operand::Tensor(y.clone()))?,
                        &Operand::Tensor(y.clone()),
                    )?;
                    mul(&neg(&g)?, &Operand::Tensor(q))
                })?;
                Ok(vec![ga, gb])
            }),
            div_rule,
            0.0,
        )?,
    };
    elementwise_layout(t, &[Some(a), b.tensor()])
}

pub fn neg(a: &Tensor) -> Result<Tensor> {
    let out = a.map_data(|v| -v)?;
    let t = record_elementwise(
        "NegBackward0",
        &[Some(a)],
        out,
        no_saves,
        Box::new(|ctx| {
            Ok(vec![match ctx.grads.first().cloned().flatten() {
                Some(g) => Some(neg(&g)?),
                None => None,
            }])
        }),
        neg_rule,
        0.0,
    )?;
    elementwise_layout(t, &[Some(a)])
}

/// `torch.rsub(a, number)` = `number - a` (what Python's `2 - t` runs):
/// `RsubBackward1`, one edge (a number is no input), backward `-grad`.
pub fn rsub(a: &Tensor, s: f32) -> Result<Tensor> {
    let out = match a.scalar_value() {
        Some(x) => Data::Scalar(s - x),
        None => Data::Array(super::backward_ops::map_with(&*a.data()?, s, |x, s| s - x)),
    };
    let t = record_elementwise(
        "RsubBackward1",
        &[Some(a)],
        out,
        no_saves,
        // PyTorch: maybe_multiply(-grad, alpha) with alpha 1: `-grad`.
        Box::new(|ctx| {
            let g = ctx.grads.first().cloned().flatten();
            Ok(vec![g.map(|g| neg(&g)).transpose()?])
        }),
        |g, _, _| [-g, 0.0],
        s,
    )?;
    elementwise_layout(t, &[Some(a)])
}

pub fn pow(a: &Tensor, exponent: f32) -> Result<Tensor> {
    let out = match a.scalar_value() {
        Some(x) => Data::Scalar(x.powf(exponent)),
        None => Data::Array(a.data()?.mapv(|v| v.powf(exponent))),
    };
    let t = record_elementwise(
        "PowBackward0",
        &[Some(a)],
        out,
        |_| Small::One(SavedTensor::save(a)),
        // PyTorch pow_backward: grad * (exponent * self.pow(exponent - 1)),
        // zeros for exponent 0.
        Box::new(|ctx| {
            let exponent = ctx.param;
            let g = grad_in(ctx.grads, ctx.shape);
            if exponent == 0.0 {
                return Ok(vec![Some(mul(&g, &Operand::Scalar(0.0))?)]);
            }
            // `exponent * …` is mul.Scalar: MulBackward1.
            let d =
                super::backward_ops::mul_scalar(&pow(&ctx.saved[0], exponent - 1.0)?, exponent)?;
            Ok(vec![Some(mul(&g, &Operand::Tensor(d))?)])
        }),
        pow_rule,
        exponent,
    )?;
    elementwise_layout(t, &[Some(a)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::*;

    #[test]
    fn binary_ops_match_finite_differences() {
        // Broadcasting [2,3] with [3] and [2,1] with [1,3].
        type BinaryOp = fn(&Tensor, &Operand) -> Result<Tensor>;
        let cases: Vec<(&str, BinaryOp)> =
            vec![("add", add), ("sub", sub), ("mul", mul), ("div", div)];
        for (name, op) in cases {
            for (sa, sb) in [
                (vec![2, 3], vec![3]),
                (vec![2, 1], vec![1, 3]),
                (vec![], vec![2]),
            ] {
                check_binary_gradients(name, &sa, &sb, |a, b| op(a, &Operand::from(b)));
            }
        }
    }

    #[test]
    fn number_operand_gives_none_edge() {
        let a = leaf(&[2.0], &[]);
        for (op, name) in [
            (
                add as fn(&Tensor, &Operand) -> Result<Tensor>,
                "AddBackward0",
            ),
            (mul, "MulBackward0"),
            (sub, "SubBackward0"),
            (div, "DivBackward0"),
        ] {
            let c = ok(op(&a, &Operand::Scalar(3.0)));
            let f = c.grad_fn().map(|f| f.name);
            assert_eq!(f, Some(name));
            let next = c.grad_fn().map(|f| f.next_functions()).unwrap_or_default();
            assert_eq!(next.len(), 2);
            assert_eq!(next[0].0.as_ref().map(|n| n.name), Some("AccumulateGrad"));
            assert!(next[1].0.is_none() && next[1].1 == 0);
        }
    }

    #[test]
    fn pow_and_neg_gradients() {
        check_unary_gradients("pow3", &[3], |a| pow(a, 3.0));
        check_unary_gradients("pow-0.5", &[3], |a| {
            let p = add(a, &Operand::Scalar(5.0))?;
            pow(&p, -0.5)
        });
        check_unary_gradients("neg", &[2, 2], neg);
        check_unary_gradients("rsub", &[2, 2], |a| rsub(a, 2.0));
    }
}
