//! PyTorch's float32 CPU math where hookgrad reproduces it bit for bit:
//! SLEEF's `expf` and `logf` (the u10 versions with FMA, what
//! `Vectorized<float>::exp` / `log` call on x86-64) and the AVX512 order of
//! `vec::reduce_all`'s sum. The
//! softmax kernels (aten/src/ATen/native/cpu/SoftMaxKernel.cpp) use both;
//! a plain `f32::exp` differs from SLEEF's in about one result in ten.

/// Vector width of the PyTorch build the fixtures come from (AVX512: 16
/// floats; an AVX2 build sums 8 lanes and can differ in the last bit).
pub(crate) const LANES: usize = 16;

/// `a * b + c` rounded once, as the FMA SLEEF uses: the product of two
/// floats is exact in f64 and the sum is rounded to f32 from there.
#[inline]
fn fma(a: f32, b: f32, c: f32) -> f32 {
    (a as f64 * b as f64 + c as f64) as f32
}

/// `2^e` for `e` in [-126, 127].
#[inline]
fn pow2(e: i32) -> f32 {
    f32::from_bits(((e + 127).clamp(1, 254) as u32) << 23)
}

/// SLEEF's `xexpf` (sleefsimdsp.c): `d = q·ln2 + s`, a degree-6
/// polynomial in `s`, scaled by `2^q` in two steps (no overflow of `2^q`).
pub(crate) fn sleef_expf(d: f32) -> f32 {
    if d < -104.0 {
        return 0.0;
    }
    if d > 100.0 {
        return f32::INFINITY;
    }
    let q = (d * std::f32::consts::LOG2_E).round_ties_even();
    let s = fma(q, -0.693_145_75, d);
    let s = fma(q, -1.428_606_8e-6, s);
    let mut u = 1.985_276_2e-4_f32;
    for k in [
        1.393_043_6e-3,
        8.333_361e-3,
        4.166_648_5e-2,
        0.166_666_67,
        0.5,
    ] {
        u = fma(u, s, k);
    }
    let u = 1.0 + fma(s * s, u, s);
    // NaN: `q as i32` is 0 and `u` stays NaN.
    let e = q as i32;
    u * pow2(e >> 1) * pow2(e - (e >> 1))
}

/// SLEEF's `xlogf_u1` as built for AVX512 (`getexp` / `getmant`), what
/// `Vectorized<float>::log` calls: `log(m · 2^e) = e·ln2 + 2·atanh((m-1)/(m+1))`
/// in double-float arithmetic (a value and its rounding error). Inputs
/// outside the positive normal floats take Rust's `ln` (same special values).
pub(crate) fn sleef_logf(d: f32) -> f32 {
    if !(d.is_finite() && d >= f32::MIN_POSITIVE) {
        return d.ln();
    }
    // `getexp(d / 0.75)` (128 when that overflows) and `getmant(d)` in
    // [0.75, 1.5), each from its own bits as the instructions do.
    let scaled = d * (1.0f32 / 0.75);
    let e = if scaled.is_infinite() {
        128.0
    } else {
        (((scaled.to_bits() >> 23) & 0xff) as i32 - 127) as f32
    };
    let m = f32::from_bits((d.to_bits() & 0x007f_ffff) | 0x3f80_0000);
    let m = if m >= 1.5 { m * 0.5 } else { m };
    // e·ln2, with ln2 split in two floats.
    let (lx, ly) = (std::f32::consts::LN_2, -1.904_654_3e-9_f32);
    let sx = lx * e;
    let sy = fma(ly, e, fma(lx, e, -sx));
    // (m - 1) / (m + 1) as a double-float.
    let two_sum = |x: f32, y: f32| {
        let s = x + y;
        let v = s - x;
        (s, (x - (s - v)) + (y - v))
    };
    let (nx, ny) = two_sum(-1.0, m);
    let (dx, dy) = two_sum(1.0, m);
    let t = 1.0 / dx;
    let xx = nx * t;
    let u = fma(t, nx, -xx);
    let v = fma(-dy, t, fma(-dx, t, 1.0));
    let xy = fma(xx, v, fma(ny, t, u));
    let x2 = xx * xx;
    let p = fma(fma(0.302_729_5, x2, 0.399_610_8), x2, 0.666_669_5);
    // s + 2x, then + x³·p.
    let (ax, ay) = (xx * 2.0, xy * 2.0);
    let s2 = sx + ax;
    let s2y = (((sx - s2) + ax) + sy) + ay;
    let w = (x2 * xx) * p;
    let s3 = s2 + w;
    s3 + (((s2 - s3) + w) + s2y)
}

/// glibc's `expf` (PyTorch's scalar tails call `std::exp`): correctly
/// rounded, as the f64 result rounded to f32 is.
#[inline]
pub(crate) fn scalar_expf(x: f32) -> f32 {
    (x as f64).exp() as f32
}

/// tanh correctly rounded (through f64), which PyTorch's kernel gives in
/// all but about one result in a thousand.
#[inline]
pub(crate) fn scalar_tanhf(x: f32) -> f32 {
    (x as f64).tanh() as f32
}

/// `vec::reduce_all(+)` over `xs`: in order below `LANES` values; else a
/// sum per lane (the tail added to the first lanes), then the lanes folded
/// pairwise 8, 4, 2 and 1 apart (`vec_reduce_all`'s shuffles).
pub(crate) fn vec_sum(xs: &[f32]) -> f32 {
    if xs.len() < LANES {
        return xs
            .iter()
            .skip(1)
            .fold(xs.first().copied().unwrap_or(0.0), |a, &x| a + x);
    }
    let mut acc = [0.0f32; LANES];
    acc.copy_from_slice(&xs[..LANES]);
    for chunk in xs[LANES..].chunks(LANES) {
        for (a, x) in acc.iter_mut().zip(chunk) {
            *a += x;
        }
    }
    let mut step = LANES / 2;
    while step > 0 {
        let prev = acc;
        for (i, a) in acc.iter_mut().enumerate() {
            *a = prev[i] + prev[i ^ step];
        }
        step /= 2;
    }
    acc[0]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sleef_expf_values() {
        // torch 2.15 (AVX512): softmax([0, -4.6]) exposes exp(-4.6).
        assert_eq!(sleef_expf(-4.6), 0.010_051_837);
        assert_eq!(sleef_expf(0.0), 1.0);
        assert_eq!(sleef_expf(-200.0), 0.0);
        assert!(sleef_expf(f32::NAN).is_nan());
        assert_eq!(sleef_expf(f32::INFINITY), f32::INFINITY);
        let rel = |x: f32| (sleef_expf(x) as f64 / (x as f64).exp() - 1.0).abs();
        for x in [-87.5f32, -20.25, -1.0, 0.3, 5.5, 88.0] {
            assert!(rel(x) < 3e-7, "{x}");
        }
    }

    #[test]
    fn sleef_logf_values() {
        assert_eq!(sleef_logf(1.0), 0.0);
        assert!(sleef_logf(-1.0).is_nan() && sleef_logf(0.0) == f32::NEG_INFINITY);
        assert_eq!(sleef_logf(f32::INFINITY), f32::INFINITY);
        for x in [1.5f32, 2.0, 3.25, 17.0, 1e6, 3.0e38] {
            let rel = (sleef_logf(x) as f64 / (x as f64).ln() - 1.0).abs();
            assert!(rel < 3e-7, "{x}");
        }
    }

    #[test]
    fn vec_sum_orders() {
        assert_eq!(vec_sum(&[1.0, 2.0, 3.0]), 6.0);
        let xs: Vec<f32> = (0..37).map(|i| i as f32).collect();
        assert_eq!(vec_sum(&xs), 666.0);
        assert_eq!(vec_sum(&[]), 0.0);
    }
}
