//! ndarray adapter for the `hookgrad-kernel` crate's matmul (its own crate so
//! it is built for speed while the engine is built for size).

use ndarray::{Array2, ArrayView2};

/// `a @ b` for row-major matrices (any layout in; standard layout out).
pub fn matmul(a: ArrayView2<f32>, b: ArrayView2<f32>) -> Array2<f32> {
    let (m, k) = a.dim();
    let n = b.ncols();
    let a = a.as_standard_layout();
    let b = b.as_standard_layout();
    let c = hookgrad_kernel::matmul(
        a.as_slice().unwrap_or(&[]),
        b.as_slice().unwrap_or(&[]),
        m,
        k,
        n,
    );
    Array2::from_shape_vec((m, n), c).unwrap_or_else(|_| Array2::zeros((m, n)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_product_by_hand() {
        let a = ndarray::arr2(&[[1.0f32, 2.0], [3.0, 4.0]]);
        let b = ndarray::arr2(&[[5.0f32, 6.0, 7.0], [8.0, 9.0, 10.0]]);
        let c = matmul(a.view(), b.view());
        assert_eq!(c, ndarray::arr2(&[[21.0, 24.0, 27.0], [47.0, 54.0, 61.0]]));
        // Transposed (non-standard layout) operands work too.
        let c2 = matmul(b.t(), a.t());
        assert_eq!(c2, c.t().to_owned());
    }
}
