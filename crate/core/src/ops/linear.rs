//! `F.linear(x, weight, bias?)` as PyTorch 2 builds its graph: a 2-D input
//! with bias is one `addmm` over `weight.t()` (`AddmmBackward0`, edges
//! bias, x, weight.t()), without bias `mm` (`MmBackward0`); a 1-D input
//! with bias is viewed as `[1, in]`, `addmm`ed and `_unsafe_view`ed back,
//! without bias `matmul`'s unsqueeze / mm / squeeze; an input of 3 or more
//! dims is folded to 2-D (`view`), multiplied and `_unsafe_view`ed to its
//! leading dims. `nn.Linear`'s forward is this function.

use super::{matmul, shape_ops};
use crate::error::{Error, Result};
use crate::tensor::Tensor;

pub fn linear(x: &Tensor, weight: &Tensor, bias: Option<&Tensor>) -> Result<Tensor> {
    let wt = shape_ops::t(weight)?;
    let shape = x.shape();
    match (bias, shape.len()) {
        (_, 0) => Err(Error::runtime(format!(
            "both arguments to linear need to be at least 1D, but they are 0D and {}D",
            weight.ndim()
        ))),
        (Some(b), 2) => matmul::addmm(b, x, &wt),
        (Some(b), 1) => {
            let x2 = shape_ops::reshape(x, &[1, -1])?;
            let out = matmul::addmm(b, &x2, &wt)?;
            let n = out.numel();
            shape_ops::reshape_node(&out, "UnsafeViewBackward0", &[n])
        }
        (None, 1 | 2) => matmul::matmul(x, &wt),
        (_, n) => {
            let inner = shape[n - 1] as i64;
            let x2 = shape_ops::reshape(x, &[-1, inner])?;
            let out = match bias {
                Some(b) => matmul::addmm(b, &x2, &wt)?,
                None => matmul::mm(&x2, &wt)?,
            };
            let mut to = shape[..n - 1].to_vec();
            to.push(out.shape().get(1).copied().unwrap_or(0));
            shape_ops::reshape_node(&out, "UnsafeViewBackward0", &to)
        }
    }
}
