//! Helpers for the native tests: leaves, values, and a central
//! finite-difference gradient check computed in f64 from the forward op.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::error::Result;
use crate::tensor::{Array, Tensor, TensorOptions};

pub fn arr(values: &[f32], shape: &[usize]) -> Array {
    Array::from_shape_vec(shape, values.to_vec()).unwrap()
}

pub fn leaf(values: &[f32], shape: &[usize]) -> Tensor {
    Tensor::from_vec(
        shape,
        values.to_vec(),
        &TensorOptions {
            requires_grad: true,
            name: None,
        },
    )
    .unwrap()
}

pub fn constant(values: &[f32], shape: &[usize]) -> Tensor {
    Tensor::from_vec(shape, values.to_vec(), &TensorOptions::default()).unwrap()
}

pub fn ok<T>(r: Result<T>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => panic!("unexpected error: {e}"),
    }
}

pub fn values(t: &Tensor) -> Vec<f32> {
    t.to_array().unwrap().iter().copied().collect()
}

pub fn grad_values(t: &Tensor) -> Vec<f32> {
    values(&t.grad_raw().expect("no grad"))
}

pub fn item(t: &Tensor) -> f32 {
    t.item().unwrap()
}

/// Deterministic inputs in [0.3, 1.7) so log/pow are defined everywhere.
fn sample(n: usize, salt: u32) -> Vec<f32> {
    (0..n)
        .map(|i| {
            let x = ((i as u32)
                .wrapping_mul(2654435761u32)
                .wrapping_add(salt.wrapping_mul(40503))
                >> 7)
                % 1000;
            0.3 + 1.4 * (x as f32 / 1000.0)
        })
        .collect()
}

/// loss = Σ w ⊙ f(inputs) with fixed weights, so every output element matters.
fn weighted_loss(out: &Tensor) -> Tensor {
    let n = out.numel();
    let w: Vec<f32> = (0..n).map(|i| 0.5 + (i % 3) as f32 * 0.25).collect();
    let wt = constant(&w, &out.shape());
    let p = ok(crate::ops::arith::mul(
        out,
        &crate::ops::Operand::Tensor(wt),
    ));
    ok(crate::ops::reduce::sum(&p))
}

fn numeric_grad(
    inputs: &[Tensor],
    which: usize,
    f: &dyn Fn(&[Tensor]) -> Result<Tensor>,
) -> Vec<f64> {
    let eps = 1e-2f32;
    let base = inputs[which].to_array().unwrap();
    let mut grads = Vec::new();
    for i in 0..base.len() {
        let eval = |delta: f32| -> f64 {
            let mut data = base.clone();
            if let Some(v) = data.iter_mut().nth(i) {
                *v += delta;
            }
            let mut xs: Vec<Tensor> = inputs
                .iter()
                .map(|t| Tensor::from_array(t.to_array().unwrap()))
                .collect();
            xs[which] = Tensor::from_array(data);
            let out = crate::context::no_grad(|| f(&xs)).unwrap();
            item(&weighted_loss(&out)) as f64
        };
        grads.push((eval(eps) - eval(-eps)) / (2.0 * eps as f64));
    }
    grads
}

fn check(name: &str, inputs: Vec<Tensor>, f: &dyn Fn(&[Tensor]) -> Result<Tensor>) {
    let out = ok(f(&inputs));
    let loss = weighted_loss(&out);
    ok(crate::engine::backward(&loss, None, false, None));
    for (k, t) in inputs.iter().enumerate() {
        let analytic = grad_values(t);
        let numeric = numeric_grad(&inputs, k, f);
        for (a, n) in analytic.iter().zip(&numeric) {
            let tol = 2e-2 * (1.0 + n.abs());
            assert!(
                ((*a as f64) - n).abs() <= tol,
                "{name}: input {k}: analytic {analytic:?} vs numeric {numeric:?}"
            );
        }
    }
}

pub fn check_unary_gradients(name: &str, shape: &[usize], f: impl Fn(&Tensor) -> Result<Tensor>) {
    let n = shape.iter().product();
    let x = leaf(&sample(n, 1), shape);
    check(name, vec![x], &|xs: &[Tensor]| f(&xs[0]));
}

pub fn check_binary_gradients(
    name: &str,
    sa: &[usize],
    sb: &[usize],
    f: impl Fn(&Tensor, &Tensor) -> Result<Tensor>,
) {
    let a = leaf(&sample(sa.iter().product(), 2), sa);
    let b = leaf(&sample(sb.iter().product(), 3), sb);
    check(name, vec![a, b], &|xs: &[Tensor]| f(&xs[0], &xs[1]));
}

/// Second derivatives: with `g(x) = ∂L/∂x` computed by `grad(create_graph)`,
/// checks `∂(Σ v ⊙ g)/∂x` (a double backward) against central differences
/// of `Σ v ⊙ g` (each evaluated by a plain first backward).
#[allow(clippy::needless_range_loop)]
pub fn check_double_backward(
    name: &str,
    inputs: Vec<Tensor>,
    f: &dyn Fn(&[Tensor]) -> Result<Tensor>,
) {
    let v_for = |t: &Tensor| -> Tensor {
        let n = t.numel();
        let v: Vec<f32> = (0..n).map(|i| 0.75 - (i % 4) as f32 * 0.5).collect();
        constant(&v, &t.shape())
    };
    // Σ_k Σ v_k ⊙ g_k(xs): the scalar whose gradient is the double backward.
    let penalty = |xs: &[Tensor], create: bool| -> Tensor {
        let loss = weighted_loss(&ok(f(xs)));
        let gs = ok(crate::engine::grad_ext(
            &[loss],
            xs,
            vec![None],
            create,
            create,
            true,
        ));
        let mut total: Option<Tensor> = None;
        for (g, x) in gs.iter().zip(xs) {
            let Some(g) = g else { continue };
            let term = ok(ok(g.mul(&v_for(x))).sum());
            total = Some(match total {
                Some(t) => ok(t.add(&term)),
                None => term,
            });
        }
        total.unwrap_or_else(|| Tensor::scalar(0.0))
    };
    let p = penalty(&inputs, true);
    if !p.requires_grad() {
        // The first derivative does not depend on the inputs (a linear op):
        // the second derivative is zero, which the finite differences check.
        for t in &inputs {
            ok(t.set_grad(None));
        }
    } else {
        ok(crate::engine::backward(&p, None, false, None));
    }
    for (k, t) in inputs.iter().enumerate() {
        let analytic: Vec<f32> = t
            .grad_raw()
            .map(|g| values(&g))
            .unwrap_or_else(|| vec![0.0; t.numel()]);
        let base = t.to_array().unwrap();
        let eps = 1e-2f32;
        for i in 0..base.len() {
            let eval = |delta: f32| -> f64 {
                let xs: Vec<Tensor> = inputs
                    .iter()
                    .enumerate()
                    .map(|(j, x)| {
                        let mut d = x.to_array().unwrap();
                        if j == k {
                            if let Some(e) = d.iter_mut().nth(i) {
                                *e += delta;
                            }
                        }
                        Tensor::from_array_opts(
                            d,
                            &TensorOptions {
                                requires_grad: true,
                                name: None,
                            },
                        )
                    })
                    .collect();
                item(&penalty(&xs, false)) as f64
            };
            let n = (eval(eps) - eval(-eps)) / (2.0 * eps as f64);
            let a = analytic[i] as f64;
            assert!(
                (a - n).abs() <= 3e-2 * (1.0 + n.abs()),
                "{name}: double backward, input {k}[{i}]: analytic {a} vs numeric {n}"
            );
        }
    }
}

pub fn check_unary_double_backward(
    name: &str,
    shape: &[usize],
    f: impl Fn(&Tensor) -> Result<Tensor>,
) {
    let n = shape.iter().product();
    let x = leaf(&sample(n, 1), shape);
    check_double_backward(name, vec![x], &|xs: &[Tensor]| f(&xs[0]));
}

pub fn check_binary_double_backward(
    name: &str,
    sa: &[usize],
    sb: &[usize],
    f: impl Fn(&Tensor, &Tensor) -> Result<Tensor>,
) {
    let a = leaf(&sample(sa.iter().product(), 2), sa);
    let b = leaf(&sample(sb.iter().product(), 3), sb);
    check_double_backward(name, vec![a, b], &|xs: &[Tensor]| f(&xs[0], &xs[1]));
}
