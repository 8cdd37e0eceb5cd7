//! Shape arithmetic: broadcasting, reduction back to a shape (`sum_to`),
//! dimension wrapping — with PyTorch's error messages.

use crate::error::{Error, Result};
use crate::tensor::Array;

/// `[2, 3]` as PyTorch prints sizes in messages.
pub fn fmt_shape(shape: &[usize]) -> String {
    let parts: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

/// The most elements one tensor may have (256 MB of float32). Past this a
/// wasm allocation would abort the instance, so ops refuse instead.
pub const MAX_NUMEL: usize = 1 << 26;

/// Element count of `shape`, or an error when it exceeds `MAX_NUMEL`.
pub fn checked_numel(shape: &[usize]) -> Result<usize> {
    let mut n: usize = 1;
    for &d in shape {
        n = n.saturating_mul(d);
    }
    if n > MAX_NUMEL {
        return Err(Error::runtime(format!(
            "hookgrad: a tensor of shape {} would have {n} elements, more than the {MAX_NUMEL} it supports",
            fmt_shape(shape)
        )));
    }
    Ok(n)
}

/// PyTorch's `infer_size`: the broadcast shape of `a` and `b`.
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let ndim = a.len().max(b.len());
    let mut out = vec![0; ndim];
    for i in (0..ndim).rev() {
        let offset = ndim - 1 - i;
        let da = if offset < a.len() {
            a[a.len() - 1 - offset]
        } else {
            1
        };
        let db = if offset < b.len() {
            b[b.len() - 1 - offset]
        } else {
            1
        };
        if da != db && da != 1 && db != 1 {
            return Err(Error::runtime(format!(
                "The size of tensor a ({da}) must match the size of tensor b ({db}) at non-singleton dimension {i}"
            )));
        }
        out[i] = if da == 1 { db } else { da };
    }
    checked_numel(&out)?;
    Ok(out)
}

/// Expands `a` to `shape` (which must be a broadcast of it) as an owned array.
pub fn expand(a: &Array, shape: &[usize]) -> Result<Array> {
    a.broadcast(shape).ok_or_else(|| {
        Error::runtime(format!(
            "The expanded size of the tensor must match the existing size: cannot expand {} to {}",
            fmt_shape(a.shape()),
            fmt_shape(shape)
        ))
    })
}

/// True when a tensor of shape `from` broadcasts to `to` (`is_expandable_to`).
pub fn is_expandable_to(from: &[usize], to: &[usize]) -> bool {
    if from.len() > to.len() {
        return false;
    }
    from.iter()
        .rev()
        .zip(to.iter().rev())
        .all(|(f, t)| f == t || *f == 1)
}

/// PyTorch's `at::sum_to`: sums a broadcast gradient back to `shape`.
pub fn sum_to(grad: &Array, shape: &[usize]) -> Array {
    let mut g = grad.clone();
    while g.ndim() > shape.len() {
        g = g.sum_axis(0);
    }
    for (axis, &size) in shape.iter().enumerate() {
        if size == 1 && g.shape().get(axis).copied().unwrap_or(1) != 1 {
            g = g.sum_axis(axis).insert_axis(axis);
        }
    }
    g
}

/// Wraps a possibly negative dim like PyTorch's `maybe_wrap_dim`.
pub fn wrap_dim(dim: i64, ndim: usize) -> Result<usize> {
    let n = ndim.max(1) as i64;
    let (lo, hi) = (-n, n - 1);
    if dim < lo || dim > hi {
        return Err(Error::Index(format!(
            "Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})"
        )));
    }
    Ok(if dim < 0 {
        (dim + n) as usize
    } else {
        dim as usize
    })
}

/// Resolves a `reshape` target with at most one `-1`.
pub fn infer_shape(target: &[i64], numel: usize) -> Result<Vec<usize>> {
    let shape_str = format!(
        "[{}]",
        target
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut infer_at = None;
    let mut known: usize = 1;
    for (i, &d) in target.iter().enumerate() {
        if d == -1 {
            if infer_at.is_some() {
                return Err(Error::runtime("only one dimension can be inferred"));
            }
            infer_at = Some(i);
        } else if d < 0 {
            return Err(Error::runtime(format!("invalid shape dimension {d}")));
        } else {
            known = known.saturating_mul(d as usize);
        }
    }
    let mut out: Vec<usize> = target.iter().map(|&d| d.max(0) as usize).collect();
    match infer_at {
        Some(i) => {
            if known == 0 || !numel.is_multiple_of(known) {
                return Err(Error::runtime(format!(
                    "shape '{shape_str}' is invalid for input of size {numel}"
                )));
            }
            out[i] = numel / known;
        }
        None => {
            if known != numel {
                return Err(Error::runtime(format!(
                    "shape '{shape_str}' is invalid for input of size {numel}"
                )));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_error_in_pytorch_words() {
        let e = broadcast_shapes(&[2, 3], &[4]).err().map(|e| e.to_string());
        assert_eq!(
            e.as_deref(),
            Some("The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1")
        );
        assert_eq!(broadcast_shapes(&[2, 1], &[1, 3]).ok(), Some(vec![2, 3]));
    }

    #[test]
    fn sum_to_reduces_leading_and_unit_dims() {
        let g = Array::from_elem(&[2, 3], 1.0f32);
        assert_eq!(sum_to(&g, &[3]).shape(), &[3]);
        assert_eq!(
            sum_to(&g, &[2, 1]).iter().copied().collect::<Vec<_>>(),
            vec![3.0, 3.0]
        );
        assert_eq!(
            sum_to(&g, &[]).iter().copied().collect::<Vec<_>>(),
            vec![6.0]
        );
    }

    #[test]
    fn wrap_dim_errors_like_pytorch() {
        assert_eq!(wrap_dim(-1, 2).ok(), Some(1));
        assert_eq!(
            wrap_dim(2, 2).err().map(|e| e.to_string()).as_deref(),
            Some("Dimension out of range (expected to be in range of [-2, 1], but got 2)")
        );
    }

    #[test]
    fn reshape_inference() {
        assert_eq!(infer_shape(&[-1, 2], 6).ok(), Some(vec![3, 2]));
        assert_eq!(
            infer_shape(&[4], 6).err().map(|e| e.to_string()).as_deref(),
            Some("shape '[4]' is invalid for input of size 6")
        );
    }
}
