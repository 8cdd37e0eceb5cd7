//! `torch.cat` (`CatBackward0`) and `torch.stack` (`StackBackward0`): one
//! node with an edge per input tensor; backward hands each input its slice
//! of the gradient (PyTorch's `cat_tensors_backward` narrows, `stack`'s
//! unbinds).

use ndarray::{Axis, Slice};

use super::{grad_tensor, record};
use crate::error::{Error, Result};
use crate::shape::{fmt_shape, wrap_dim};
use crate::tensor::{Array, Tensor};

/// Gradient slices along `axis`, one per input of size `sizes[i]` there.
fn split(g: &Array, axis: usize, sizes: &[usize]) -> Vec<Array> {
    let mut offset = 0;
    sizes
        .iter()
        .map(|&n| {
            let part = g
                .slice_axis(Axis(axis), Slice::from(offset..offset + n))
                .to_owned();
            offset += n;
            part
        })
        .collect()
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
    let views: Vec<_> = arrays.iter().map(|a| a.view()).collect();
    let out = ndarray::concatenate(Axis(axis), &views)
        .map_err(|e| Error::runtime(format!("internal: cat failed: {e}")))?;
    crate::shape::checked_numel(out.shape())?;
    let sizes: Vec<usize> = arrays.iter().map(|a| a.shape()[axis]).collect();
    let inputs: Vec<Option<&Tensor>> = tensors.iter().map(Some).collect();
    Ok(record(
        "CatBackward0",
        &inputs,
        out,
        Vec::new,
        Box::new(move |ctx| {
            let Some(g) = ctx.grads.first().cloned().flatten() else {
                return Ok(vec![None; sizes.len()]);
            };
            let parts = split(&*g.data()?, axis, &sizes);
            Ok(parts
                .into_iter()
                .zip(ctx.needs)
                .map(|(p, &need)| if need { grad_tensor(p) } else { None })
                .collect())
        }),
    ))
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
        .map(|t| t.to_array().map(|a| a.insert_axis(Axis(axis))))
        .collect::<Result<Vec<_>>>()?;
    let views: Vec<_> = arrays.iter().map(|a| a.view()).collect();
    let out = ndarray::concatenate(Axis(axis), &views)
        .map_err(|e| Error::runtime(format!("internal: stack failed: {e}")))?;
    crate::shape::checked_numel(out.shape())?;
    let n = tensors.len();
    let inputs: Vec<Option<&Tensor>> = tensors.iter().map(Some).collect();
    Ok(record(
        "StackBackward0",
        &inputs,
        out,
        Vec::new,
        Box::new(move |ctx| {
            let Some(g) = ctx.grads.first().cloned().flatten() else {
                return Ok(vec![None; n]);
            };
            let parts = split(&*g.data()?, axis, &vec![1; n]);
            Ok(parts
                .into_iter()
                .zip(ctx.needs)
                .map(|(p, &need)| {
                    if need {
                        grad_tensor(p.remove_axis(Axis(axis)))
                    } else {
                        None
                    }
                })
                .collect())
        }),
    ))
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
