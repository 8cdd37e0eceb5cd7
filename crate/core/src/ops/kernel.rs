//! Adapter for the `hookgrad-kernel` crate's matmul (its own crate so it is
//! built for speed while the engine is built for size).

use crate::error::{Error, Result};
use crate::tensor::Array;

/// `a @ b` for matrices (2-D arrays; row-major, as every `Array` is).
pub fn matmul(a: &Array, b: &Array) -> Result<Array> {
    let (&[m, k], &[k2, n]) = (a.shape(), b.shape()) else {
        return Err(Error::internal("matmul operand is not a matrix"));
    };
    if k != k2 {
        return Err(Error::internal("matmul operands do not fit"));
    }
    let c = hookgrad_kernel::matmul(a.as_slice(), b.as_slice(), m, k, n);
    Array::from_shape_vec(&[m, n], c)
        .map_err(|e| Error::internal(format!("matmul kernel returned a wrong size: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_product_by_hand() {
        let arr = |s: &[usize], v: &[f32]| Array::from_shape_vec(s, v.to_vec()).ok();
        let (Some(a), Some(b)) = (
            arr(&[2, 2], &[1.0, 2.0, 3.0, 4.0]),
            arr(&[2, 3], &[5.0, 6.0, 7.0, 8.0, 9.0, 10.0]),
        ) else {
            unreachable!()
        };
        let c = matmul(&a, &b).ok();
        let expected = arr(&[2, 3], &[21.0, 24.0, 27.0, 47.0, 54.0, 61.0]);
        assert_eq!(c, expected);
        // Transposed operands (materialized): (bᵀ aᵀ) = (a b)ᵀ.
        let c2 = matmul(&b.swapped(0, 1), &a.swapped(0, 1)).ok();
        assert_eq!(c2, expected.map(|e| e.swapped(0, 1)));
        assert!(matmul(&a, &a.clone().insert_axis(0)).is_err());
    }
}
