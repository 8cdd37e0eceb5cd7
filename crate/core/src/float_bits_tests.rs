//! exp, tanh and sigmoid against PyTorch's float32 results, bit for bit
//! (tests/fixtures/float_bits.json, written by real torch 2.15 on an
//! AVX512 CPU: tests/fixtures/pyfixtures/float_bits.py). Tensors of 1, 16
//! and 40 elements: sigmoid's vector loop takes whole blocks of 32, so a
//! 40-element tensor runs both of its loops.
//!
//! sigmoid matches in all but one input. PyTorch's exp and tanh (MKL's vector math on x86
//! builds) are not always correctly rounded, and hookgrad's are: the test
//! counts the differences, which must stay within one unit in the last
//! place and below the rates the fixture shows (about 1 in 70 for exp, 1
//! in 800 for tanh), so a regression to `f32::exp` (1 in 10) fails.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::Value as Json;

use crate::tensor::Tensor;

fn fixture() -> Json {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/float_bits.json"
    );
    let text = std::fs::read_to_string(path).expect("tests/fixtures/float_bits.json");
    serde_json::from_str(&text).expect("float_bits.json parses")
}

fn floats(v: &Json) -> Vec<f32> {
    v.as_array()
        .expect("a list of bit patterns")
        .iter()
        .map(|b| f32::from_bits(b.as_u64().expect("u32") as u32))
        .collect()
}

/// (results that differ from PyTorch's, the largest difference in ulps)
/// over every size, running the op on chunks of each size as PyTorch did.
fn compare(name: &str, op: fn(&Tensor) -> crate::Result<Tensor>) -> (usize, u32) {
    let all = fixture();
    let xs = floats(&all["inputs"]);
    let by_size = all["ops"][name].as_object().expect("sizes");
    assert_eq!(by_size.len(), 3, "sizes 1, 16 and 40");
    let (mut differ, mut worst) = (0, 0);
    for (size, want) in by_size {
        let n: usize = size.parse().expect("a size");
        let want = floats(want);
        assert_eq!(want.len(), xs.len());
        for (chunk, want) in xs.chunks(n).zip(want.chunks(n)) {
            let x = if n == 1 {
                Tensor::scalar(chunk[0])
            } else {
                Tensor::from_vec(&[n], chunk.to_vec(), &Default::default()).expect("a vector")
            };
            let got = op(&x).expect("the op").to_array().expect("values");
            for (g, w) in got.as_slice().iter().zip(want) {
                if g.to_bits() != w.to_bits() {
                    differ += 1;
                    worst = worst.max(g.to_bits().abs_diff(w.to_bits()));
                }
            }
        }
    }
    (differ, worst)
}

#[test]
fn sigmoid_is_pytorchs_in_both_loops() {
    // 2 of 4,800 differ (one input, in two sizes): there `1 / (1 + e)` lies
    // within a hair of the midpoint between two floats, and torch's scalar
    // loop lands on the other side of it than float32 steps do.
    let (differ, worst) = compare("sigmoid", Tensor::sigmoid);
    assert!(
        differ <= 4 && worst <= 1,
        "{differ} differ, worst {worst} ulp"
    );
}

#[test]
fn exp_differs_only_where_pytorch_is_not_correctly_rounded() {
    let (differ, worst) = compare("exp", Tensor::exp);
    // 4,800 results: the fixture has 66 where torch is not correctly rounded.
    assert!(
        differ <= 80 && worst <= 1,
        "{differ} differ, worst {worst} ulp"
    );
}

#[test]
fn tanh_differs_only_where_pytorch_is_not_correctly_rounded() {
    let (differ, worst) = compare("tanh", Tensor::tanh);
    assert!(
        differ <= 8 && worst <= 1,
        "{differ} differ, worst {worst} ulp"
    );
}

/// sum and mean, whole and over each dim, bit for bit: every case of the
/// fixture (1-D sizes 1 to 20,000, 2-D and 3-D shapes over each dim).
#[test]
fn sums_and_means_are_pytorchs_to_the_bit() {
    let all = fixture();
    let xs = floats(&all["inputs"]);
    let cases = all["sums"].as_array().expect("sum cases");
    assert!(cases.len() > 150, "the fixture's sum cases");
    for case in cases {
        let shape: Vec<usize> = case["shape"]
            .as_array()
            .expect("shape")
            .iter()
            .map(|d| d.as_u64().expect("a size") as usize)
            .collect();
        let n: usize = shape.iter().product();
        let values: Vec<f32> = xs.iter().copied().cycle().take(n).collect();
        let t = Tensor::from_vec(&shape, values, &Default::default()).expect("a tensor");
        let mean = case["op"] == "mean";
        let got = match case["dim"].as_i64() {
            None if mean => t.mean(),
            None => t.sum(),
            Some(d) if mean => t.mean_dim(d, false),
            Some(d) => t.sum_dim(d, false),
        }
        .expect("the reduction")
        .to_array()
        .expect("values");
        let want = floats(&case["out"]);
        let got: Vec<u32> = got.as_slice().iter().map(|v| v.to_bits()).collect();
        let want: Vec<u32> = want.iter().map(|v| v.to_bits()).collect();
        assert_eq!(
            got, want,
            "{} of {shape:?} over {}",
            case["op"], case["dim"]
        );
    }
}
