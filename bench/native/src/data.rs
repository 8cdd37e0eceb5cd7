//! The same generator as bench/lib/data.mjs, bit for bit: mulberry32 on u32,
//! mapped to [-1, 1) through f64, rounded to f32 (then scaled in f32, as
//! `Math.fround(r() * scale)` does through f64 — identical for these scales).

pub fn uniform(seed: u32, n: usize, scale: f64) -> Vec<f32> {
    let mut a = seed;
    (0..n)
        .map(|_| {
            a = a.wrapping_add(0x6d2b79f5);
            let mut t = a;
            t = (t ^ (t >> 15)).wrapping_mul(t | 1);
            t ^= t.wrapping_add((t ^ (t >> 7)).wrapping_mul(t | 61));
            let u = t ^ (t >> 14);
            let r = ((u as f64 / 4294967296.0) * 2.0 - 1.0) as f32;
            (r as f64 * scale) as f32
        })
        .collect()
}

pub struct Layer {
    pub nin: usize,
    pub nout: usize,
    pub params: Vec<f32>,
}

pub const W1_SAMPLES: usize = 16;
pub fn w1() -> (Vec<Layer>, Vec<f32>, Vec<f32>) {
    let dims = [2usize, 16, 16, 1];
    let layers = (0..3)
        .map(|l| Layer {
            nin: dims[l],
            nout: dims[l + 1],
            params: uniform(100 + l as u32, dims[l + 1] * (dims[l] + 1), 1.0),
        })
        .collect();
    (
        layers,
        uniform(1, W1_SAMPLES * 2, 1.0),
        uniform(2, W1_SAMPLES, 1.0),
    )
}

pub const B: usize = 64;
pub const NIN: usize = 784;
pub const NHID: usize = 256;
pub const NOUT: usize = 10;
pub struct W2 {
    pub x: Vec<f32>,
    pub w1: Vec<f32>,
    pub b1: Vec<f32>,
    pub w2: Vec<f32>,
    pub b2: Vec<f32>,
    pub y: Vec<f32>,
}
pub fn w2() -> W2 {
    W2 {
        x: uniform(10, B * NIN, 1.0),
        w1: uniform(11, NIN * NHID, 1.0 / (NIN as f64).sqrt()),
        b1: uniform(12, NHID, 0.1),
        w2: uniform(13, NHID * NOUT, 1.0 / (NHID as f64).sqrt()),
        b2: uniform(14, NOUT, 0.1),
        y: uniform(15, B * NOUT, 1.0),
    }
}

pub const W3_N: usize = 16;
pub const W3_OPS: usize = 2000;
pub const W3_MUL: f32 = 1.0005;
pub const W3_ADD: f32 = 0.001;
pub fn w3() -> Vec<f32> {
    uniform(20, W3_N, 1.0)
}

pub const W4_N: usize = 4;
pub const W4_ROUNDS: usize = 333;
pub fn w4() -> (Vec<f32>, Vec<f32>) {
    (uniform(30, W4_N, 1.0), uniform(31, W4_N, 1.0))
}
