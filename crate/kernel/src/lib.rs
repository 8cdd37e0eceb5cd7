//! The matrix-multiply kernel behind every matmul-family op in hookgrad.
//! It lives in its own crate so the release profile can build it at
//! `opt-level = 3` (unrolled, vectorized with wasm SIMD) while the rest of
//! the engine is built for size.

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

/// `c = a @ b` for row-major `a` (m×k) and `b` (k×n); `c` has m×n entries.
/// An i-k-j loop: the inner loop is a contiguous `c_row += a_ip * b_row`.
/// Slices that are too short are treated as missing rows (no panic).
pub fn matmul(a: &[f32], b: &[f32], m: usize, k: usize, n: usize) -> Vec<f32> {
    let mut c = vec![0.0f32; m * n];
    if a.len() < m * k || b.len() < k * n {
        return c;
    }
    for (c_row, a_row) in c.chunks_exact_mut(n.max(1)).zip(a.chunks_exact(k.max(1))) {
        for (&a_ip, b_row) in a_row.iter().zip(b.chunks_exact(n.max(1))) {
            if a_ip == 0.0 {
                continue;
            }
            for (c_ij, &b_pj) in c_row.iter_mut().zip(b_row) {
                *c_ij += a_ip * b_pj;
            }
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::matmul;

    #[test]
    fn two_by_two_times_two_by_three() {
        let a = [1.0, 2.0, 3.0, 4.0];
        let b = [5.0, 6.0, 7.0, 8.0, 9.0, 10.0];
        assert_eq!(
            matmul(&a, &b, 2, 2, 3),
            vec![21.0, 24.0, 27.0, 47.0, 54.0, 61.0]
        );
    }

    #[test]
    fn short_inputs_do_not_panic() {
        assert_eq!(matmul(&[1.0], &[1.0], 2, 2, 2), vec![0.0; 4]);
    }
}
