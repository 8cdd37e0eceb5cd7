//! ndarray adapter for the `hookgrad-kernel` crate's matmul (its own crate so
//! it is built for speed while the engine is built for size).

use ndarray::{Array2, ArrayView2};

use crate::error::{Error, Result};

/// `a @ b` for row-major matrices (any layout in; standard layout out).
pub fn matmul(a: ArrayView2<f32>, b: ArrayView2<f32>) -> Result<Array2<f32>> {
    let (m, k) = a.dim();
    let n = b.ncols();
    let a = a.as_standard_layout();
    let b = b.as_standard_layout();
    // Standard layout always has a slice; never multiply an empty stand-in.
    let (Some(sa), Some(sb)) = (a.as_slice(), b.as_slice()) else {
        return Err(Error::internal("matmul operand is not in standard layout"));
    };
    let c = hookgrad_kernel::matmul(sa, sb, m, k, n);
    Array2::from_shape_vec((m, n), c)
        .map_err(|e| Error::internal(format!("matmul kernel returned a wrong size: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_product_by_hand() {
        let a = ndarray::arr2(&[[1.0f32, 2.0], [3.0, 4.0]]);
        let b = ndarray::arr2(&[[5.0f32, 6.0, 7.0], [8.0, 9.0, 10.0]]);
        let c = matmul(a.view(), b.view()).ok();
        let expected = ndarray::arr2(&[[21.0, 24.0, 27.0], [47.0, 54.0, 61.0]]);
        assert_eq!(c, Some(expected.clone()));
        // Transposed (non-standard layout) operands work too.
        let c2 = matmul(b.t(), a.t()).ok();
        assert_eq!(c2, Some(expected.t().to_owned()));
    }
}
