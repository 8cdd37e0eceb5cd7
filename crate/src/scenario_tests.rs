//! The seed tutorials' examples and PyTorch hook-order scenarios, natively.
//! Expected numbers are hand calculations or PyTorch's documented values.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::testing::*;

#[test]
fn simple_mul_backward() {
    let a = leaf(&[2.0], &[]);
    let b = leaf(&[3.0], &[]);
    let c = ok(a.mul(&b));
    ok(c.backward());
    assert_eq!(grad_values(&a), vec![3.0]);
    assert_eq!(grad_values(&b), vec![2.0]);
}

#[test]
fn weighted_sum_backward() {
    let a = leaf(&[2.0, 1.0], &[2]);
    let e = ok(a.exp());
    let w = constant(&[1.0, 2.0], &[2]);
    let p = ok(e.mul(&w));
    let s = ok(p.sum());
    ok(s.backward());
    let g = grad_values(&a);
    assert!(
        (g[0] - 2f32.exp()).abs() < 1e-4 && (g[1] - 2.0 * 1f32.exp()).abs() < 1e-4,
        "{g:?}"
    );
}
