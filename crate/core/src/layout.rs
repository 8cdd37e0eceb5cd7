//! Logical memory layout, as PyTorch decides it. hookgrad keeps every
//! tensor's values row-major in its own array; strides are the layout the
//! same tensor would have in PyTorch. They decide what users can see
//! (`t.stride()`, `t.isContiguous()`) and what PyTorch does next: whether
//! `reshape` is a view or a copy, and so whether an in-place op through it
//! changes the base.
//!
//! PyTorch: c10/core/Contiguity.h (`compute_contiguous`,
//! `compute_non_overlapping_and_dense`), aten/src/ATen/TensorUtils.cpp
//! (`computeStride`), aten/src/ATen/TensorIterator.cpp
//! (`compute_fast_setup_type`, `compute_strides`, `reorder_dimensions`,
//! `compatible_stride`, `invert_perm`).

/// Row-major strides of `shape` (`at::contiguous_strides`: size-0/1 dims
/// count as 1).
pub fn contiguous_strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * shape[i + 1].max(1);
    }
    strides
}

/// `is_contiguous()`: size-1 dims are ignored; empty tensors are contiguous.
pub fn is_contiguous(shape: &[usize], strides: &[usize]) -> bool {
    if shape.contains(&0) {
        return true;
    }
    let mut expected = 1;
    for (&size, &stride) in shape.iter().zip(strides).rev() {
        if size != 1 {
            if stride != expected {
                return false;
            }
            expected *= size;
        }
    }
    true
}

/// `is_non_overlapping_and_dense()`: some permutation of the dims is contiguous.
pub fn is_non_overlapping_and_dense(shape: &[usize], strides: &[usize]) -> bool {
    if shape.len() == 1 {
        return shape[0] < 2 || strides[0] == 1;
    }
    let mut perm: Vec<usize> = (0..shape.len()).collect();
    // Dims of size 0/1 go last; the others by increasing stride.
    perm.sort_by(|&a, &b| {
        let key = |d: usize| (shape[d] < 2, strides[d]);
        key(a).cmp(&key(b))
    });
    let mut require = 1;
    for &d in &perm {
        if shape[d] < 2 {
            return true;
        }
        if strides[d] != require {
            return false;
        }
        require *= shape[d];
    }
    true
}

/// A write through this layout would hit one element twice (an `expand`ed
/// tensor): PyTorch's `has_internal_overlap` == YES.
pub fn has_internal_overlap(shape: &[usize], strides: &[usize]) -> bool {
    !is_non_overlapping_and_dense(shape, strides)
        && shape.iter().zip(strides).any(|(&n, &s)| n > 1 && s == 0)
}

/// PyTorch's `computeStride`: the strides that make `new_shape` a view of a
/// tensor of `old_shape` / `old_strides`, or `None` when `reshape` must copy.
pub fn compute_stride(
    old_shape: &[usize],
    old_strides: &[usize],
    new_shape: &[usize],
) -> Option<Vec<usize>> {
    if old_shape.is_empty() {
        return Some(vec![1; new_shape.len()]);
    }
    let numel: usize = old_shape.iter().product();
    if numel == 0 {
        if old_shape == new_shape {
            return Some(old_strides.to_vec());
        }
        return Some(contiguous_strides(new_shape));
    }
    let mut new_strides = vec![0; new_shape.len()];
    let mut view_d = new_shape.len() as isize - 1;
    let mut chunk_base_stride = *old_strides.last()?;
    let mut tensor_numel = 1;
    let mut view_numel = 1;
    for tensor_d in (0..old_shape.len()).rev() {
        tensor_numel *= old_shape[tensor_d];
        let chunk_ends = tensor_d == 0
            || (old_shape[tensor_d - 1] != 1
                && old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride);
        if chunk_ends {
            while view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d as usize] == 1) {
                new_strides[view_d as usize] = view_numel * chunk_base_stride;
                view_numel *= new_shape[view_d as usize];
                view_d -= 1;
            }
            if view_numel != tensor_numel {
                return None;
            }
            if tensor_d > 0 {
                chunk_base_stride = old_strides[tensor_d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    if view_d != -1 {
        return None;
    }
    Some(new_strides)
}

/// The output layout of an elementwise op (TensorIterator) over `operands`
/// (`(shape, strides)` of each tensor input; numbers are left out, as their
/// wrapped 0-d tensors broadcast with stride 0 and never decide anything).
pub fn elementwise_strides(
    out_shape: &[usize],
    operands: &[(Vec<usize>, Vec<usize>)],
) -> Vec<usize> {
    let ndim = out_shape.len();
    if ndim == 0 {
        return Vec::new();
    }
    // Fast setup: every operand of the output's shape.
    if !operands.is_empty() && operands.iter().all(|(s, _)| s == out_shape) {
        if operands.iter().all(|(s, st)| is_contiguous(s, st)) {
            return contiguous_strides(out_shape);
        }
        let first = &operands[0].1;
        if operands
            .iter()
            .all(|(s, st)| is_non_overlapping_and_dense(s, st) && st == first)
        {
            return first.clone();
        }
    }
    // compute_strides: broadcast dims (and missing leading dims) get stride 0.
    let strides: Vec<Vec<usize>> = operands
        .iter()
        .map(|(shape, st)| {
            let offset = ndim - shape.len().min(ndim);
            let mut out = vec![0; ndim];
            for (i, (&n, &s)) in shape.iter().zip(st).enumerate() {
                if i + offset < ndim {
                    out[i + offset] = if n == 1 && out_shape[i + offset] != 1 {
                        0
                    } else {
                        s
                    };
                }
            }
            out
        })
        .collect();
    // reorder_dimensions: perm[0] is the fastest-moving dim.
    let should_swap = |d0: usize, d1: usize| -> i32 {
        for st in &strides {
            let (s0, s1) = (st[d0], st[d1]);
            if s0 == 0 || s1 == 0 {
                continue;
            }
            if s0 < s1 {
                return -1;
            }
            if s0 > s1 {
                return 1;
            }
            if out_shape[d0] > out_shape[d1] {
                return 1;
            }
        }
        0
    };
    let mut perm: Vec<usize> = (0..ndim).rev().collect();
    for i in 1..ndim {
        let mut dim1 = i;
        for dim0 in (0..i).rev() {
            let c = should_swap(perm[dim0], perm[dim1]);
            if c > 0 {
                perm.swap(dim0, dim1);
                dim1 = dim0;
            } else if c < 0 {
                break;
            }
        }
    }
    // compatible_stride over the permuted shape, then invert_perm.
    let mut out = vec![0; ndim];
    let mut next = 1;
    for &d in &perm {
        out[d] = next;
        next *= out_shape[d];
    }
    out
}

/// The layout `clone()` (`MemoryFormat::Preserve`) gives: the same strides
/// for a non-overlapping, dense input, else dense strides in its order.
pub fn preserve_strides(shape: &[usize], strides: &[usize]) -> Vec<usize> {
    if is_non_overlapping_and_dense(shape, strides) {
        strides.to_vec()
    } else {
        elementwise_strides(shape, &[(shape.to_vec(), strides.to_vec())])
    }
}

/// AccumulateGrad's layout contract (`utils::obeys_layout_contract`): a
/// gradient may become `.grad` as is only if it matches the variable's
/// strides wherever a dim has more than one element.
pub fn obeys_layout_contract(
    shape: &[usize],
    grad_strides: &[usize],
    var_strides: &[usize],
) -> bool {
    if is_non_overlapping_and_dense(shape, var_strides) {
        shape
            .iter()
            .zip(grad_strides.iter().zip(var_strides))
            .all(|(&n, (g, v))| n == 1 || g == v)
    } else {
        is_contiguous(shape, grad_strides)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Every expected value below was printed by torch 2.15 (t.stride()).
    #[test]
    fn contiguity_as_pytorch_reports_it() {
        assert_eq!(contiguous_strides(&[2, 1, 3]), vec![3, 3, 1]);
        assert_eq!(contiguous_strides(&[3, 1]), vec![1, 1]);
        assert_eq!(contiguous_strides(&[0, 3]), vec![3, 1]);
        // ones(3, 1).t(): [1, 3] with strides [1, 1] is contiguous.
        assert!(is_contiguous(&[1, 3], &[1, 1]));
        assert!(!is_contiguous(&[3, 2], &[1, 3]));
        // x.t().t() is contiguous again.
        assert!(is_contiguous(&[2, 3], &[3, 1]));
        assert!(is_non_overlapping_and_dense(&[3, 2], &[1, 3]));
        assert!(!is_non_overlapping_and_dense(&[4, 3], &[0, 1]));
        assert!(has_internal_overlap(&[4, 3], &[0, 1]));
    }

    #[test]
    fn reshape_strides_like_compute_stride() {
        // x: [2, 3]; x.t(): [3, 2] strides [1, 3].
        let (s, st) = (vec![3, 2], vec![1, 3]);
        assert_eq!(compute_stride(&s, &st, &[3, 2]), Some(vec![1, 3]));
        assert_eq!(compute_stride(&s, &st, &[3, 2, 1]), Some(vec![1, 3, 3]));
        assert_eq!(compute_stride(&s, &st, &[3, 1, 2]), Some(vec![1, 6, 3]));
        assert_eq!(compute_stride(&s, &st, &[6]), None);
        assert_eq!(compute_stride(&[2, 3], &[3, 1], &[6]), Some(vec![1]));
    }

    #[test]
    fn elementwise_output_follows_tensor_iterator() {
        let t = (vec![3, 2], vec![1, 3]); // x.t()
        let c = (vec![3, 2], vec![2, 1]); // a contiguous [3, 2]
        let b = (vec![2], vec![1]);
        let col = (vec![3, 1], vec![1, 1]);
        let out = [3, 2];
        assert_eq!(
            elementwise_strides(&out, std::slice::from_ref(&t)),
            vec![1, 3]
        );
        assert_eq!(
            elementwise_strides(&out, &[t.clone(), c.clone()]),
            vec![1, 3]
        );
        assert_eq!(elementwise_strides(&out, &[c, t.clone()]), vec![2, 1]);
        assert_eq!(
            elementwise_strides(&out, &[t.clone(), b.clone()]),
            vec![1, 3]
        );
        assert_eq!(elementwise_strides(&out, &[b, t.clone()]), vec![1, 3]);
        assert_eq!(
            elementwise_strides(&out, &[t.clone(), col.clone()]),
            vec![1, 3]
        );
        assert_eq!(elementwise_strides(&out, &[col, t]), vec![1, 3]);
        // x.t().unsqueeze(1): [3, 1, 2] strides [1, 6, 3] is kept.
        let u = (vec![3, 1, 2], vec![1, 6, 3]);
        assert_eq!(elementwise_strides(&[3, 1, 2], &[u]), vec![1, 6, 3]);
    }
}
