//! In-place ops on what a module with full backward (pre-)hooks returns
//! (pytorch #61519) and `relu_` itself. Expected texts and numbers are what
//! torch 2.15 printed for the same programs (tests/fixtures/pyfixtures/
//! surprises.py runs the lesson's pair) or hand calculations in comments.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::rc::Rc;

use crate::context;
use crate::module::{ForwardHook, Module, ModuleBackwardHook, ModuleBackwardPreHook, Value};
use crate::scenario_tests::log;
use crate::tensor::Tensor;
use crate::testing::*;
use crate::view::{IN_CUSTOM_FUNCTION_REASON, MULTI_OUTPUT_NODE_REASON};

fn custom_error(output: usize, op: &str) -> String {
    format!("Output {output} of {op} is a view and is being modified inplace. {IN_CUSTOM_FUNCTION_REASON}")
}

/// `y = 2 * x - 1` as a module: one output, from a leaf input.
fn affine() -> Module {
    Module::new(
        "Affine",
        Rc::new(|args: &[Value], _kw: Option<&Value>| {
            let x = args[0].as_tensor().unwrap();
            Ok(Value::Tensor(x.mul(2.0)?.sub(1.0)?))
        }),
    )
}

fn quiet_hook(seen: crate::scenario_tests::Log) -> Rc<dyn ModuleBackwardHook> {
    Rc::new(move |gi: &[Option<Tensor>], go: &[Option<Tensor>]| {
        let v = |t: &Option<Tensor>| t.as_ref().map(values);
        seen.borrow_mut().push(format!(
            "{:?} {:?}",
            gi.iter().map(v).collect::<Vec<_>>(),
            go.iter().map(v).collect::<Vec<_>>()
        ));
        Ok(None)
    })
}

fn call(m: &Module, x: &Tensor) -> Tensor {
    ok(m.call(vec![Value::Tensor(x.clone())], None))
        .as_tensor()
        .unwrap()
        .clone()
}

#[test]
fn inplace_on_a_full_hooked_output_raises_pytorchs_error_and_changes_nothing() {
    let seen = log();
    let m = affine();
    ok(m.register_full_backward_hook(quiet_hook(seen.clone()), false));
    let x = leaf(&[1.0, -1.0, 2.0], &[3]);
    let out = call(&m, &x); // [1, -3, 3]
    type Op = fn(&Tensor) -> crate::Result<Tensor>;
    let ops: [Op; 5] = [
        |t| t.relu_(),
        |t| t.mul_(3.0),
        |t| t.add_(1.0),
        |t| t.zero_(),
        |t| crate::ops::fill_copy::fill_(t, 0.0),
    ];
    for op in ops {
        let e = op(&out).err().map(|e| e.to_string());
        assert_eq!(e, Some(custom_error(0, "BackwardHookFunction")));
    }
    // The trace's error event names the refusing tensor's node.
    let (_, events) = crate::trace::trace(|| out.mul_(2.0));
    let node = out.grad_fn().map(|f| f.id);
    assert!(events.iter().any(|ev| matches!(
        ev,
        crate::trace::Event::Error { node: n, .. } if *n == node
    )));
    // Raised before the write: values, version and history as they were.
    assert_eq!(values(&out), vec![1.0, -3.0, 3.0]);
    assert_eq!(out.version(), 0);
    assert_eq!(
        out.grad_fn().map(|f| f.name),
        Some("BackwardHookFunctionBackward")
    );
    // The out-of-place switch runs; the hook fires with grad_input 2·1[y>0].
    let y = ok(out.relu());
    ok(ok(y.sum()).backward());
    assert_eq!(grad_values(&x), vec![2.0, 0.0, 2.0]);
    assert_eq!(
        *seen.borrow(),
        vec!["[Some([2.0, 0.0, 2.0])] [Some([1.0, 0.0, 1.0])]"]
    );
}

#[test]
fn a_full_backward_pre_hook_alone_makes_the_same_view() {
    let m = affine();
    let pre: Rc<dyn ModuleBackwardPreHook> = Rc::new(|_go: &[Option<Tensor>]| Ok(None));
    m.register_full_backward_pre_hook(pre, false);
    let out = call(&m, &leaf(&[1.0], &[1]));
    let e = out.relu_().err().map(|e| e.to_string());
    assert_eq!(e, Some(custom_error(0, "BackwardHookFunction")));
}

#[test]
fn views_of_the_hooked_output_inherit_the_refusal() {
    let m = affine();
    ok(m.register_full_backward_hook(quiet_hook(log()), false));
    let out = call(&m, &leaf(&[1.0, 2.0, 3.0, 4.0], &[2, 2]));
    let row = ok(out.select(0, 1));
    let e = row.mul_(2.0).err().map(|e| e.to_string());
    assert_eq!(e, Some(custom_error(0, "Select")));
    let e = ok(out.t()).add_(1.0).err().map(|e| e.to_string());
    assert_eq!(e, Some(custom_error(0, "T")));
    // A clone is no view: PyTorch's own advice works.
    let c = ok(out.clone_op());
    ok(c.relu_());
    assert_eq!(c.grad_fn().map(|f| f.name), Some("ReluBackward0"));
}

#[test]
fn two_differentiable_outputs_are_multi_output_views() {
    let m = Module::new(
        "Two",
        Rc::new(|args: &[Value], _kw: Option<&Value>| {
            let x = args[0].as_tensor().unwrap();
            let c = constant(&[1.0], &[1]); // needs no grad
            Ok(Value::Tuple(vec![
                Value::Tensor(x.mul(2.0)?),
                Value::Tensor(x.add(1.0)?),
                Value::Tensor(c),
            ]))
        }),
    );
    ok(m.register_full_backward_hook(quiet_hook(log()), false));
    let out = ok(m.call(vec![Value::Tensor(leaf(&[1.0], &[1]))], None));
    let Value::Tuple(items) = out else {
        panic!("a tuple")
    };
    let t = |i: usize| items[i].as_tensor().unwrap().clone();
    let multi = |i: usize| {
        format!("Output {i} of BackwardHookFunction is a view and is being modified inplace. {MULTI_OUTPUT_NODE_REASON}")
    };
    assert_eq!(t(0).add_(1.0).err().map(|e| e.to_string()), Some(multi(0)));
    assert_eq!(t(1).add_(1.0).err().map(|e| e.to_string()), Some(multi(1)));
    // The output that needs no grad is no differentiable view: allowed.
    ok(t(2).mul_(5.0));
    assert_eq!(values(&t(2)), vec![5.0]);
}

#[test]
fn without_a_full_hook_or_under_no_grad_inplace_works() {
    // No hook, a forward hook, a legacy hook: ReluBackward0 at version 1.
    let fwd_only = affine();
    let hook: Rc<dyn ForwardHook> =
        Rc::new(|_a: &[Value], _k: Option<&Value>, _o: &Value| Ok(None));
    fwd_only.register_forward_hook(hook, false, false);
    let legacy = affine();
    ok(legacy.register_backward_hook(quiet_hook(log())));
    for m in [affine(), fwd_only, legacy] {
        let x = leaf(&[1.0, -1.0], &[2]);
        let out = call(&m, &x); // [1, -3]
        ok(out.relu_());
        assert_eq!(values(&out), vec![1.0, 0.0]);
        assert_eq!(out.version(), 1);
        assert_eq!(out.grad_fn().map(|f| f.name), Some("ReluBackward0"));
        ok(ok(out.sum()).backward());
        assert_eq!(grad_values(&x), vec![2.0, 0.0]);
    }
    // PyTorch checks only while grad mode is on.
    let m = affine();
    ok(m.register_full_backward_hook(quiet_hook(log()), false));
    let out = call(&m, &leaf(&[1.0], &[1]));
    ok(context::no_grad(|| out.mul_(3.0)));
    assert_eq!(values(&out), vec![3.0]);
    assert_eq!(out.version(), 1);
}

#[test]
fn relu_inplace_saves_its_result_after_the_write() {
    // y = 2x; y.relu_(): dy/dx = 2·1[y>0].
    let x = leaf(&[1.0, -2.0, 3.0], &[3]);
    let y = ok(x.mul(2.0));
    let r = ok(y.relu_());
    assert!(r.ptr_eq(&y));
    assert_eq!(values(&y), vec![2.0, 0.0, 6.0]);
    assert_eq!(y.version(), 1);
    let node = y.grad_fn().unwrap();
    assert_eq!(node.name, "ReluBackward0");
    assert_eq!(
        node.next_functions()[0].0.as_ref().map(|n| n.name),
        Some("MulBackward0")
    );
    ok(ok(y.sum()).backward());
    assert_eq!(grad_values(&x), vec![2.0, 0.0, 2.0]);

    // Its saved result changed in place afterwards: PyTorch's version error.
    let y = ok(x.mul(1.0));
    ok(y.relu_());
    ok(y.add_(2.0));
    let e = ok(y.sum()).backward().err().map(|e| e.to_string());
    assert_eq!(e.as_deref(), Some("one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [3]], which is output 0 of Relu, is at version 2; expected version 1 instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."));

    // On a leaf that requires grad: refused, as every in-place op.
    let e = x.relu_().err().map(|e| e.to_string());
    assert_eq!(e.as_deref(), Some(crate::ops::inplace::LEAF_INPLACE_ERROR));

    // Through a view: the base's grad_fn becomes CopySlices; the gradient
    // of z·[1,2,3] is [1, 0, 3] (z[1] was clamped to 0).
    let x = leaf(&[1.0, -2.0, 3.0], &[3]);
    let z = ok(x.mul(1.0));
    ok(ok(z.slice(0, Some(0), Some(2), 1)).relu_());
    assert_eq!(values(&z), vec![1.0, 0.0, 3.0]);
    assert_eq!(z.grad_fn().map(|f| f.name), Some("CopySlices"));
    ok(ok(ok(z.mul(&constant(&[1.0, 2.0, 3.0], &[3]))).sum()).backward());
    assert_eq!(grad_values(&x), vec![1.0, 0.0, 3.0]);
}

#[test]
fn relu_inplace_gradient_matches_finite_differences() {
    check_unary_gradients("relu_", &[5], |a| ok(a.mul(1.0)).relu_());
}

#[test]
fn relu_inplace_module_after_a_hooked_linear_raises_inside_sequential() {
    use crate::module::sequential::{activation, sequential, Activation};
    let seen = log();
    let lin = ok(crate::module::linear::linear(2, 2, true, 0));
    ok(lin.register_full_backward_hook(quiet_hook(seen.clone()), false));
    let x = leaf(&[1.0, -1.0], &[1, 2]);
    let net = ok(sequential(vec![
        lin.clone(),
        activation(Activation::ReLUInplace),
    ]));
    let e = net
        .call(vec![Value::Tensor(x.clone())], None)
        .err()
        .map(|e| e.to_string());
    // hookgrad names the module forwards the error passed through (JS has
    // no traceback); the text after them is PyTorch's.
    assert_eq!(
        e,
        Some(format!(
            "forward of module 'Sequential' raised an error: forward of module 'ReLU' raised an error: {}",
            custom_error(0, "BackwardHookFunction")
        ))
    );
    assert!(seen.borrow().is_empty());
    // The switch: inplace=False runs, and the hook fires once in backward.
    let net = ok(sequential(vec![lin, activation(Activation::ReLU)]));
    let y = ok(net.call(vec![Value::Tensor(x)], None));
    let y = y.as_tensor().unwrap();
    assert_eq!(y.grad_fn().map(|f| f.name), Some("ReluBackward0"));
    ok(ok(y.sum()).backward());
    assert_eq!(seen.borrow().len(), 1);
}
