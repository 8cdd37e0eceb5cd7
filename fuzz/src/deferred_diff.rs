//! The deferred rows (hookgrad_core::deferred) against the eager ops: a
//! byte string is read as a program of 0-d ops over leaves, constants,
//! numbers and earlier results, with handles dropped, results materialized
//! early, inputs changed in place and one or two backward passes. It runs
//! twice, each time on a fresh thread (fresh id counters), with deferral on
//! and off; everything it can observe is written down and must be equal:
//! values (bits), ids, versions, grad_fns with their ids, sequence numbers
//! and edges, `.grad` (bits, version, id), errors and their texts.

use hookgrad_core::deferred::{self, Handle, Op, Other};
use hookgrad_core::{context, Tensor, TensorOptions};
use std::fmt::Write;

use crate::Reader;

/// Runs the program `data` encodes both ways; panics if they differ.
pub fn check(data: &[u8]) {
    let eager = on_thread(data, false);
    let deferred = on_thread(data, true);
    assert_eq!(
        deferred, eager,
        "deferred rows differ from the eager ops for this program"
    );
}

fn on_thread(data: &[u8], defer: bool) -> String {
    let data = data.to_vec();
    std::thread::spawn(move || {
        deferred::set_enabled(defer);
        program(&data)
    })
    .join()
    .unwrap_or_else(|_| String::from("panicked"))
}

fn describe(out: &mut String, t: &Tensor) {
    let _ = write!(
        out,
        "t{} v{:?} ver{} rg{} leaf{}",
        t.id().0,
        t.item().map(f32::to_bits).map_err(|e| e.to_string()),
        t.version(),
        t.requires_grad(),
        t.is_leaf()
    );
    if let Some(f) = t.grad_fn() {
        let _ = write!(out, " fn{}:{}#{}", f.id.0, f.name, f.sequence_nr);
        for (node, nr) in f.next_functions() {
            match node {
                Some(n) => {
                    let _ = write!(out, " ->{}.{nr}", n.id.0);
                }
                None => out.push_str(" ->none"),
            }
        }
    }
    if let Some(g) = t.grad_raw() {
        let _ = write!(
            out,
            " grad(t{} {:?} ver{})",
            g.id().0,
            g.item().map(f32::to_bits).ok(),
            g.version()
        );
    }
    out.push('\n');
}

fn scalar(v: f32, requires_grad: bool) -> Option<Tensor> {
    Tensor::from_vec(
        &[],
        vec![v],
        &TensorOptions {
            requires_grad,
            name: None,
        },
    )
    .ok()
}

fn program(data: &[u8]) -> String {
    let mut r = Reader { data, pos: 0 };
    let mut out = String::new();
    let leaves: Vec<Tensor> = (0..3)
        .filter_map(|i| scalar(0.3 + i as f32 * 0.41, true))
        .collect();
    let consts: Vec<Tensor> = (0..2)
        .filter_map(|i| scalar(1.7 - i as f32, false))
        .collect();
    if leaves.len() != 3 || consts.len() != 2 {
        return "no leaves".into();
    }
    let mut pool: Vec<Option<Handle>> = leaves
        .iter()
        .chain(&consts)
        .map(|t| Some(Handle::Tensor(t.clone())))
        .collect();
    let steps = 2 + r.below(40);
    for _ in 0..steps {
        if r.done() {
            break;
        }
        let live: Vec<usize> = (0..pool.len()).filter(|&i| pool[i].is_some()).collect();
        let a = live[r.below(live.len())];
        let op = Op::ALL[r.below(Op::ALL.len())];
        let b = live[r.below(live.len())];
        let kind = r.below(4);
        let number = r.value();
        let result = match (pool[a].as_ref(), pool[b].as_ref()) {
            (Some(ha), Some(hb)) => {
                let other = match (op, kind) {
                    (op, _) if op.is_unary() => Other::None,
                    (_, 0) => Other::Handle(hb),
                    (Op::Pow, _) => Other::Number(r.scalar()),
                    _ => Other::Number(number),
                };
                ha.op(op, other)
            }
            _ => continue,
        };
        match result {
            Ok(h) => {
                let v = h.item().map(f32::to_bits).map_err(|e| e.to_string());
                let _ = writeln!(out, "{op:?} = {v:?}");
                pool.push(Some(h));
            }
            Err(e) => {
                let _ = writeln!(out, "{op:?} error {e}");
            }
        }
        match r.below(12) {
            // Drop a result's handle (its node lives on in its consumers).
            0 => {
                let i = 5 + r.below(pool.len() - 5);
                pool[i] = None;
            }
            // Look at one (materializes everything deferred).
            1 => {
                if let Some(h) = pool[r.below(pool.len())].as_ref() {
                    match h.tensor() {
                        Ok(t) => describe(&mut out, &t),
                        Err(e) => {
                            let _ = writeln!(out, "materialize error {e}");
                        }
                    }
                }
            }
            // Change an input in place, as an optimizer step would.
            2 => {
                let t = if r.bit() {
                    &leaves[r.below(3)]
                } else {
                    &consts[r.below(2)]
                };
                let _ = context::no_grad(|| t.add_(0.25f32));
            }
            // A backward from a result mid-program.
            3 => {
                if let Some(h) = pool[r.below(pool.len())].as_ref() {
                    let retain = r.bit();
                    let res = h.backward(retain).map_err(|e| e.to_string());
                    let _ = writeln!(out, "backward retain {retain}: {res:?}");
                }
            }
            _ => {}
        }
    }
    if let Some(root) = pool.iter().rev().flatten().next() {
        for p in 0..1 + r.below(2) {
            let retain = r.bit();
            let res = root.backward(retain).map_err(|e| e.to_string());
            let _ = writeln!(out, "backward {p} retain {retain}: {res:?}");
            if r.below(3) == 0 {
                for l in &leaves {
                    let _ = l.set_grad(None);
                }
            }
        }
    }
    for h in pool.iter().flatten() {
        match h.tensor() {
            Ok(t) => describe(&mut out, &t),
            Err(e) => {
                let _ = writeln!(out, "materialize error {e}");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    /// A short run of the differential check (the long one: `npm run fuzz`,
    /// or `replay <N>`).
    #[test]
    fn deferred_rows_match_eager_ops_on_pseudo_random_programs() {
        let mut state: u64 = 0x2545_F491_4F6C_DD1D;
        for _ in 0..500 {
            let mut data = Vec::with_capacity(160);
            for _ in 0..160 {
                state ^= state >> 12;
                state ^= state << 25;
                state ^= state >> 27;
                data.push((state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 56) as u8);
            }
            super::check(&data);
        }
    }
}
