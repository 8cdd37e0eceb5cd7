//! The scalar backward (0-d nodes on plain numbers, `scalar_backward`) must
//! be indistinguishable from the tensor path: the same gradients bit for
//! bit, the same errors, the same `.grad` updates. Each case runs once as is
//! (scalar mode) and once with a no-op hook on the root (which forces the
//! tensor path for the whole pass).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::rc::Rc;

use crate::error::Result;
use crate::hooks::TensorHook;
use crate::scalar_backward::nodes_run_on_numbers;
use crate::tensor::Tensor;
use crate::testing::{leaf, ok};

/// Every op with a number formula, leaves reused, a tensor used twice.
fn big_graph(x: &Tensor, y: &Tensor, w: &Tensor) -> Result<Tensor> {
    let a = x.mul(y)?.add(w)?;
    let b = a.tanh()?.sub(0.5)?;
    let c = b.mul(&b)?.div(y)?;
    let d = c.div(3.0)?.neg()?.exp()?;
    let e = d.add(&x.pow(3.0)?)?.add(&y.pow(0.0)?)?;
    let f = e.log()?.sin()?.add(&w.cos()?)?.sigmoid()?;
    let g = f
        .relu()?
        .add(&x.sub(w)?.abs()?)?
        .add(&y.sqrt()?)?
        .mul(2.0)?;
    g.add(x)?.sub(&w.mul(-1.5)?)
}

fn no_op_hook() -> Rc<dyn TensorHook> {
    Rc::new(|_: &Tensor| Ok(None))
}

/// Runs `backward` on `f(leaves)`; `tensor_path` adds a no-op root hook.
fn run(
    values: &[f32],
    f: impl Fn(&[Tensor]) -> Result<Tensor>,
    tensor_path: bool,
) -> (Vec<Tensor>, Result<()>) {
    let leaves: Vec<Tensor> = values.iter().map(|v| leaf(&[*v], &[])).collect();
    let root = ok(f(&leaves));
    if tensor_path {
        ok(root.register_hook(no_op_hook()));
    }
    let before = nodes_run_on_numbers();
    let r = root.backward();
    let ran = nodes_run_on_numbers() - before;
    assert_eq!(ran > 0, !tensor_path, "scalar mode taken: {ran} nodes");
    (leaves, r)
}

fn grad_bits(leaves: &[Tensor]) -> Vec<u32> {
    leaves
        .iter()
        .map(|t| t.grad_raw().expect("grad").item().unwrap().to_bits())
        .collect()
}

#[test]
fn gradients_are_bit_identical_to_the_tensor_path() {
    let f = |l: &[Tensor]| big_graph(&l[0], &l[1], &l[2]);
    for values in [[0.7f32, 1.3, -0.4], [-1.1, 0.2, 0.9], [2.0, 3.5, 0.0]] {
        let (scalar, r1) = run(&values, f, false);
        let (tensor, r2) = run(&values, f, true);
        ok(r1);
        ok(r2);
        assert_eq!(grad_bits(&scalar), grad_bits(&tensor), "{values:?}");
    }
}

#[test]
fn hand_computed_gradient() {
    // y = x*x + 3x - x/4 at x = 2: dy/dx = 2x + 3 - 1/4 = 6.75.
    let (l, r) = run(
        &[2.0],
        |l| l[0].mul(&l[0])?.add(&l[0].mul(3.0)?)?.sub(&l[0].div(4.0)?),
        false,
    );
    ok(r);
    assert_eq!(l[0].grad_raw().expect("grad").item().unwrap(), 6.75);
}

#[test]
fn inplace_change_of_a_saved_output_is_the_same_error() {
    let messages: Vec<String> = [false, true]
        .into_iter()
        .map(|tensor_path| {
            let (_, r) = run(
                &[0.5],
                |l| {
                    let y = l[0].mul(2.0)?.tanh()?;
                    let z = y.mul(3.0)?;
                    crate::context::no_grad(|| y.add_(1.0))?;
                    Ok(z)
                },
                tensor_path,
            );
            r.err().map(|e| e.to_string()).unwrap_or_default()
        })
        .collect();
    assert!(
        messages[0].starts_with("one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor []], which is output 0 of Tanh, is at version 1; expected version 0 instead."),
        "{}",
        messages[0]
    );
    assert_eq!(messages[0], messages[1]);
}

#[test]
fn second_backward_without_retain_graph_is_the_freed_graph_error() {
    for tensor_path in [false, true] {
        let x = leaf(&[1.5], &[]);
        let y = ok(ok(x.mul(&x)).tanh());
        if tensor_path {
            ok(y.register_hook(no_op_hook()));
        }
        ok(y.backward());
        let e = y
            .backward()
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert_eq!(e, crate::node::FREED_GRAPH_ERROR);
    }
}

#[test]
fn grad_accumulates_in_place_or_into_a_new_tensor_like_the_tensor_path() {
    // torch 2.15: x = tensor(1.5, requires_grad=True); y = (x*x)*2, two
    // backward(retain_graph=True): x.grad is 6 (_version 1: MulBackward0's
    // two gradients met in x's input buffer, the second added in place),
    // then 12 (_version 2: `.grad += grad` in place, same tensor).
    for tensor_path in [false, true] {
        let x = leaf(&[1.5], &[]);
        let y = ok(ok(x.mul(&x)).mul(2.0));
        if tensor_path {
            ok(y.register_hook(no_op_hook()));
        }
        ok(y.backward_with(None, true, None));
        let first = x.grad_raw().expect("grad");
        assert_eq!(first.item().unwrap(), 6.0);
        // Nothing else holds the storage: `.grad += grad` in place.
        ok(y.backward_with(None, true, None));
        let second = x.grad_raw().expect("grad");
        assert!(second.ptr_eq(&first));
        assert_eq!(first.item().unwrap(), 12.0);
        assert_eq!(first.version(), 2);
        // A detached alias shares the storage: `.grad` becomes a new sum.
        let alias = first.detach();
        ok(y.backward_with(None, true, None));
        let third = x.grad_raw().expect("grad");
        assert!(!third.ptr_eq(&first));
        assert_eq!((third.item().unwrap(), alias.item().unwrap()), (18.0, 12.0));
    }
}

#[test]
fn a_nested_backward_that_restamps_shared_nodes_leaves_the_outer_pass_intact() {
    // x -> a = 2x -> b = 3a, c = 4a -> loss = b + c. A hook on b runs a
    // backward of 5a (built beforehand) from inside the pass: it walks a's node and x's
    // AccumulateGrad again (restamping them for its own table) before the
    // outer pass has routed anything to them. By hand: the inner pass
    // gives x.grad = 10, the outer adds 2 * (3 + 4) = 14.
    let x = leaf(&[1.0], &[]);
    let a = ok(x.mul(2.0));
    let b = ok(a.mul(3.0));
    let c = ok(a.mul(4.0));
    let loss = ok(b.add(&c));
    // Built beforehand: grad mode is off inside hooks (as in PyTorch).
    let inner_root = ok(a.mul(5.0));
    ok(b.register_hook(Rc::new(move |_: &Tensor| {
        inner_root.backward_with(None, true, None)?;
        Ok(None)
    })));
    ok(loss.backward());
    assert_eq!(x.grad_raw().expect("grad").item().unwrap(), 24.0);
}

/// `.grad._version` of each leaf after one backward, as torch 2.15 prints
/// it for the same program without hooks (tests/fixtures/pyfixtures/
/// backward.py, `grad_buffer_versions_unhooked`): every in-place sum in an
/// input buffer counts, a stolen gradient keeps its count, and a copied
/// one (`clone_obey_contract`: `new_empty_strided().copy_()`) is at 1.
#[test]
fn grad_versions_are_pytorchs_on_both_paths() {
    type Program = fn(&[Tensor]) -> Result<Tensor>;
    let cases: [(&str, &[f32], Program, &[u32]); 15] = [
        ("x*x", &[1.5], |l| l[0].mul(&l[0]), &[1]),
        (
            "x*2 + x*3 + x*4",
            &[1.5],
            |l| l[0].mul(2.0)?.add(&l[0].mul(3.0)?)?.add(&l[0].mul(4.0)?),
            &[2],
        ),
        ("x + x", &[1.5], |l| l[0].add(&l[0]), &[0]),
        ("x*2 + x", &[1.5], |l| l[0].mul(2.0)?.add(&l[0]), &[0]),
        (
            "x*0 + x*0 + x*1 + x*2 + x*3",
            &[1.5],
            |l| {
                let mut s = l[0].mul(0.0)?;
                for i in 0..4 {
                    s = s.add(&l[0].mul(i as f32)?)?;
                }
                Ok(s)
            },
            &[4],
        ),
        ("a + b", &[1.0, 2.0], |l| l[0].add(&l[1]), &[1, 1]),
        (
            "a*b + a*b",
            &[1.0, 2.0],
            |l| l[0].mul(&l[1])?.add(&l[0].mul(&l[1])?),
            &[1, 1],
        ),
        (
            "(a+b)*(a+b)",
            &[1.0, 2.0],
            |l| {
                let c = l[0].add(&l[1])?;
                c.mul(&c)
            },
            &[1, 1],
        ),
        (
            "c*3 + c, c = a+b",
            &[1.0, 2.0],
            |l| {
                let c = l[0].add(&l[1])?;
                c.mul(3.0)?.add(&c)
            },
            &[1, 0],
        ),
        (
            "(a-b)*(a+b)",
            &[1.0, 2.0],
            |l| l[0].sub(&l[1])?.mul(&l[0].add(&l[1])?),
            &[0, 1],
        ),
        (
            "a neuron over three samples",
            &[0.5, 0.1],
            |l| {
                let mut total: Option<Tensor> = None;
                for x in [1.0f32, 2.0, 3.0] {
                    let o = l[1].add(&l[0].mul(x)?)?.tanh()?;
                    let d = o.sub(1.0)?;
                    let sq = d.mul(&d)?;
                    total = Some(match total {
                        Some(t) => t.add(&sq)?,
                        None => sq,
                    });
                }
                Ok(total.expect("three samples"))
            },
            &[2, 2],
        ),
        (
            "(x+1) + (x+2)",
            &[1.5],
            |l| l[0].add(1.0)?.add(&l[0].add(2.0)?),
            &[0],
        ),
        (
            "y + y, y = x+1",
            &[1.5],
            |l| {
                let y = l[0].add(1.0)?;
                y.add(&y)
            },
            &[0],
        ),
        (
            "(x-1)*(x-1)",
            &[1.5],
            |l| {
                let y = l[0].sub(1.0)?;
                y.mul(&y)
            },
            &[1],
        ),
        ("(x+1)*1", &[1.0], |l| l[0].add(1.0)?.mul(1.0), &[0]),
    ];
    for (name, values, f, want) in cases {
        for tensor_path in [false, true] {
            let (leaves, r) = run(values, f, tensor_path);
            ok(r);
            let got: Vec<u32> = leaves
                .iter()
                .map(|t| t.grad_raw().expect("grad").version())
                .collect();
            assert_eq!(got, want, "{name} (tensor path: {tensor_path})");
        }
    }
}

#[test]
fn a_grad_copied_under_create_graph_is_at_version_1() {
    // torch 2.15: (a*2).backward(create_graph=True) -> a.grad._version 1;
    // (a+b).backward(create_graph=True) -> 1 and 1 (`clone_obey_contract`).
    let a = leaf(&[1.0], &[]);
    let b = leaf(&[2.0], &[]);
    ok(crate::engine::backward_ext(
        &[ok(a.mul(2.0))],
        vec![None],
        false,
        true,
        None,
    ));
    assert_eq!(a.grad_raw().expect("grad").version(), 1);
    let (a, b2) = (leaf(&[1.0], &[]), b);
    ok(crate::engine::backward_ext(
        &[ok(a.add(&b2))],
        vec![None],
        false,
        true,
        None,
    ));
    let versions = [&a, &b2].map(|t| t.grad_raw().expect("grad").version());
    assert_eq!(versions, [1, 1]);
}

/// Random 0-d programs (sums, differences, products and a tanh over
/// reused values, most reaching the root through several paths): numbers
/// and tensors give the same gradients and the same `.grad._version`s —
/// the tensor path counts holders with reference counts, the numbers with
/// `Shares`.
#[test]
fn random_programs_give_the_same_grads_and_versions_on_both_paths() {
    let mut seed = 0x2545_f491_u32;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed as usize % n
    };
    for _ in 0..500 {
        let plan: Vec<[usize; 3]> = (0..12).map(|_| [next(7), next(64), next(64)]).collect();
        let shown = format!("{plan:?}");
        let program = move |l: &[Tensor]| -> Result<Tensor> {
            let mut vals: Vec<Tensor> = l.to_vec();
            for &[op, i, j] in &plan {
                let (a, b) = (&vals[i % vals.len()], &vals[j % vals.len()]);
                let v = match op {
                    0 | 1 => a.add(b)?,
                    2 => a.sub(b)?,
                    3 => a.mul(b)?,
                    4 => a.add(0.5)?,
                    5 => a.sub(0.25)?,
                    _ => a.tanh()?,
                };
                vals.push(v);
            }
            // Everything made reaches the root; the last product makes the
            // gradient a number from the first node on.
            let mut root = vals[l.len()].clone();
            for v in &vals[l.len() + 1..] {
                root = root.add(v)?;
            }
            root.mul(2.0)
        };
        let (scalar, r1) = run(&[0.3, -0.7, 1.1], &program, false);
        let (tensor, r2) = run(&[0.3, -0.7, 1.1], &program, true);
        ok(r1);
        ok(r2);
        let versions = |l: &[Tensor]| -> Vec<Option<u32>> {
            l.iter()
                .map(|t| t.grad_raw().map(|g| g.version()))
                .collect()
        };
        let bits = |l: &[Tensor]| -> Vec<Option<u32>> {
            l.iter()
                .map(|t| t.grad_raw().map(|g| g.item().unwrap().to_bits()))
                .collect()
        };
        assert_eq!(bits(&scalar), bits(&tensor));
        assert_eq!(versions(&scalar), versions(&tensor), "{shown}");
    }
}

/// The fixture's 100 random 0-d programs (PyTorch's `.grad._version` of
/// each leaf), built as deferred rows: their backward runs as a deferred
/// pass through the engine's loop, whose holder counts decide every
/// in-place sum and steal (the eager twin is in pytorch_fixture_tests.rs).
#[test]
fn deferred_passes_give_pytorchs_grad_versions() {
    use crate::deferred::{Handle, Op, Other};
    let s = crate::pytorch_fixture_tests::scenario("grad_versions_random_scalar_programs");
    let programs = s["programs"].as_array().expect("programs");
    let values: Vec<f32> = s["leaves"]
        .as_array()
        .expect("leaves")
        .iter()
        .map(|v| v.as_f64().expect("a number") as f32)
        .collect();
    assert_eq!(programs.len(), 100);
    for p in programs {
        let plan = p["plan"].as_str().expect("plan");
        let leaves: Vec<Tensor> = values.iter().map(|v| leaf(&[*v], &[])).collect();
        let mut vals: Vec<Handle> = leaves.iter().map(|t| Handle::Tensor(t.clone())).collect();
        for step in plan.split(", ") {
            let n: Vec<usize> = step
                .split(' ')
                .map(|x| x.parse().expect("a number"))
                .collect();
            let (a, b) = (&vals[n[1] % vals.len()], &vals[n[2] % vals.len()]);
            let v = match n[0] {
                0 | 1 => a.op(Op::Add, Other::Handle(b)),
                2 => a.op(Op::Sub, Other::Handle(b)),
                3 => a.op(Op::Mul, Other::Handle(b)),
                4 => a.op(Op::Add, Other::Number(0.5)),
                5 => a.op(Op::Sub, Other::Number(0.25)),
                _ => a.op(Op::Tanh, Other::None),
            };
            vals.push(ok(v));
        }
        // root = vals[3] + vals[4] + ... (the fixture's), then * 2.
        let mut root: Option<Handle> = None;
        for v in &vals[4..] {
            let r = root.as_ref().unwrap_or(&vals[3]);
            root = Some(ok(r.op(Op::Add, Other::Handle(v))));
        }
        let root = ok(root
            .as_ref()
            .unwrap_or(&vals[3])
            .op(Op::Mul, Other::Number(2.0)));
        assert!(
            matches!(root, Handle::Lazy(_)),
            "{plan}: the root is deferred"
        );
        ok(root.backward(false));
        let got: Vec<Option<u64>> = leaves
            .iter()
            .map(|t| t.grad_raw().map(|g| g.version() as u64))
            .collect();
        let want: Vec<Option<u64>> = p["versions"]
            .as_array()
            .expect("versions")
            .iter()
            .map(|v| v.as_u64())
            .collect();
        assert_eq!(got, want, "{plan}");
    }
}
