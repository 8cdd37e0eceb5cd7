//! A pass-through root (`add`, `sub`) on the deferred rows: the implicit
//! `ones` tensor reaches the leaves itself, shared, as in the engine, so
//! AccumulateGrad copies it (PyTorch: `a.grad._version` is 1 after
//! `(a + b).backward()`), and sums with it make new tensors.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::{set_enabled, Handle, Op, Other};
use crate::testing::leaf;

/// `build(x, y)` from two 0-d leaves, backward; each leaf's `.grad` as
/// (value bits, version, id), and whether the root was still deferred
/// after backward (the path under test).
/// A program over two leaves, giving its root.
type Build = fn(&Handle, &Handle) -> Handle;

/// Each case runs eagerly (never on rows) and deferred (on rows), with the
/// same `.grad` bits, versions and ids.
fn same_on_rows(cases: &[(&str, Build)]) {
    for &(name, build) in cases {
        let (eager, on_rows) = run(false, build);
        assert!(!on_rows);
        let (deferred, on_rows) = run(true, build);
        assert!(on_rows, "{name}: not run on rows");
        assert_eq!(deferred, eager, "{name}");
    }
}

fn run(defer: bool, build: Build) -> (Vec<(u32, u32, u32)>, bool) {
    std::thread::spawn(move || {
        set_enabled(defer);
        let (x, y) = (leaf(&[0.5], &[]), leaf(&[-1.25], &[]));
        let (hx, hy) = (Handle::Tensor(x.clone()), Handle::Tensor(y.clone()));
        let root = build(&hx, &hy);
        root.backward(false).unwrap();
        let deferred = matches!(&root, Handle::Lazy(l) if l.is_deferred());
        let g = [&x, &y].map(|t| {
            t.grad_raw()
                .map(|g| (g.item().unwrap().to_bits(), g.version(), g.id().0))
                .unwrap_or_default()
        });
        (g.to_vec(), deferred)
    })
    .join()
    .unwrap()
}

fn op(a: &Handle, op: Op, b: Other<'_>) -> Handle {
    a.op(op, b).unwrap()
}

#[test]
fn add_and_sub_roots_backward_on_rows_as_the_engine_does() {
    let cases: [(&str, Build); 7] = [
        ("x + y", |x, y| op(x, Op::Add, Other::Handle(y))),
        ("x - y", |x, y| op(x, Op::Sub, Other::Handle(y))),
        ("x + x", |x, _| op(x, Op::Add, Other::Handle(x))),
        ("(x + y) + x", |x, y| {
            op(&op(x, Op::Add, Other::Handle(y)), Op::Add, Other::Handle(x))
        }),
        ("2x + 3x", |x, _| {
            let a = op(x, Op::Mul, Other::Number(2.0));
            op(
                &a,
                Op::Add,
                Other::Handle(&op(x, Op::Mul, Other::Number(3.0))),
            )
        }),
        ("tanh(x) - x", |x, _| {
            op(&op(x, Op::Tanh, Other::None), Op::Sub, Other::Handle(x))
        }),
        ("(xy + y) + 1", |x, y| {
            let a = op(&op(x, Op::Mul, Other::Handle(y)), Op::Add, Other::Handle(y));
            op(&a, Op::Add, Other::Number(1.0))
        }),
    ];
    same_on_rows(&cases);
    // PyTorch 2.15: `(a + b).backward()` leaves a copy in each `.grad`.
    assert_eq!(
        run(true, cases[0].1)
            .0
            .iter()
            .map(|g| g.1)
            .collect::<Vec<_>>(),
        [1, 1]
    );
}

/// `pow` with a 0-d tensor exponent is a row like every other op (issue
/// 31's cliff: it made the whole graph eager), and its backward on rows
/// gives the engine's `.grad` bits, versions and ids, exponent and base.
#[test]
fn pow_by_a_tensor_stays_on_rows() {
    let cases: [(&str, Build); 4] = [
        ("x ** y", |x, y| op(x, Op::Pow, Other::Handle(y))),
        ("(x * 3) ** (y + 2)", |x, y| {
            let e = op(y, Op::Add, Other::Number(2.0));
            op(
                &op(x, Op::Mul, Other::Number(3.0)),
                Op::Pow,
                Other::Handle(&e),
            )
        }),
        ("x ** x + y", |x, y| {
            op(&op(x, Op::Pow, Other::Handle(x)), Op::Add, Other::Handle(y))
        }),
        ("y ** 0-d constant", |_, y| {
            let c = Handle::Tensor(crate::testing::constant(&[2.0], &[]));
            op(y, Op::Pow, Other::Handle(&c))
        }),
    ];
    same_on_rows(&cases);
}
