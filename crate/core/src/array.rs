//! `Array`: hookgrad's n-dimensional float32 values, always row-major and
//! contiguous (a shape and a `Vec<f32>`; no strides). Every tensor keeps its
//! values this way — views own a copy, and PyTorch's strides are only the
//! logical layout (`layout`) — so a general strided array (ndarray, used
//! until issue 10's sixth pass) is not needed: its generic shape/stride code
//! was ~23 KB of the wasm and much of a tiny tensor's cost.
//!
//! The few operations here are the ones the engine uses. Reductions keep
//! ndarray's summation orders bit for bit for its standard layout with
//! default strides (tested in array_tests.rs), the arrays hookgrad made
//! almost always. Not in three corners where ndarray's arrays carried
//! other strides, which steered its sums (each checked against ndarray
//! 0.17): a transpose that moved a length-1 axis last (`[1, n].t()` kept
//! stride n on it, so its `[n, 1]` summed over dim 0 unrolled, where a
//! fresh `[n, 1]` folds), a broadcast that only prepended length-1 axes
//! (stride 0), and an elementwise op on operands broadcast along different
//! axes (`[3, 1, 1] + [1, 4, 1]` was collected column-major, so a later
//! full `sum` ran in that order). Here those arrays are row-major and sum
//! as any array of their shape: a sum of 8 or more values in exactly those
//! cases can differ in its last bits from the ndarray build's.

use std::fmt;

use crate::cascade_sum;
use crate::small::Small;

#[derive(Clone)]
pub struct Array {
    /// Up to two dims inline (no allocation for the shape of a vector or a
    /// matrix).
    shape: Small<usize>,
    data: Vec<f32>,
}

/// A shape and a number of values that do not agree (`from_shape_vec`).
/// Its message is ndarray's, which internal errors used to quote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShapeError;

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ShapeError/IncompatibleShape: incompatible shapes")
    }
}

impl std::error::Error for ShapeError {}

/// The number of values of `shape`, `None` on overflow.
fn numel(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d))
}

impl Array {
    /// `shape` filled with `value` (callers check the size first:
    /// `shape::checked_numel`; an overflowing shape is an internal fault).
    pub fn from_elem(shape: &[usize], value: f32) -> Array {
        let Some(n) = numel(shape) else {
            return crate::error::fault_default("an array shape overflowed");
        };
        Array {
            shape: Small::from_slice(shape),
            data: vec![value; n],
        }
    }

    pub fn zeros(shape: &[usize]) -> Array {
        Array::from_elem(shape, 0.0)
    }

    pub fn ones(shape: &[usize]) -> Array {
        Array::from_elem(shape, 1.0)
    }

    /// A 0-d array holding `value`.
    pub fn scalar(value: f32) -> Array {
        Array {
            shape: Small::Zero,
            data: vec![value],
        }
    }

    /// `values` in row-major order as an array of `shape`; an error when
    /// their number is not the shape's.
    pub fn from_shape_vec(shape: &[usize], values: Vec<f32>) -> Result<Array, ShapeError> {
        if numel(shape) != Some(values.len()) {
            return Err(ShapeError);
        }
        Ok(Array {
            shape: Small::from_slice(shape),
            data: values,
        })
    }

    #[inline]
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    #[inline]
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// The number of values.
    #[inline]
    pub fn len(&self) -> usize {
        self.data.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The values in row-major order.
    #[inline]
    pub fn as_slice(&self) -> &[f32] {
        &self.data
    }

    #[inline]
    pub fn as_slice_mut(&mut self) -> &mut [f32] {
        &mut self.data
    }

    #[inline]
    pub fn iter(&self) -> std::slice::Iter<'_, f32> {
        self.data.iter()
    }

    #[inline]
    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, f32> {
        self.data.iter_mut()
    }

    pub fn into_vec(self) -> Vec<f32> {
        self.data
    }

    /// The first value (`None` when empty).
    #[inline]
    pub fn first(&self) -> Option<&f32> {
        self.data.first()
    }

    /// `f` of every value, same shape.
    pub fn mapv(&self, f: impl Fn(f32) -> f32) -> Array {
        Array {
            shape: self.shape.clone(),
            data: self.data.iter().map(|&v| f(v)).collect(),
        }
    }

    /// The values under another shape with as many elements (a row-major
    /// reshape moves no value).
    pub fn into_shape(self, shape: &[usize]) -> Result<Array, ShapeError> {
        Array::from_shape_vec(shape, self.data)
    }

    /// The same values with a new axis of length 1 at `axis` (`axis` past
    /// the last is clamped to the end).
    pub fn insert_axis(mut self, axis: usize) -> Array {
        let mut dims = self.shape.to_vec();
        dims.insert(axis.min(dims.len()), 1);
        self.shape = dims.into();
        self
    }

    /// The sum of all values in PyTorch's order (`cascade_sum::sum`).
    pub fn sum(&self) -> f32 {
        cascade_sum::sum(&self.data)
    }

    /// Axes `d0` and `d1` swapped, as a new row-major array (`d0 == d1` is
    /// a copy: also a 0-d array's `t()`, axes 0 and 0). Callers check the
    /// axes: one out of range is an internal fault.
    pub fn swapped(&self, d0: usize, d1: usize) -> Array {
        if d0 == d1 {
            return self.clone();
        }
        let n = self.ndim();
        if d0 >= n || d1 >= n {
            return crate::error::fault_default("a transpose of an axis out of range");
        }
        let mut perm: Vec<usize> = (0..n).collect();
        perm.swap(d0, d1);
        self.permuted(&perm)
    }

    /// The axes in reverse order (a matrix transposed), row-major.
    pub fn reversed_axes(&self) -> Array {
        let perm: Vec<usize> = (0..self.ndim()).rev().collect();
        self.permuted(&perm)
    }

    /// Axis `perm[i]` of `self` as axis `i`, materialized row-major.
    /// `perm` must be a permutation of `0..ndim` (callers build it; anything
    /// else is an internal fault).
    pub fn permuted(&self, perm: &[usize]) -> Array {
        let n = self.ndim();
        let mut seen = vec![false; n];
        let valid = perm.len() == n
            && perm
                .iter()
                .all(|&p| p < n && !std::mem::replace(&mut seen[p], true));
        if !valid {
            return crate::error::fault_default("a permutation of the axes that is not one");
        }
        let row = row_strides(&self.shape);
        let shape: Vec<usize> = perm.iter().map(|&p| self.shape[p]).collect();
        let strides: Vec<usize> = perm.iter().map(|&p| row[p]).collect();
        Array {
            data: gather(&self.data, &shape, &strides),
            shape: shape.into(),
        }
    }

    /// `self` repeated to `shape` by broadcasting (ndarray's `broadcast`:
    /// dims aligned from the last, each equal or 1 in `self`), materialized;
    /// `None` when `self` does not broadcast to `shape`.
    pub fn broadcast(&self, shape: &[usize]) -> Option<Array> {
        let strides = broadcast_strides(&self.shape, shape)?;
        numel(shape)?;
        Some(Array {
            data: gather(&self.data, shape, &strides),
            shape: Small::from_slice(shape),
        })
    }

    /// The sub-array at `index` along `axis`, without that axis
    /// (`index_axis` / PyTorch's `select`); `None` out of range.
    pub fn index_axis(&self, axis: usize, index: usize) -> Option<Array> {
        let mut a = self.slice_axis(axis, index, 1)?;
        let mut dims = a.shape.to_vec();
        dims.remove(axis);
        a.shape = dims.into();
        Some(a)
    }

    /// The sums along `axis`, without it, in PyTorch's order
    /// (`cascade_sum`): each lane of the last axis as one contiguous row,
    /// any other axis as column sums of each block of `len × inner`
    /// values. An axis out of range is an internal fault.
    pub fn sum_axis(&self, axis: usize) -> Array {
        if axis >= self.ndim() {
            return crate::error::fault_default("a reduction over an axis out of range");
        }
        let len = self.shape[axis];
        let outer: usize = self.shape[..axis].iter().product();
        let inner: usize = self.shape[axis + 1..].iter().product();
        let mut out = Vec::with_capacity(outer * inner);
        for block in 0..outer {
            let values = &self.data[block * len * inner..(block + 1) * len * inner];
            if inner == 1 {
                out.push(cascade_sum::sum(values));
            } else {
                out.extend(cascade_sum::column_sums(values, len, inner));
            }
        }
        let mut dims = self.shape.to_vec();
        dims.remove(axis);
        Array::from_shape_vec(&dims, out).unwrap_or_else(|_| {
            crate::error::fault_default("sum_axis built a wrong number of values")
        })
    }

    /// The maxima along `axis`, without it: each lane folded from -inf with
    /// `f32::max` in index order (ndarray's `map_axis` as log_softmax used it).
    pub fn max_axis(&self, axis: usize) -> Array {
        self.over_lanes(axis, &|lane, step| {
            lane.iter()
                .step_by(step)
                .fold(f32::NEG_INFINITY, |m, &x| f32::max(m, x))
        })
    }

    /// `lane(values, step)` for every lane along `axis` (its k-th value at
    /// `values[k * step]`), in row-major order of the other axes.
    fn over_lanes(&self, axis: usize, lane: &dyn Fn(&[f32], usize) -> f32) -> Array {
        if axis >= self.ndim() {
            return crate::error::fault_default("a reduction over an axis out of range");
        }
        let len = self.shape[axis];
        let outer: usize = self.shape[..axis].iter().product();
        let inner: usize = self.shape[axis + 1..].iter().product();
        let mut out = Vec::with_capacity(outer * inner);
        for o in 0..outer {
            for i in 0..inner {
                // The lane's first value to its last. An empty axis has empty
                // lanes (and `start` may be past the values: there are none).
                let start = o * len * inner + i;
                let values = match len {
                    0 => &[][..],
                    _ => self
                        .data
                        .get(start..start + (len - 1) * inner + 1)
                        .unwrap_or_else(|| {
                            crate::error::fault("a reduction lane past the array's values");
                            &[]
                        }),
                };
                out.push(lane(values, inner));
            }
        }
        let mut shape = self.shape.to_vec();
        shape.remove(axis);
        Array {
            shape: shape.into(),
            data: out,
        }
    }

    /// `len` entries from `start` along `axis` (`narrow`); `None` out of range.
    pub fn slice_axis(&self, axis: usize, start: usize, len: usize) -> Option<Array> {
        let size = *self.shape.get(axis)?;
        if start.checked_add(len)? > size {
            return None;
        }
        let outer: usize = self.shape[..axis].iter().product();
        let inner: usize = self.shape[axis + 1..].iter().product();
        let mut data = Vec::with_capacity(outer * len * inner);
        for o in 0..outer {
            let from = (o * size + start) * inner;
            data.extend_from_slice(&self.data[from..from + len * inner]);
        }
        let mut shape = self.shape.clone();
        shape[axis] = len;
        Some(Array { shape, data })
    }
}

/// An empty 1-d array (shape `[0]`), as ndarray's default `ArrayD`.
impl Default for Array {
    fn default() -> Array {
        Array {
            shape: Small::One(0),
            data: Vec::new(),
        }
    }
}

/// Equal shapes and equal values (`==` on floats: NaN is never equal).
impl PartialEq for Array {
    fn eq(&self, other: &Array) -> bool {
        self.shape() == other.shape() && self.data == other.data
    }
}

impl fmt::Debug for Array {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Array {{ shape: {:?}, data: {:?} }}",
            self.shape(),
            self.data
        )
    }
}

/// Row-major strides of `shape` (in elements).
pub(crate) fn row_strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1usize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * shape[i + 1];
    }
    strides
}

/// Strides (in elements of a row-major `from`) that read `from` as `to`:
/// 0 along the dims it is repeated in. `None` when it does not broadcast.
fn broadcast_strides(from: &[usize], to: &[usize]) -> Option<Vec<usize>> {
    let lead = to.len().checked_sub(from.len())?;
    let row = row_strides(from);
    let mut strides = vec![0usize; to.len()];
    for (i, (&f, &t)) in from.iter().zip(&to[lead..]).enumerate() {
        if f == t {
            strides[lead + i] = if f == 1 { 0 } else { row[i] };
        } else if f != 1 {
            return None;
        }
    }
    Some(strides)
}

/// The values at `strides` (one per dim of `shape`) from `data`, in
/// row-major order of `shape`: the walk behind permuting and broadcasting.
fn gather(data: &[f32], shape: &[usize], strides: &[usize]) -> Vec<f32> {
    let total: usize = shape.iter().product();
    let mut out = Vec::with_capacity(total);
    if total == 0 {
        return out;
    }
    let n = shape.len();
    let mut index = vec![0usize; n];
    let mut at = 0usize;
    for _ in 0..total {
        // Never out of range for strides of `data`'s own shape; if it were,
        // the recorded fault fails the op instead of a silent 0.
        out.push(match data.get(at) {
            Some(&v) => v,
            None => {
                crate::error::fault("a strided read past the array's values");
                0.0
            }
        });
        // Next index, last dim fastest; `at` follows it.
        for d in (0..n).rev() {
            index[d] += 1;
            at += strides[d];
            if index[d] < shape[d] {
                break;
            }
            at -= strides[d] * shape[d];
            index[d] = 0;
        }
    }
    out
}

#[cfg(test)]
#[path = "array_tests.rs"]
mod tests;
