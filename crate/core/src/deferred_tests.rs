//! Deferred scalar ops (deferred.rs) must be indistinguishable from the
//! eager ops: each program runs twice, each time on a fresh thread (fresh
//! id counters), with deferral on and off, and everything it can observe is
//! written down and compared: values, ids, versions, grad_fns with their
//! ids, sequence numbers and edges, `.grad` (value bits, version, id),
//! errors and their texts.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fmt::Write;

use crate::deferred::{self, Handle, Op, Other};
use crate::tensor::Tensor;
use crate::testing::{constant, leaf};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn describe(out: &mut String, t: &Tensor) {
    let v = t.scalar_value().map(f32::to_bits);
    write!(
        out,
        "t{} v{:?} ver{} rg{} leaf{}",
        t.id().0,
        v,
        t.version(),
        t.requires_grad(),
        t.is_leaf()
    )
    .unwrap();
    if let Some(f) = t.grad_fn() {
        write!(out, " fn{}:{}#{}", f.id.0, f.name, f.sequence_nr).unwrap();
        for e in f.next.iter() {
            match e {
                Some(e) => write!(out, " ->{}.{}", e.node.id.0, e.input_nr).unwrap(),
                None => out.push_str(" ->none"),
            }
        }
    }
    if let Some(g) = t.grad_raw() {
        write!(
            out,
            " grad(t{} {:?} ver{})",
            g.id().0,
            g.scalar_value().map(f32::to_bits),
            g.version()
        )
        .unwrap();
    }
    out.push('\n');
}

/// A random program of 0-d ops on leaves, constants, numbers and earlier
/// results; with some handles dropped, some materialized early, inputs
/// changed in place, one or two backward passes.
fn program(seed: u64) -> String {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut out = String::new();
    let leaves: Vec<Tensor> = (0..3)
        .map(|i| leaf(&[0.3 + i as f32 * 0.41], &[]))
        .collect();
    let consts: Vec<Tensor> = (0..2).map(|i| constant(&[1.7 - i as f32], &[])).collect();
    let mut pool: Vec<Option<Handle>> = leaves
        .iter()
        .chain(&consts)
        .map(|t| Some(Handle::Tensor(t.clone())))
        .collect();
    let steps = 4 + rng.below(14);
    for _ in 0..steps {
        let live: Vec<usize> = (0..pool.len()).filter(|&i| pool[i].is_some()).collect();
        let a = live[rng.below(live.len())];
        let op = Op::ALL[rng.below(Op::ALL.len())];
        let b = live[rng.below(live.len())];
        let number = 0.5 + rng.below(5) as f32 * 0.75;
        // Pow's exponents: integers, fractions, zero, negatives; now and
        // then a tensor (the eager `PowBackward1`).
        let exponent = [2.0, 3.0, 0.5, -1.0, 0.0, 1.5][rng.below(6)];
        let r = {
            let ha = pool[a].as_ref().unwrap();
            let other = match (op, rng.below(3)) {
                (op, _) if op.is_unary() => Other::None,
                (Op::Pow, 0) => Other::Handle(pool[b].as_ref().unwrap()),
                (Op::Pow, _) => Other::Number(exponent),
                (_, 0) => Other::Number(number),
                _ => Other::Handle(pool[b].as_ref().unwrap()),
            };
            ha.op(op, other)
        };
        match r {
            Ok(h) => {
                writeln!(
                    out,
                    "{op:?} = {:?}",
                    h.item().map(f32::to_bits).map_err(|e| e.to_string())
                )
                .unwrap();
                pool.push(Some(h));
            }
            Err(e) => writeln!(out, "{op:?} error {e}").unwrap(),
        }
        match rng.below(10) {
            // Drop a result's handle (its node lives on in its consumers).
            0 => {
                let i = 5 + rng.below(pool.len() - 5);
                pool[i] = None;
            }
            // Look at one (materializes everything deferred).
            1 => {
                if let Some(h) = pool[rng.below(pool.len())].as_ref() {
                    describe(&mut out, &h.tensor().unwrap());
                }
            }
            // Change an input in place, as an optimizer step would.
            2 => {
                let t = if rng.below(2) == 0 {
                    &leaves[rng.below(3)]
                } else {
                    &consts[rng.below(2)]
                };
                crate::context::no_grad(|| t.add_(0.25)).unwrap();
            }
            _ => {}
        }
    }
    let root = pool.iter().rev().flatten().next().unwrap();
    let passes = 1 + rng.below(2);
    for p in 0..passes {
        let retain = rng.below(2) == 0;
        let r = root.backward(retain);
        writeln!(
            out,
            "backward {p} retain {retain}: {:?}",
            r.map_err(|e| e.to_string())
        )
        .unwrap();
        if rng.below(3) == 0 {
            for l in &leaves {
                let _ = l.set_grad(None);
            }
        }
    }
    for h in pool.iter().flatten() {
        describe(&mut out, &h.tensor().unwrap());
    }
    out
}

fn run_on_thread(seed: u64, defer: bool) -> String {
    std::thread::spawn(move || {
        deferred::set_enabled(defer);
        program(seed)
    })
    .join()
    .unwrap()
}

#[test]
fn deferred_ops_are_indistinguishable_from_eager_ones() {
    for seed in 1..=400 {
        let eager = run_on_thread(seed, false);
        let deferred = run_on_thread(seed, true);
        assert_eq!(deferred, eager, "seed {seed}");
    }
}

#[test]
fn a_scalar_mlp_step_backwards_on_entries() {
    // Deferral really happens (and the backward runs on entries): the
    // result is still deferred after backward.
    std::thread::spawn(|| {
        let w = leaf(&[0.5], &[]);
        let b = leaf(&[-0.25], &[]);
        let x = Handle::Tensor(w.clone());
        let y = x.op(Op::Mul, Other::Number(2.0)).unwrap();
        let z = y
            .op(Op::Add, Other::Handle(&Handle::Tensor(b.clone())))
            .unwrap();
        let out = z
            .op(Op::Tanh, Other::None)
            .unwrap()
            .op(Op::Mul, Other::Number(3.0))
            .unwrap();
        assert!(matches!(&out, Handle::Lazy(l) if l.is_deferred()));
        assert_eq!(deferred::live(), 4);
        out.backward(false).unwrap();
        assert!(matches!(&out, Handle::Lazy(l) if l.is_deferred()));
        let t = (0.5f32 * 2.0 - 0.25).tanh();
        assert_eq!(
            w.grad_raw().unwrap().item().unwrap(),
            3.0 * (1.0 - t * t) * 2.0
        );
        assert_eq!(b.grad_raw().unwrap().item().unwrap(), 3.0 * (1.0 - t * t));
        // A second backward: the graph was freed (TanhBackward0 saved its result).
        let e = out.backward(false).unwrap_err().to_string();
        assert!(
            e.contains("Trying to backward through the graph a second time"),
            "{e}"
        );
        drop((out, z, y));
        assert_eq!(deferred::live(), 0);
    })
    .join()
    .unwrap();
}

#[test]
fn rows_are_reused_and_a_long_chain_is_freed_without_recursion() {
    std::thread::spawn(|| {
        let w = leaf(&[0.5], &[]);
        let x = Handle::Tensor(w.clone());
        let kept = x.op(Op::Mul, Other::Number(3.0)).unwrap();
        // 100,001 entries, each held only by the next: dropping the last
        // frees them all (a recursive drop would overflow this thread's
        // 2 MiB stack).
        let mut h = x.op(Op::Add, Other::Number(1.0)).unwrap();
        for _ in 0..100_000 {
            h = h.op(Op::Add, Other::Number(1.0)).unwrap();
        }
        assert_eq!(deferred::live(), 100_002);
        assert_eq!(h.item().unwrap(), 100_001.5);
        drop(h);
        assert_eq!(deferred::live(), 1);
        // New entries take freed rows; the kept entry is untouched.
        let y = kept.op(Op::Mul, Other::Handle(&kept)).unwrap();
        assert!(matches!(&y, Handle::Lazy(l) if l.is_deferred()));
        assert_eq!(y.item().unwrap(), 2.25);
        y.backward(false).unwrap();
        // d/dw (3w)^2 = 18w at w = 0.5.
        assert_eq!(w.grad_raw().unwrap().item().unwrap(), 9.0);
        let t = kept.tensor().unwrap();
        assert_eq!(t.grad_fn().unwrap().name, "MulBackward0");
        assert_eq!(y.tensor().unwrap().grad_fn().unwrap().name, "MulBackward0");
        drop((y, kept));
        assert_eq!(deferred::live(), 0);
        drop(t);
        // An empty table starts again: a new graph records and runs.
        let z = x.op(Op::Tanh, Other::None).unwrap();
        assert!(matches!(&z, Handle::Lazy(l) if l.is_deferred()));
        assert_eq!(z.item().unwrap(), 0.5f32.tanh());
    })
    .join()
    .unwrap();
}

#[test]
fn each_op_passes_gradients_through_as_its_eager_node_does() {
    // `Op::passes` matches on the op; the engine's number path asks the
    // node's name (`passes_through`): the two must agree for every op.
    let w = Handle::Tensor(leaf(&[0.5], &[]));
    for op in Op::ALL {
        let t = w.eager(op, Other::Number(2.0)).unwrap().tensor().unwrap();
        let node = t.grad_fn().unwrap();
        assert_eq!(
            op.passes(),
            crate::scalar_backward::passes_through(node.name),
            "{op:?} ({})",
            node.name
        );
    }
}

#[test]
fn dropping_every_handle_at_once_frees_every_row() {
    std::thread::spawn(|| {
        let rows = |hs: Vec<Handle>| -> Vec<u32> {
            hs.into_iter()
                .map(|h| match h {
                    Handle::Lazy(l) => l.into_row(),
                    Handle::Tensor(_) => panic!("expected a deferred result"),
                })
                .collect()
        };
        let w = leaf(&[0.5], &[]);
        let c = constant(&[2.0], &[]);
        let x = Handle::Tensor(w.clone());
        // y = tanh(w·2 + w)·c, every result kept as a handle; one of them
        // materialized (a row holding a tensor).
        let a = x.op(Op::Mul, Other::Number(2.0)).unwrap();
        let b = a.op(Op::Add, Other::Handle(&x)).unwrap();
        let t = b.op(Op::Tanh, Other::None).unwrap();
        let y = t
            .op(Op::Mul, Other::Handle(&Handle::Tensor(c.clone())))
            .unwrap();
        let s = y.op(Op::Sub, Other::Number(1.0)).unwrap();
        assert_eq!(deferred::live(), 5);
        s.backward(true).unwrap();
        // ds/dw = c·(1 − tanh²(3w))·3 at w = 0.5, c = 2.
        let th = 1.5f32.tanh();
        assert_eq!(
            w.grad_raw().unwrap().item().unwrap(),
            2.0 * (1.0 - th * th) * 3.0
        );
        assert_eq!(b.tensor().unwrap().grad_fn().unwrap().name, "AddBackward0");
        // Not all of them: row by row, the rest stays usable.
        deferred::drop_rows(&rows(vec![a, t]));
        assert_eq!(s.item().unwrap(), 2.0 * th - 1.0);
        // Deferred rows beside the materialized ones.
        let q = x.op(Op::Mul, Other::Number(5.0)).unwrap();
        let r = q.op(Op::Add, Other::Handle(&q)).unwrap();
        assert_eq!(deferred::live(), 2);
        // All of them at once: every row goes (the live-object counts are
        // process-wide, checked by tests/node/memory.test.mjs).
        deferred::drop_rows(&rows(vec![b, y, s, q, r]));
        assert_eq!(deferred::live(), 0);
        w.set_grad(None).unwrap();
        // The emptied table records again, from its first row.
        let z = Handle::Tensor(w.clone())
            .op(Op::Mul, Other::Number(4.0))
            .unwrap();
        match &z {
            Handle::Lazy(l) => assert_eq!(l.deferred_value().unwrap(), Some(2.0)),
            Handle::Tensor(_) => panic!("expected a deferred result"),
        }
        z.backward(false).unwrap();
        assert_eq!(w.grad_raw().unwrap().item().unwrap(), 4.0);
    })
    .join()
    .unwrap();
}

#[test]
fn rows_freed_at_the_end_are_given_back_in_order() {
    std::thread::spawn(|| {
        let row = |h: Handle| match h {
            Handle::Lazy(l) => l.into_row(),
            Handle::Tensor(_) => panic!("expected a deferred result"),
        };
        let x = Handle::Tensor(leaf(&[0.5], &[]));
        // A row handle made before the loop, kept through it.
        let kept = x.op(Op::Mul, Other::Number(2.0)).unwrap();
        for _ in 0..3 {
            // Each step takes rows 1.. in creation order again, not in the
            // order the free list would give them back.
            let a = kept.op(Op::Add, Other::Handle(&x)).unwrap();
            let b = a.op(Op::Mul, Other::Number(3.0)).unwrap();
            let c = b.op(Op::Tanh, Other::None).unwrap();
            // Two results nothing consumes (freed in creation order, the
            // free list would hand them out last-freed first).
            let d = kept.op(Op::Sub, Other::Number(1.0)).unwrap();
            let e = x.op(Op::Mul, Other::Number(5.0)).unwrap();
            assert_eq!(c.item().unwrap(), 4.5f32.tanh());
            assert_eq!((d.item().unwrap(), e.item().unwrap()), (0.0, 2.5));
            let rows = vec![row(a), row(b), row(c), row(d), row(e)];
            assert_eq!(rows, [1, 2, 3, 4, 5]);
            deferred::drop_rows(&rows);
            assert_eq!(deferred::live(), 1);
        }
        assert_eq!(kept.item().unwrap(), 1.0);
    })
    .join()
    .unwrap();
}

/// A backward pass over rows takes them in row order only while rows are
/// in creation order; a reused row breaks that, and the ready queue decides.
#[test]
fn a_reused_row_below_its_input_runs_after_it() {
    fn run(defer: bool) -> (String, f32, f32) {
        std::thread::spawn(move || {
            deferred::set_enabled(defer);
            let (x, w) = (leaf(&[0.5], &[]), leaf(&[2.0], &[]));
            let (hx, hw) = (Handle::Tensor(x.clone()), Handle::Tensor(w.clone()));
            let t = hx.op(Op::Mul, Other::Number(5.0)).unwrap(); // row 0
            let a = hx.op(Op::Mul, Other::Number(3.0)).unwrap(); // row 1
            drop(t); // row 0 is free, row 1 lives on
            let c = a.op(Op::Mul, Other::Handle(&hw)).unwrap(); // row 0 again
            let d = c.op(Op::Tanh, Other::None).unwrap(); // row 2
            assert_eq!(
                matches!(&c, Handle::Lazy(l) if l.is_deferred()),
                defer,
                "the path under test"
            );
            let r = d.backward(false).map_err(|e| e.to_string());
            let mut out = format!("{r:?}\n");
            for t in [&x, &w] {
                describe(&mut out, t);
            }
            let g = |t: &Tensor| t.grad_raw().unwrap().item().unwrap();
            (out, g(&x), g(&w))
        })
        .join()
        .unwrap()
    }
    let (deferred, dx, dw) = run(true);
    assert_eq!(deferred, run(false).0);
    // d = tanh(3xw) at x = 0.5, w = 2: d' = (1 - tanh(3)^2) (3w, 3x).
    let s = 1.0 - 3f64.tanh().powi(2);
    assert!((f64::from(dx) - 6.0 * s).abs() < 1e-6, "{dx}");
    assert!((f64::from(dw) - 1.5 * s).abs() < 1e-6, "{dw}");
}

/// A tensor input is held once however many entries take it, and let go
/// with the last of them, row by row or all at once.
#[test]
fn a_shared_input_is_held_once_and_let_go_with_its_last_entry() {
    std::thread::spawn(|| {
        let (w, c) = (leaf(&[0.5], &[]), constant(&[2.0], &[]));
        let (hw, hc) = (Handle::Tensor(w.clone()), Handle::Tensor(c.clone()));
        let (w0, c0) = (
            std::rc::Rc::strong_count(&w.0),
            std::rc::Rc::strong_count(&c.0),
        );
        for bulk in [false, true] {
            // Another graph's entry: the table does not empty row by row.
            let other = Handle::Tensor(leaf(&[1.0], &[]));
            let kept = match other.op(Op::Tanh, Other::None).unwrap() {
                Handle::Lazy(l) => l.into_row(),
                Handle::Tensor(_) => panic!("not deferred"),
            };
            let mut rows = vec![kept];
            for _ in 0..10 {
                let h = hw.op(Op::Mul, Other::Handle(&hc)).unwrap();
                rows.push(match h {
                    Handle::Lazy(l) => l.into_row(),
                    Handle::Tensor(_) => panic!("not deferred"),
                });
            }
            // The leaf once, and its AccumulateGrad (which holds it too);
            // the constant weakly.
            assert_eq!(std::rc::Rc::strong_count(&w.0), w0 + 2);
            assert_eq!(std::rc::Rc::strong_count(&c.0), c0);
            assert!(w.meta().unwrap().grad_accumulator.upgrade().is_some());
            if bulk {
                deferred::drop_rows(&rows);
            } else {
                for &r in &rows[1..] {
                    deferred::drop_rows(&[r]);
                }
                assert_eq!(deferred::live(), 1);
                assert_eq!(std::rc::Rc::strong_count(&w.0), w0);
                deferred::drop_rows(&[kept]);
            }
            assert_eq!(deferred::live(), 0);
            assert_eq!(std::rc::Rc::strong_count(&w.0), w0, "bulk {bulk}");
            assert!(w.meta().unwrap().grad_accumulator.upgrade().is_none());
        }
    })
    .join()
    .unwrap();
}

/// Every op defers, and a backward through it runs on entries (the root
/// stays deferred), with the gradient the eager graph gives.
#[test]
fn every_op_defers_and_backwards_on_entries() {
    for op in Op::ALL {
        let run = |defer: bool| {
            std::thread::spawn(move || {
                deferred::set_enabled(defer);
                let w = leaf(&[0.75], &[]);
                let hw = Handle::Tensor(w.clone());
                let other = if op.is_unary() {
                    Other::None
                } else {
                    Other::Number(2.0)
                };
                // mul first: the op's input is itself an entry.
                let y = hw.op(Op::Mul, Other::Number(1.5)).unwrap();
                let z = y.op(op, other).unwrap().op(Op::Mul, Other::Number(3.0));
                let z = z.unwrap();
                assert_eq!(matches!(&z, Handle::Lazy(l) if l.is_deferred()), defer);
                z.backward(false).unwrap();
                assert_eq!(matches!(&z, Handle::Lazy(l) if l.is_deferred()), defer);
                let g = w.grad_raw().unwrap();
                (g.item().unwrap().to_bits(), g.version(), g.id().0)
            })
            .join()
            .unwrap()
        };
        assert_eq!(run(true), run(false), "{op:?}");
    }
}
