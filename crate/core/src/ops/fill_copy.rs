//! In-place `fill_(value)` (`FillBackward2`: one edge, the old history;
//! the gradient of the old value is zero) and `copy_(src)`
//! (`CopyBackwards`: edges to the old history and to `src`; `src`
//! broadcasts to `self`'s shape and gets the gradient summed back). Both go
//! through `inplace`, so through a view they rebase the base onto
//! `CopySlices` as PyTorch's `t[0] = 1.0` / `t[1] = src` do.

use super::inplace::inplace;
use super::{constant, grad_in, Operand};
use crate::error::Result;
use crate::tensor::{Array, Tensor};

/// `t.fill_(value)`.
pub fn fill_(t: &Tensor, value: f32) -> Result<Tensor> {
    let shape = t.shape();
    inplace(
        t,
        "FillBackward2",
        Some(&Operand::Scalar(value)),
        false,
        |_, v| v,
        &|_, _| Vec::new(),
        // PyTorch: zeros_like(grad).
        Box::new(move |_ctx| Ok(vec![Some(constant(Array::zeros(&shape)))])),
    )
}

/// `t.copy_(src)`.
pub fn copy_(t: &Tensor, src: &Tensor) -> Result<Tensor> {
    let shape = t.shape();
    inplace(
        t,
        "CopyBackwards",
        Some(&Operand::Tensor(src.clone())),
        true,
        |_, v| v,
        &|_, _| Vec::new(),
        // PyTorch CopyBackwards::apply: zeros for self, the gradient as is
        // for src (the engine sums it to src's shape).
        Box::new(move |ctx| {
            let g = grad_in(ctx.grads, &shape);
            let gs = super::need(ctx.needs, 0, || Ok(constant(Array::zeros(&shape))))?;
            let gsrc = super::need(ctx.needs, 1, || Ok(g))?;
            Ok(vec![gs, gsrc])
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::*;

    #[test]
    fn fill_and_copy() {
        let x = leaf(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
        let y = ok(x.mul(1.0));
        ok(fill_(&y, 2.5));
        assert_eq!(y.grad_fn().map(|f| f.name), Some("FillBackward2"));
        assert_eq!(y.grad_fn().map(|f| f.next_functions().len()), Some(1));
        let src = leaf(&[2.0, -1.0, 0.5], &[3]);
        let z = ok(x.mul(1.0));
        ok(copy_(&z, &src));
        assert_eq!(values(&z), vec![2.0, -1.0, 0.5, 2.0, -1.0, 0.5]);
        ok(ok(z.mul(&x)).sum().and_then(|s| s.backward()));
        assert_eq!(grad_values(&src), vec![5.0, 7.0, 9.0]);
        assert_eq!(grad_values(&x), vec![2.0, -1.0, 0.5, 2.0, -1.0, 0.5]);
    }
}
