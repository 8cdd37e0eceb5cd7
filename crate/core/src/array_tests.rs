//! `Array` against ndarray (a dev-dependency only for these checks): the
//! same values, bit for bit, on odd shapes — empty, 0-d, length-1 dims,
//! runs past the eight partial sums.

use super::*;
use ndarray::{ArrayD, Axis, IxDyn};

fn values(n: usize, seed: &mut u64) -> Vec<f32> {
    (0..n)
        .map(|_| {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            (*seed % 20_000) as f32 / 7.0 - 1400.0
        })
        .collect()
}

const SHAPES: [&[usize]; 16] = [
    &[],
    &[0],
    &[1],
    &[7],
    &[8],
    &[19],
    &[0, 3],
    &[3, 0],
    &[9, 17],
    &[1, 12],
    &[12, 1],
    &[5, 12, 1],
    &[3, 10, 9],
    &[2, 1, 11],
    &[2, 3, 9, 10],
    &[8, 1, 3, 9],
];

fn both(shape: &[usize], seed: &mut u64) -> (Array, ArrayD<f32>) {
    let v = values(shape.iter().product(), seed);
    let ours = Array::from_shape_vec(shape, v.clone());
    let theirs = ArrayD::from_shape_vec(IxDyn(shape), v);
    match (ours, theirs) {
        (Ok(a), Ok(b)) => (a, b),
        _ => unreachable!("shape {shape:?}"),
    }
}

fn bits(it: impl Iterator<Item = f32>) -> Vec<u32> {
    it.map(f32::to_bits).collect()
}

/// Same shape, same values in row-major order, bit for bit.
fn same(ours: &Array, theirs: &ArrayD<f32>, what: &str) {
    assert_eq!(ours.shape(), theirs.shape(), "{what}");
    assert_eq!(
        bits(ours.iter().copied()),
        bits(theirs.iter().copied()),
        "{what}"
    );
}

#[test]
fn a_negative_zero_alone_sums_to_positive_zero() {
    // PyTorch's sum adds into a zero-filled output, as the cascade does.
    let z = Array::scalar(-0.0);
    assert_eq!(z.sum().to_bits(), 0.0f32.to_bits());
    let z = Array::from_elem(&[3], -0.0);
    assert_eq!(z.sum().to_bits(), 0.0f32.to_bits());
}

#[test]
fn broadcasts_are_ndarrays() {
    let mut seed = 7u64;
    let targets: [&[usize]; 6] = [&[], &[4], &[3, 4], &[2, 3, 4], &[0, 4], &[2, 1, 4]];
    let froms: [&[usize]; 9] = [
        &[],
        &[1],
        &[4],
        &[3, 1],
        &[1, 4],
        &[3, 4],
        &[2, 1, 1],
        &[0],
        &[5],
    ];
    for to in targets {
        for from in froms {
            let (a, b) = both(from, &mut seed);
            let ours = a.broadcast(to);
            let theirs = b.broadcast(IxDyn(to)).map(|v| v.to_owned());
            assert_eq!(ours.is_some(), theirs.is_some(), "{from:?} to {to:?}");
            if let (Some(o), Some(t)) = (ours, theirs) {
                same(&o, &t, &format!("{from:?} to {to:?}"));
            }
            // Elementwise with broadcasting against a second operand
            // (`ops::arith::broadcast_zip`, through `Array::broadcast`).
            let (c, d) = both(to, &mut seed);
            if let Ok(shape) = crate::shape::broadcast_shapes(from, to) {
                let ours = crate::ops::arith::broadcast_zip(&a, &c, |x, y| x * 3.0 - y).ok();
                let ab = b.broadcast(IxDyn(&shape));
                let db = d.broadcast(IxDyn(&shape));
                if let (Some(ab), Some(db)) = (ab, db) {
                    let theirs = ndarray::Zip::from(&ab)
                        .and(&db)
                        .map_collect(|&x, &y| x * 3.0 - y);
                    match ours {
                        Some(o) => same(&o, &theirs, &format!("zip {from:?} {to:?}")),
                        None => unreachable!("zip {from:?} {to:?}"),
                    }
                }
            }
        }
    }
}

#[test]
fn axis_moves_are_ndarrays() {
    let mut seed = 99u64;
    for shape in SHAPES {
        let (a, b) = both(shape, &mut seed);
        let n = shape.len();
        for d0 in 0..n {
            for d1 in 0..n {
                let mut v = b.view();
                v.swap_axes(d0, d1);
                same(
                    &a.swapped(d0, d1),
                    &v.as_standard_layout().to_owned(),
                    "swap",
                );
            }
            for i in 0..shape[d0] {
                let Some(ours) = a.index_axis(d0, i) else {
                    unreachable!("index_axis {shape:?} {d0} {i}")
                };
                same(&ours, &b.index_axis(Axis(d0), i).to_owned(), "index_axis");
            }
            assert!(a.index_axis(d0, shape[d0]).is_none());
            for start in 0..=shape[d0] {
                for len in 0..=shape[d0] - start {
                    let Some(ours) = a.slice_axis(d0, start, len) else {
                        unreachable!("slice_axis {shape:?} {d0} {start} {len}")
                    };
                    let s = ndarray::Slice::from(start..start + len);
                    same(&ours, &b.slice_axis(Axis(d0), s).to_owned(), "slice_axis");
                }
            }
            assert!(a.slice_axis(d0, shape[d0], 1).is_none());
        }
        for axis in 0..=n {
            same(
                &a.clone().insert_axis(axis),
                &b.clone().insert_axis(Axis(axis)),
                "insert_axis",
            );
        }
        if n == 3 {
            let p = a.permuted(&[2, 0, 1]);
            let t = b.clone().permuted_axes(IxDyn(&[2, 0, 1]));
            same(&p, &t.as_standard_layout().to_owned(), "permuted");
        }
    }
}

#[test]
fn construction_and_shape_errors() {
    assert_eq!(
        Array::from_shape_vec(&[2, 3], vec![0.0; 5]).err(),
        Some(ShapeError)
    );
    assert_eq!(
        Array::from_shape_vec(&[2, 3], vec![0.0; 7]).err(),
        Some(ShapeError)
    );
    assert_eq!(
        Array::from_shape_vec(&[usize::MAX, 3], Vec::new()).err(),
        Some(ShapeError)
    );
    assert_eq!(
        ShapeError.to_string(),
        ndarray::ShapeError::from_kind(ndarray::ErrorKind::IncompatibleShape).to_string()
    );
    let s = Array::scalar(2.5);
    assert_eq!((s.ndim(), s.len(), s.first()), (0, 1, Some(&2.5)));
    let e = Array::zeros(&[0, 3]);
    assert_eq!(
        (e.shape(), e.len(), e.is_empty()),
        (&[0usize, 3][..], 0, true)
    );
    assert_eq!(Array::ones(&[2]).as_slice(), &[1.0, 1.0]);
    let r = Array::from_elem(&[2, 3], 4.0).into_shape(&[3, 2]);
    assert_eq!(r.map(|r| r.shape().to_vec()).ok(), Some(vec![3, 2]));
    assert!(Array::zeros(&[6]).into_shape(&[4]).is_err());
    same(
        &Array::default(),
        &<ArrayD<f32> as Default>::default(),
        "default",
    );
}

/// `max_axis` along every axis: the bits of ndarray's `map_axis` on its
/// standard layout. (Sums follow PyTorch's order, not ndarray's:
/// crate/core/src/float_bits_tests.rs checks them against real torch.)
#[test]
fn axis_maxima_are_ndarrays_bit_for_bit() {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    for shape in SHAPES {
        let (a, b) = both(shape, &mut seed);
        for axis in 0..shape.len() {
            let tm = b.map_axis(Axis(axis), |lane| {
                lane.iter().copied().fold(f32::NEG_INFINITY, f32::max)
            });
            same(&a.max_axis(axis), &tm, &format!("max {shape:?} {axis}"));
        }
    }
}

#[test]
fn reductions_over_an_empty_axis_give_their_identities_without_a_fault() {
    let _ = crate::error::take_fault();
    let a = Array::zeros(&[2, 0, 3]);
    let s = a.sum_axis(1);
    assert_eq!(s.shape(), &[2, 3]);
    assert_eq!(s.as_slice(), &[0.0; 6]);
    let m = a.max_axis(1);
    assert_eq!(m.as_slice(), &[f32::NEG_INFINITY; 6]);
    assert!(crate::error::take_fault().is_none(), "no fault recorded");
}

#[test]
fn out_of_range_axes_are_recorded_faults_not_silent_copies() {
    let _ = crate::error::take_fault();
    let a = Array::zeros(&[2, 3]);
    let _ = a.swapped(0, 2);
    assert!(
        crate::error::take_fault().is_some(),
        "a transpose past the last axis"
    );
    let _ = a.permuted(&[0, 0]);
    assert!(crate::error::take_fault().is_some(), "not a permutation");
    assert_eq!(
        Array::scalar(3.0).swapped(0, 0).as_slice(),
        &[3.0],
        "a 0-d t()"
    );
    assert!(crate::error::take_fault().is_none());
}
