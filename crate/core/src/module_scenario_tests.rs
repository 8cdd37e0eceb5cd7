//! PyTorch's module hook scenarios, natively: forward (pre-)hooks, legacy
//! backward hooks reporting the last node's gradients, full backward
//! (pre-)hooks, and the adjoint model. Apart from scenario_tests.rs (tensor
//! and node hooks) so each reads in one sitting. Expected numbers are hand
//! calculations (shown in comments) or PyTorch's documented values; none are
//! read back from hookgrad.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cloned_ref_to_slice_refs
)]

use std::cell::RefCell;
use std::rc::Rc;

use crate::context;
use crate::error::Result;
use crate::module::{
    linear, ForwardHook, ForwardPreHook, Module, ModuleBackwardHook, ModuleBackwardPreHook,
    ModuleForward, Value,
};
use crate::scenario_tests::{log, tensor_hook, Log};
use crate::tensor::Tensor;
use crate::testing::*;

/// (grad_input values, grad_output values) of one module hook call.
type HookCall = (Vec<Option<Vec<f32>>>, Vec<Option<Vec<f32>>>);

fn fwd(f: impl Fn(&[Tensor]) -> Result<Tensor> + 'static) -> Rc<dyn ModuleForward> {
    Rc::new(move |args: &[Value], kwargs: Option<&Value>| {
        let mut ts: Vec<Tensor> = args.iter().filter_map(|a| a.as_tensor().cloned()).collect();
        if let Some(Value::Dict(kw)) = kwargs {
            ts.extend(kw.iter().filter_map(|(_, v)| v.as_tensor().cloned()));
        }
        Ok(Value::Tensor(f(&ts)?))
    })
}

fn tensors(v: &[Option<Tensor>]) -> Vec<Option<f32>> {
    v.iter()
        .map(|t| t.as_ref().map(|t| t.item().unwrap()))
        .collect()
}

#[test]
fn sumnet_forward_pre_hook_and_forward_hook_then_remove() {
    let m = Module::new("SumNet", fwd(|t| t[0].add(&t[1])?.add(&t[2])));
    let seen_args = log();
    let s = seen_args.clone();
    let pre: Rc<dyn ForwardPreHook> = Rc::new(move |args: &[Value], _kw: Option<&Value>| {
        s.borrow_mut().push(format!("{}", args.len()));
        let a = args[0].as_tensor().unwrap().add(10.0)?;
        Ok(Some(Value::Tuple(vec![Value::Tensor(a), args[1].clone()])))
    });
    let hook: Rc<dyn ForwardHook> = Rc::new(|_args: &[Value], _kw: Option<&Value>, out: &Value| {
        Ok(Some(Value::Tensor(out.as_tensor().unwrap().add(100.0)?)))
    });
    let h1 = m.register_forward_pre_hook(pre, false, false);
    let h2 = m.register_forward_hook(hook, false, false);
    let (a, b, c) = (
        constant(&[1.0], &[]),
        constant(&[2.0], &[]),
        constant(&[3.0], &[]),
    );
    let kwargs = Value::Dict(vec![("c".into(), Value::Tensor(c.clone()))]);
    let args = vec![Value::Tensor(a.clone()), Value::Tensor(b.clone())];
    let out = ok(m.call(args.clone(), Some(kwargs.clone())));
    assert_eq!(item(out.as_tensor().unwrap()), 116.0); // (1+10) + 2 + 3 + 100
    assert_eq!(*seen_args.borrow(), vec!["2"]); // hooks see positional args only
    h1.remove();
    h2.remove();
    let out = ok(m.call(args, Some(kwargs)));
    assert_eq!(item(out.as_tensor().unwrap()), 6.0);
}

#[test]
fn forward_pre_hook_returning_a_single_tensor_is_wrapped() {
    let m = Module::new("Double", fwd(|t| t[0].mul(2.0)));
    let pre: Rc<dyn ForwardPreHook> =
        Rc::new(|_a: &[Value], _k: Option<&Value>| Ok(Some(Value::Tensor(constant(&[5.0], &[])))));
    m.register_forward_pre_hook(pre, false, false);
    let out = ok(m.call(vec![Value::Tensor(constant(&[1.0], &[]))], None));
    assert_eq!(item(out.as_tensor().unwrap()), 10.0);
}

#[test]
fn forward_hooks_prepend_and_global_first() {
    let order = log();
    let m = Module::new("Id", fwd(|t| t[0].mul(1.0)));
    let mk = |name: &'static str, o: Log| -> Rc<dyn ForwardHook> {
        Rc::new(move |_a: &[Value], _k: Option<&Value>, _o: &Value| {
            o.borrow_mut().push(name.into());
            Ok(None)
        })
    };
    m.register_forward_hook(mk("local1", order.clone()), false, false);
    m.register_forward_hook(mk("local0", order.clone()), true, false);
    let g = crate::module::global::register_forward_hook(mk("global", order.clone()));
    ok(m.call(vec![Value::Tensor(constant(&[1.0], &[]))], None));
    g.remove();
    assert_eq!(*order.borrow(), vec!["global", "local0", "local1"]);
}

fn mul_module(name: &str, n: usize) -> Module {
    Module::new(
        name,
        fwd(move |t| {
            let mut acc = t[0].clone();
            for x in &t[1..n] {
                acc = acc.mul(x)?;
            }
            Ok(acc)
        }),
    )
}

fn record_backward_hook(seen: Log) -> Rc<dyn ModuleBackwardHook> {
    Rc::new(move |gi: &[Option<Tensor>], go: &[Option<Tensor>]| {
        seen.borrow_mut()
            .push(format!("{:?} {:?}", tensors(gi), tensors(go)));
        Ok(None)
    })
}

fn leaves(vals: &[f32]) -> Vec<Tensor> {
    vals.iter().map(|v| leaf(&[*v], &[])).collect()
}

#[test]
fn legacy_hook_mul2_works_mul3_reports_last_node() {
    let seen = log();
    let warnings = log();
    let w = warnings.clone();
    context::set_warning_sink(Some(Rc::new(move |m: &str, _| {
        w.borrow_mut().push(m.to_string())
    })));

    let m2 = mul_module("Mul2", 2);
    ok(m2.register_backward_hook(record_backward_hook(seen.clone())));
    let ab = leaves(&[2.0, 3.0]);
    let out = ok(m2.call(ab.iter().map(|t| Value::Tensor(t.clone())).collect(), None));
    ok(out.as_tensor().unwrap().backward());

    let m3 = mul_module("Mul3", 3);
    ok(m3.register_backward_hook(record_backward_hook(seen.clone())));
    let abc = leaves(&[2.0, 3.0, 4.0]);
    let out = ok(m3.call(abc.iter().map(|t| Value::Tensor(t.clone())).collect(), None));
    ok(out.as_tensor().unwrap().backward());
    context::set_warning_sink(None);

    assert_eq!(
        *seen.borrow(),
        vec![
            "[Some(3.0), Some(2.0)] [Some(1.0)]",
            "[Some(4.0), Some(6.0)] [Some(1.0)]"
        ]
    );
    // Mul3's output node's next_functions differ from its inputs' grad_fns → FutureWarning text.
    assert!(warnings.borrow().iter().any(|w| w.starts_with(
        "Using a non-full backward hook when the forward contains multiple autograd Nodes"
    )));
    // The real gradients are unaffected by the observing hook.
    assert_eq!(
        abc.iter().map(|t| grad_values(t)[0]).collect::<Vec<_>>(),
        vec![12.0, 8.0, 6.0]
    );
}

#[test]
fn tensor_hook_workaround_and_full_backward_hook_give_true_gradients() {
    // Workaround: hooks on the inputs and the output.
    let seen = log();
    let abc = leaves(&[2.0, 3.0, 4.0]);
    for (t, n) in abc.iter().zip(["a", "b", "c"]) {
        let s = seen.clone();
        ok(t.register_hook(tensor_hook(move |g| {
            s.borrow_mut().push(format!("{n}:{}", g.item()?));
            Ok(None)
        })));
    }
    let m = mul_module("Mul3", 3);
    let d = ok(m.call(abc.iter().map(|t| Value::Tensor(t.clone())).collect(), None));
    let d = d.as_tensor().unwrap().clone();
    let s = seen.clone();
    ok(d.register_hook(tensor_hook(move |g| {
        s.borrow_mut().push(format!("d:{}", g.item()?));
        Ok(None)
    })));
    ok(d.backward());
    let mut got = seen.borrow().clone();
    got.sort();
    assert_eq!(got, vec!["a:12", "b:8", "c:6", "d:1"]);

    // Full backward hook: (12, 8, 6) and grad_output (1).
    let seen = log();
    let m = mul_module("Mul3", 3);
    ok(m.register_full_backward_hook(record_backward_hook(seen.clone()), false));
    assert!(m
        .register_backward_hook(record_backward_hook(seen.clone()))
        .is_err());
    let abc = leaves(&[2.0, 3.0, 4.0]);
    let out = ok(m.call(abc.iter().map(|t| Value::Tensor(t.clone())).collect(), None));
    assert_eq!(
        out.as_tensor().unwrap().grad_fn().unwrap().name,
        "BackwardHookFunctionBackward"
    );
    ok(out.as_tensor().unwrap().backward());
    assert_eq!(
        *seen.borrow(),
        vec!["[Some(12.0), Some(8.0), Some(6.0)] [Some(1.0)]"]
    );
}

#[test]
fn full_backward_pre_hook_can_scale_grad_output() {
    let m = mul_module("Mul2", 2);
    let pre: Rc<dyn ModuleBackwardPreHook> = Rc::new(|go: &[Option<Tensor>]| {
        Ok(Some(
            go.iter()
                .map(|g| g.as_ref().map(|g| g.mul(10.0).unwrap()))
                .collect(),
        ))
    });
    m.register_full_backward_pre_hook(pre, false);
    let ab = leaves(&[2.0, 3.0]);
    let out = ok(m.call(ab.iter().map(|t| Value::Tensor(t.clone())).collect(), None));
    ok(out.as_tensor().unwrap().backward());
    assert_eq!(grad_values(&ab[0]), vec![30.0]);
    assert_eq!(grad_values(&ab[1]), vec![20.0]);
}

#[test]
fn full_backward_hook_with_no_input_requiring_grad_warns_and_passes_nulls() {
    let warnings = log();
    let w = warnings.clone();
    context::set_warning_sink(Some(Rc::new(move |m: &str, _| {
        w.borrow_mut().push(m.to_string())
    })));
    let seen = log();
    let weight = leaf(&[3.0], &[]);
    let wt = weight.clone();
    let m = Module::new("Scale", fwd(move |t| t[0].mul(&wt)));
    ok(m.register_full_backward_hook(record_backward_hook(seen.clone()), false));
    let x = constant(&[2.0], &[]);
    let out = ok(m.call(vec![Value::Tensor(x)], None));
    ok(out.as_tensor().unwrap().backward());
    context::set_warning_sink(None);
    assert_eq!(*seen.borrow(), vec!["[None] [Some(1.0)]"]);
    assert!(warnings.borrow().iter().any(|w| w.starts_with("Full backward hook is firing when gradients are computed with respect to module outputs since no inputs require gradients.")));
    assert_eq!(grad_values(&weight), vec![2.0]);
}

#[test]
fn adjoint_model_full_hooks_match_the_adjoint_recursion() {
    // Seed 003: 3 layers u ← u + A u, loss ½‖u₃ − y‖². grad_output of layer
    // n is λₙ₊₁; grad_input is λₙ = (I + A)ᵀ λₙ₊₁; the first layer's input
    // does not require grad, so its grad_input is None.
    let a_vals = [1.0f32, -2.0, -1.0, -2.0, 1.0, -2.0, -1.0, -2.0, 1.0].map(|v| v / 4.0);
    let u0 = [0.5f32, -1.0, 2.0];
    let y = [1.0f32, 0.0, -1.0];
    let seen: Rc<RefCell<Vec<HookCall>>> = Rc::new(RefCell::new(Vec::new()));
    let mut layers = Vec::new();
    for _ in 0..3 {
        let a = leaf(&a_vals, &[3, 3]);
        let ac = a.clone();
        let m = Module::new("Layer", fwd(move |t| t[0].add(&ac.matmul(&t[0])?)));
        let s = seen.clone();
        let hook: Rc<dyn ModuleBackwardHook> =
            Rc::new(move |gi: &[Option<Tensor>], go: &[Option<Tensor>]| {
                let f = |v: &[Option<Tensor>]| {
                    v.iter().map(|t| t.as_ref().map(values)).collect::<Vec<_>>()
                };
                s.borrow_mut().push((f(gi), f(go)));
                Ok(None)
            });
        ok(m.register_full_backward_hook(hook, false));
        layers.push(m);
    }
    let mut u = constant(&u0, &[3]);
    for m in &layers {
        u = ok(m.call(vec![Value::Tensor(u)], None))
            .as_tensor()
            .unwrap()
            .clone();
    }
    let diff = ok(u.sub(&constant(&y, &[3])));
    let loss = ok(ok(ok(diff.pow(2.0)).sum()).mul(0.5));
    ok(loss.backward());

    // Independent f64 reference: forward, then λ recursion.
    let a: Vec<f64> = a_vals.iter().map(|v| *v as f64).collect();
    let step = |u: &[f64; 3]| -> [f64; 3] {
        let mut o = [0.0; 3];
        for i in 0..3 {
            o[i] = u[i] + (0..3).map(|j| a[i * 3 + j] * u[j]).sum::<f64>();
        }
        o
    };
    let adj = |l: &[f64; 3]| -> [f64; 3] {
        let mut o = [0.0; 3];
        for j in 0..3 {
            o[j] = l[j] + (0..3).map(|i| a[i * 3 + j] * l[i]).sum::<f64>();
        }
        o
    };
    let mut us = vec![[u0[0] as f64, u0[1] as f64, u0[2] as f64]];
    for _ in 0..3 {
        let next = step(us.last().unwrap());
        us.push(next);
    }
    let mut lambda = [0.0; 3];
    for i in 0..3 {
        lambda[i] = us[3][i] - y[i] as f64;
    }
    let seen = seen.borrow();
    assert_eq!(seen.len(), 3); // last layer first
    for (k, (gi, go)) in seen.iter().enumerate() {
        let go = go[0].as_ref().unwrap();
        for i in 0..3 {
            assert!(
                (go[i] as f64 - lambda[i]).abs() < 1e-4,
                "layer {} grad_output {go:?} vs {lambda:?}",
                3 - k
            );
        }
        let next = adj(&lambda);
        if k < 2 {
            let gi = gi[0].as_ref().unwrap();
            for i in 0..3 {
                assert!(
                    (gi[i] as f64 - next[i]).abs() < 1e-4,
                    "grad_input {gi:?} vs {next:?}"
                );
            }
        } else {
            assert!(gi[0].is_none(), "first layer's grad_input must be None");
        }
        lambda = next;
    }
}

#[test]
fn linear_legacy_hook_sees_addmm_triple() {
    let m = ok(linear::linear(3, 2, true, 7));
    let w = m.get_parameter("weight").unwrap();
    let shapes = log();
    let s = shapes.clone();
    let hook: Rc<dyn ModuleBackwardHook> =
        Rc::new(move |gi: &[Option<Tensor>], go: &[Option<Tensor>]| {
            let f = |v: &[Option<Tensor>]| {
                v.iter()
                    .map(|t| format!("{:?}", t.as_ref().map(|t| t.shape())))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            s.borrow_mut().push(format!("{} | {}", f(gi), f(go)));
            Ok(None)
        });
    ok(m.register_backward_hook(hook));
    let x = leaf(&[1.0, 2.0, 3.0], &[1, 3]);
    let out = ok(m.call(vec![Value::Tensor(x.clone())], None));
    let out = out.as_tensor().unwrap().clone();
    assert_eq!(out.grad_fn().unwrap().name, "AddmmBackward0");
    let names: Vec<&str> = out
        .grad_fn()
        .unwrap()
        .next_functions()
        .iter()
        .map(|(n, _)| n.as_ref().map(|n| n.name).unwrap_or_default())
        .collect();
    assert_eq!(
        names,
        vec!["AccumulateGrad", "AccumulateGrad", "TBackward0"]
    );
    ok(ok(out.sum()).backward());
    // (bias grad [2], input grad [1,3], weightᵀ grad [3,2]) and grad_output [1,2].
    assert_eq!(
        *shapes.borrow(),
        vec!["Some([2]) Some([1, 3]) Some([3, 2]) | Some([1, 2])"]
    );
    // Input grad = ones(1,2) @ W: column sums of W.
    let wv = values(&w);
    let expect: Vec<f32> = (0..3).map(|j| wv[j] + wv[3 + j]).collect();
    for (g, e) in grad_values(&x).iter().zip(&expect) {
        assert!((g - e).abs() < 1e-6);
    }
}

#[test]
fn mixing_legacy_and_full_hooks_is_pytorchs_error() {
    let m = mul_module("M", 2);
    ok(m.register_backward_hook(record_backward_hook(log())));
    let e = m
        .register_full_backward_hook(record_backward_hook(log()), false)
        .err()
        .map(|e| e.to_string());
    assert_eq!(
        e.as_deref(),
        Some(crate::module::MIXED_BACKWARD_HOOKS_ERROR)
    );
}
