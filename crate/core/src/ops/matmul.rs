//! matmul for 1-D and 2-D operands, dispatched like `torch.matmul`: dot
//! (`DotBackward0`), mv (`MvBackward0`), mm (`MmBackward0`); a vector times a
//! matrix is unsqueeze → mm → squeeze, giving PyTorch's node chain.

use super::kernel;
use super::{grad_in, need, record, shape_ops};
use crate::error::{Error, Result};
use crate::node::SavedTensor;
use crate::tensor::{Array, Tensor};

/// PyTorch's message when an (m×k) @ (k'×n) product has k ≠ k', prefixed
/// with the op's name as torch 2.x does (`mm: `, and `addmm: ` for
/// `F.linear` with a bias).
fn check_mm_shapes(prefix: &str, x: (usize, usize), y: (usize, usize)) -> Result<()> {
    if x.1 != y.0 {
        return Err(Error::runtime(format!(
            "{prefix}mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})",
            x.0, x.1, y.0, y.1
        )));
    }
    crate::shape::checked_numel(&[x.0, y.1]).map(|_| ())
}

/// A matrix's (rows, cols).
fn dims2(a: &Array) -> Result<(usize, usize)> {
    match a.shape() {
        &[m, n] => Ok((m, n)),
        _ => Err(Error::internal("expected a matrix")),
    }
}

/// A vector's length.
fn len1(a: &Array) -> Result<usize> {
    match a.shape() {
        &[n] => Ok(n),
        _ => Err(Error::internal("expected a vector")),
    }
}

pub fn matmul(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    match (a.ndim(), b.ndim()) {
        (1, 1) => dot(a, b),
        (2, 1) => mv(a, b),
        (2, 2) => mm(a, b),
        (1, 2) => {
            let a2 = shape_ops::unsqueeze(a, 0)?;
            let out = mm(&a2, b)?;
            shape_ops::squeeze_dim(&out, 0)
        }
        (da, db) if da == 0 || db == 0 => Err(Error::runtime(format!(
            "both arguments to matmul need to be at least 1D, but they are {da}D and {db}D"
        ))),
        (da, db) => Err(Error::runtime(format!(
            "hookgrad's matmul supports 1-D and 2-D tensors, but they are {da}D and {db}D"
        ))),
    }
}

pub fn dot(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let (x, y) = (a.data()?, b.data()?);
    let (nx, ny) = (len1(&x)?, len1(&y)?);
    if nx != ny {
        return Err(Error::runtime(format!(
            "inconsistent tensor size, expected tensor [{}] and src [{}] to have the same number of elements, but got {} and {} elements respectively",
            nx, ny, nx, ny
        )));
    }
    let out = Array::scalar(x.iter().zip(y.iter()).map(|(a, b)| a * b).sum::<f32>());
    drop((x, y));
    record(
        "DotBackward0",
        &[Some(a), Some(b)],
        out,
        || vec![SavedTensor::save(a), SavedTensor::save(b)],
        // PyTorch: grad * tensor, grad * self.
        Box::new(|ctx| {
            let g = grad_in(ctx.grads, &[]);
            let ga = need(ctx.needs, 0, || g.mul(&ctx.saved[1]))?;
            let gb = need(ctx.needs, 1, || g.mul(&ctx.saved[0]))?;
            Ok(vec![ga, gb])
        }),
    )
}

pub fn mv(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let (m, v) = (a.data()?, b.data()?);
    let ((rows, cols), n) = (dims2(&m)?, len1(&v)?);
    if cols != n {
        return Err(Error::runtime(format!(
            "size mismatch, got input ({rows}), mat ({rows}x{cols}), vec ({n})"
        )));
    }
    // Matrix × vector through the shared kernel (the vector as a column).
    let out = kernel::matmul(&m, &v.clone().insert_axis(1))?
        .into_shape(&[rows])
        .map_err(|e| Error::internal(format!("matrix-vector product reshape failed: {e}")))?;
    drop((m, v));
    record(
        "MvBackward0",
        &[Some(a), Some(b)],
        out,
        || vec![SavedTensor::save(a), SavedTensor::save(b)],
        // PyTorch: grad.ger(vec), self.t().mv(grad).
        Box::new(move |ctx| {
            let g = grad_in(ctx.grads, &[rows]);
            let ga = need(ctx.needs, 0, || {
                let col = shape_ops::unsqueeze(&g, 1)?;
                mm(&col, &shape_ops::unsqueeze(&ctx.saved[1], 0)?)
            })?;
            let gb = need(ctx.needs, 1, || mv(&shape_ops::t(&ctx.saved[0])?, &g))?;
            Ok(vec![ga, gb])
        }),
    )
}

/// A matrix stored column-major (a transposed contiguous one), for which
/// PyTorch computes the gradient column-major too.
fn column_major(layout: &(Vec<usize>, Vec<usize>)) -> bool {
    let (shape, strides) = layout;
    shape.len() == 2 && strides[0] == 1 && strides[1] == shape[0]
}

/// PyTorch's `mm_mat1_backward`: grad @ mat2ᵀ, laid out like mat1.
fn mm_mat1_backward(
    g: &Tensor,
    mat2: &Tensor,
    mat1_layout: &(Vec<usize>, Vec<usize>),
) -> Result<Tensor> {
    if column_major(mat1_layout) {
        return shape_ops::t(&mm(mat2, &shape_ops::t(g)?)?);
    }
    mm(g, &shape_ops::t(mat2)?)
}

/// PyTorch's `mm_mat2_backward`: mat1ᵀ @ grad, laid out like mat2.
fn mm_mat2_backward(
    g: &Tensor,
    mat1: &Tensor,
    mat2_layout: &(Vec<usize>, Vec<usize>),
) -> Result<Tensor> {
    if column_major(mat2_layout) {
        return shape_ops::t(&mm(&shape_ops::t(g)?, mat1)?);
    }
    mm(&shape_ops::t(mat1)?, g)
}

pub fn mm(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let out = {
        let (x, y) = (a.data()?, b.data()?);
        check_mm_shapes("mm: ", dims2(&x)?, dims2(&y)?)?;
        kernel::matmul(&x, &y)?
    };
    let out_shape = out.shape().to_vec();
    let (a_rg, b_rg) = (a.requires_grad(), b.requires_grad());
    let (a_layout, b_layout) = (a.layout(), b.layout());
    record(
        "MmBackward0",
        &[Some(a), Some(b)],
        out,
        // PyTorch saves mat2 for self's grad and self for mat2's grad, in
        // that order (its pack and unpack hooks see mat2 first).
        || {
            vec![
                if a_rg {
                    SavedTensor::save(b)
                } else {
                    SavedTensor::empty()
                },
                if b_rg {
                    SavedTensor::save(a)
                } else {
                    SavedTensor::empty()
                },
            ]
        },
        Box::new(move |ctx| {
            let g = grad_in(ctx.grads, &out_shape);
            let ga = need(ctx.needs, 0, || {
                mm_mat1_backward(&g, &ctx.saved[0], &a_layout)
            })?;
            let gb = need(ctx.needs, 1, || {
                mm_mat2_backward(&g, &ctx.saved[1], &b_layout)
            })?;
            Ok(vec![ga, gb])
        }),
    )
}

/// `torch.addmm(bias, x, w)` = bias + x @ w, one `AddmmBackward0` node with
/// edges (bias, x, w) — what `F.linear` builds for a 2-D input, and so what
/// a legacy hook on `nn.Linear` sees.
pub fn addmm(bias: &Tensor, x: &Tensor, w: &Tensor) -> Result<Tensor> {
    let prod = {
        let (xm, wm) = (x.data()?, w.data()?);
        check_mm_shapes("addmm: ", dims2(&xm)?, dims2(&wm)?)?;
        kernel::matmul(&xm, &wm)?
    };
    let out = super::arith::broadcast_zip(&*bias.data()?, &prod, |b, p| b + p)?;
    let out_shape = out.shape().to_vec();
    let (x_layout, w_layout) = (x.layout(), w.layout());
    record(
        "AddmmBackward0",
        &[Some(bias), Some(x), Some(w)],
        out,
        || vec![SavedTensor::save(x), SavedTensor::save(w)],
        // PyTorch: grad (summed to the bias by the engine), then the mm formulas.
        Box::new(move |ctx| {
            let g = grad_in(ctx.grads, &out_shape);
            let gb = need(ctx.needs, 0, || Ok(g.clone()))?;
            let gx = need(ctx.needs, 1, || {
                mm_mat1_backward(&g, &ctx.saved[1], &x_layout)
            })?;
            let gw = need(ctx.needs, 2, || {
                mm_mat2_backward(&g, &ctx.saved[0], &w_layout)
            })?;
            Ok(vec![gb, gx, gw])
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::*;

    #[test]
    fn matmul_gradients_match_finite_differences() {
        check_binary_gradients("dot", &[3], &[3], matmul);
        check_binary_gradients("mv", &[2, 3], &[3], matmul);
        check_binary_gradients("mm", &[2, 3], &[3, 4], matmul);
        check_binary_gradients("vm", &[3], &[3, 2], matmul);
    }

    #[test]
    fn matmul_names_and_errors() {
        let m = leaf(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3]);
        let v = leaf(&[1.0, 1.0, 1.0], &[3]);
        let out = ok(matmul(&m, &v));
        assert_eq!(out.grad_fn().map(|f| f.name), Some("MvBackward0"));
        assert_eq!(values(&out), vec![6.0, 15.0]);
        let e = matmul(&m, &m).err().map(|e| e.to_string());
        assert_eq!(
            e.as_deref(),
            Some("mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)")
        );
        let w = leaf(&[1.0, 1.0], &[2]);
        let e = matmul(&v, &w).err().map(|e| e.to_string());
        assert_eq!(
            e.as_deref(),
            Some("inconsistent tensor size, expected tensor [3] and src [2] to have the same number of elements, but got 3 and 2 elements respectively")
        );
    }
}
