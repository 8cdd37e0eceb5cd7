//! Deterministic random tensors. hookgrad's generator is SplitMix64 +
//! Box–Muller: the same seed gives the same values on every machine, but
//! not the values `torch.randn` gives for that seed (a documented difference).

use crate::error::{Error, Result};
use crate::tensor::Array;

pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// The cosine in f32: the value becomes an f32 anyway, and f64's `cos`
    /// (only used here) brought ~3 KB of argument reduction into the wasm.
    pub fn normal(&mut self) -> f64 {
        let u1 = self.next_f64().max(f64::MIN_POSITIVE);
        let u2 = self.next_f64();
        let angle = (2.0 * std::f64::consts::PI * u2) as f32;
        (-2.0 * u1.ln()).sqrt() * f64::from(angle.cos())
    }
}

/// An array of `shape` whose values `next` gives in row-major order (what
/// `Array::from_shape_fn` does; issue 10, W5: its generic index walk was
/// ~1 KB gzip of the wasm).
fn filled(shape: &[usize], mut next: impl FnMut() -> f32) -> Result<Array> {
    let n = crate::shape::checked_numel(shape)?;
    let values: Vec<f32> = (0..n).map(|_| next()).collect();
    Array::from_shape_vec(shape, values).map_err(|e| {
        Error::internal(format!(
            "random values of shape {}: {e}",
            crate::shape::fmt_shape(shape)
        ))
    })
}

pub fn randn(shape: &[usize], seed: u64) -> Result<Array> {
    let mut rng = SplitMix64::new(seed);
    filled(shape, || rng.normal() as f32)
}

pub fn uniform(shape: &[usize], low: f32, high: f32, rng: &mut SplitMix64) -> Result<Array> {
    filled(shape, || low + (high - low) * rng.next_f64() as f32)
}
