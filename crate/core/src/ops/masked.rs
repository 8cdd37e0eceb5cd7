//! `where(mask, t, 0)` as one differentiable op, for backward formulas that
//! PyTorch writes with `at::where` (`WhereBackward0`: edges to `t` and to
//! the number 0) or `masked_fill_(…, 0)` (`MaskedFillBackward0`: one edge):
//! unlike a multiplication by a 0/1 mask it turns an `inf` or NaN outside
//! the mask into 0, and a double backward records PyTorch's node.

use super::{grad_in, record};
use crate::error::Result;
use crate::tensor::{Array, Tensor};

/// Which of PyTorch's two spellings the node takes.
#[derive(Clone, Copy)]
pub(crate) enum Spelling {
    /// `at::where(mask, t, 0)`.
    Where,
    /// `t.masked_fill_(!mask, 0)`.
    MaskedFill,
}

/// `t` where `keep` is 1, else 0 (`keep` has `t`'s shape).
pub(crate) fn keep_where(t: &Tensor, keep: Array, spelling: Spelling) -> Result<Tensor> {
    let out =
        super::arith::broadcast_zip(&*t.data()?, &keep, |v, k| if k != 0.0 { v } else { 0.0 })?;
    let shape = out.shape().to_vec();
    let (name, inputs): (&'static str, &[Option<&Tensor>]) = match spelling {
        Spelling::Where => ("WhereBackward0", &[Some(t), None]),
        Spelling::MaskedFill => ("MaskedFillBackward0", &[Some(t)]),
    };
    record(
        name,
        inputs,
        out,
        Vec::new,
        // PyTorch: where(mask, grad, 0) for `t` (the number gets nothing).
        Box::new(move |ctx| {
            let g = grad_in(ctx.grads, &shape);
            let mut out = vec![Some(keep_where(&g, keep.clone(), spelling)?)];
            if let Spelling::Where = spelling {
                out.push(None);
            }
            Ok(out)
        }),
    )
}

/// A 0/1 array of `f(value, s)` over `a`'s values (a `fn`: one instance in
/// the wasm for every caller).
pub(crate) fn mask_of(a: &Array, s: f32, f: fn(f32, f32) -> bool) -> Array {
    let v: Vec<f32> = a.iter().map(|&x| f32::from(u8::from(f(x, s)))).collect();
    Array::from_shape_vec(a.shape(), v)
        .unwrap_or_else(|_| crate::error::fault_default("a mask of the wrong size"))
}
