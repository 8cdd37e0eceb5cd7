//! `torch.cat` (`CatBackward0`) and `torch.stack` (`StackBackward0`): one
//! node with an edge per input tensor; backward hands each input its slice
//! of the gradient (PyTorch's `cat_tensors_backward` narrows, `stack`'s
//! unbinds).

use super::{constant, record};
use crate::error::{Error, Result};
use crate::shape::{fmt_shape, wrap_dim};
use crate::tensor::{Array, Tensor};

/// `g.narrow(axis, offset, n)` as an op (`SliceBackward0`, as PyTorch's
/// `narrow` is a slice), whose backward pads with zeros through `cat`.
fn narrow(g: &Tensor, axis: usize, offset: usize, n: usize) -> Result<Tensor> {
    let part = g
        .data()?
        .slice_axis(axis, offset, n)
        .ok_or_else(|| Error::internal("narrow out of range"))?;
    let full = g.shape();
    let out_shape = part.shape().to_vec();
    record(
        "SliceBackward0",
        &[Some(g)],
        part,
        Vec::new,
        Box::new(move |ctx| {
            let gp = super::grad_in(ctx.grads, &out_shape);
            let zeros = |len: usize| {
                let mut s = full.clone();
                s[axis] = len;
                constant(Array::zeros(&s))
            };
            let pieces = [zeros(offset), gp, zeros(full[axis] - offset - n)];
            Ok(vec![Some(cat(&pieces, axis as i64)?)])
        }),
    )
}

/// `g.select(axis, index)` as an op (`SelectBackward0`): stack's backward
/// (PyTorch's `stack_tensors_backward` selects each input's slice); its own
/// backward is `select_backward` (`SelectBackwardBackward0`).
pub(crate) fn select(g: &Tensor, axis: usize, index: usize) -> Result<Tensor> {
    let part = g
        .data()?
        .index_axis(axis, index)
        .ok_or_else(|| Error::internal("select out of range"))?;
    let full = g.shape();
    let out_shape = part.shape().to_vec();
    record(
        "SelectBackward0",
        &[Some(g)],
        part,
        Vec::new,
        Box::new(move |ctx| {
            let gp = super::grad_in(ctx.grads, &out_shape);
            Ok(vec![Some(super::backward_ops::select_backward(
                &gp, &full, axis, index,
            )?)])
        }),
    )
}

/// Gradient slices along `axis`, one per input of size `sizes[i]` there
/// (PyTorch's `cat_tensors_backward`: `grad.narrow`).
fn split(g: &Tensor, axis: usize, sizes: &[usize], needs: &[bool]) -> Result<Vec<Option<Tensor>>> {
    let mut offset = 0;
    let mut out = Vec::with_capacity(sizes.len());
    for (i, &n) in sizes.iter().enumerate() {
        out.push(if needs.get(i).copied().unwrap_or(false) {
            Some(narrow(g, axis, offset, n)?)
        } else {
            None
        });
        offset += n;
    }
    Ok(out)
}

/// `arrays` (at least one; equal shapes except along `axis`, which the
/// callers check) joined along `axis`: a copy of each input's run per outer
/// index (`ndarray::concatenate`'s result, without its generic code).
fn concat(arrays: &[Array], axis: usize) -> Result<Array> {
    let mut shape = arrays
        .first()
        .map(|a| a.shape().to_vec())
        .unwrap_or_default();
    if axis >= shape.len() {
        return Err(Error::internal("cat: axis out of range"));
    }
    shape[axis] = arrays.iter().map(|a| a.shape()[axis]).sum();
    let numel = crate::shape::checked_numel(&shape)?;
    let outer: usize = shape[..axis].iter().product();
    let rows: Vec<&[f32]> = arrays.iter().map(|a| a.as_slice()).collect();
    let mut data = Vec::with_capacity(numel);
    if outer != 0 {
        for o in 0..outer {
            for v in &rows {
                let run = v.len() / outer;
                data.extend_from_slice(&v[o * run..(o + 1) * run]);
            }
        }
    }
    Array::from_shape_vec(&shape, data).map_err(|e| Error::internal(format!("cat failed: {e}")))
}

pub fn cat(tensors: &[Tensor], dim: i64) -> Result<Tensor> {
    let first = tensors
        .first()
        .ok_or_else(|| Error::runtime("torch.cat(): expected a non-empty list of Tensors"))?;
    let ndim = first.ndim();
    if ndim == 0 {
        return Err(Error::runtime(
            "zero-dimensional tensor (at position 0) cannot be concatenated",
        ));
    }
    let axis = wrap_dim(dim, ndim)?;
    let base = first.shape();
    for (i, t) in tensors.iter().enumerate() {
        let s = t.shape();
        if s.is_empty() {
            return Err(Error::runtime(format!(
                "zero-dimensional tensor (at position {i}) cannot be concatenated"
            )));
        }
        if s.len() != ndim {
            return Err(Error::runtime(format!(
                "Tensors must have same number of dimensions: got {ndim} and {}",
                s.len()
            )));
        }
        for d in 0..ndim {
            if d != axis && s[d] != base[d] {
                return Err(Error::runtime(format!(
                    "Sizes of tensors must match except in dimension {axis}. Expected size {} but got size {} for tensor number {i} in the list.",
                    base[d], s[d]
                )));
            }
        }
    }
    let arrays = tensors
        .iter()
        .map(|t| t.to_array())
        .collect::<Result<Vec<_>>>()?;
    let out = concat(&arrays, axis)?;
    let sizes: Vec<usize> = arrays.iter().map(|a| a.shape()[axis]).collect();
    let inputs: Vec<Option<&Tensor>> = tensors.iter().map(Some).collect();
    record(
        "CatBackward0",
        &inputs,
        out,
        Vec::new,
        Box::new(move |ctx| {
            let Some(g) = ctx.grads.first().cloned().flatten() else {
                return Ok(vec![None; sizes.len()]);
            };
            split(&g, axis, &sizes, ctx.needs)
        }),
    )
}

pub fn stack(tensors: &[Tensor], dim: i64) -> Result<Tensor> {
    let first = tensors
        .first()
        .ok_or_else(|| Error::runtime("stack expects a non-empty TensorList"))?;
    let base = first.shape();
    let axis = wrap_dim(dim, base.len() + 1)?;
    for (i, t) in tensors.iter().enumerate() {
        let s = t.shape();
        if s != base {
            return Err(Error::runtime(format!(
                "stack expects each tensor to be equal size, but got {} at entry 0 and {} at entry {i}",
                fmt_shape(&base),
                fmt_shape(&s)
            )));
        }
    }
    let arrays = tensors
        .iter()
        .map(|t| t.to_array().map(|a| a.insert_axis(axis)))
        .collect::<Result<Vec<_>>>()?;
    let out = concat(&arrays, axis)?;
    let n = tensors.len();
    let inputs: Vec<Option<&Tensor>> = tensors.iter().map(Some).collect();
    record(
        "StackBackward0",
        &inputs,
        out,
        Vec::new,
        // PyTorch stack_tensors_backward: grad.select(dim, i) per input.
        Box::new(move |ctx| {
            let Some(g) = ctx.grads.first().cloned().flatten() else {
                return Ok(vec![None; n]);
            };
            (0..n)
                .map(|i| super::need(ctx.needs, i, || select(&g, axis, i)))
                .collect()
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::*;

    #[test]
    fn cat_and_stack_gradients() {
        check_binary_gradients("cat0", &[2, 3], &[1, 3], |a, b| {
            cat(&[a.clone(), b.clone()], 0)
        });
        check_binary_gradients("cat1", &[2, 3], &[2, 2], |a, b| {
            cat(&[a.clone(), b.clone(), a.clone()], -1)
        });
        check_binary_gradients("stack1", &[2, 3], &[2, 3], |a, b| {
            stack(&[a.clone(), b.clone()], 1)
        });
        check_binary_gradients("stack-1", &[3], &[3], |a, b| {
            stack(&[a.clone(), b.clone()], -1)
        });
    }

    #[test]
    fn cat_errors_in_pytorch_words() {
        let a = leaf(&[1.0; 6], &[2, 3]);
        let b = leaf(&[1.0; 4], &[2, 2]);
        let e = cat(&[a.clone(), b.clone()], 0).err().map(|e| e.to_string());
        assert_eq!(e.as_deref(), Some("Sizes of tensors must match except in dimension 0. Expected size 3 but got size 2 for tensor number 1 in the list."));
        let e = stack(&[a.clone(), b], 0).err().map(|e| e.to_string());
        assert_eq!(
            e.as_deref(),
            Some("stack expects each tensor to be equal size, but got [2, 3] at entry 0 and [2, 2] at entry 1")
        );
        let c = ok(cat(&[a.clone(), a.clone()], 1));
        assert_eq!(c.shape(), vec![2, 6]);
        assert_eq!(c.grad_fn().map(|f| f.next_functions().len()), Some(2));
    }
}
