//! `torch.autograd.Function` nodes (custom_function.rs): routing, PyTorch's
//! checks of what backward returned, grad materialization, and the node's
//! place among hooks. Expected values by hand in the comments; the messages
//! are PyTorch 2.15's (tests/python/corpus/autograd_function_errors.py).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::cell::RefCell;
use std::rc::Rc;

use crate::context;
use crate::custom_function::{custom_function, CustomBackward, CustomCall, Returned};
use crate::hooks::{NodePostHook, NodePreHook, TensorHook};
use crate::tensor::Tensor;
use crate::testing::*;

type Grads = crate::error::Result<Vec<Option<Tensor>>>;

fn call<'a>(name: &'a str, args: &'a [Option<Tensor>], outputs: &'a [Tensor]) -> CustomCall<'a> {
    CustomCall {
        name,
        args,
        outputs,
        saved: &[],
        non_differentiable: &[],
        materialize_grads: true,
    }
}

fn backward_fn(
    f: impl Fn(&[Option<Tensor>], &[Tensor]) -> Grads + 'static,
) -> Rc<dyn CustomBackward> {
    Rc::new(f)
}

#[test]
fn exp_saves_its_output_and_routes_the_gradient() {
    // PyTorch's docs' Exp: y = exp(x) saved, grad = g * y; x = [0, 1]:
    // x.grad = [1, e].
    let x = leaf(&[0.0, 1.0], &[2]);
    let y = context::no_grad(|| x.exp()).unwrap();
    let args = [Some(x.clone())];
    let outs = [y.clone()];
    let c = CustomCall {
        saved: &outs,
        ..call("Exp", &args, &outs)
    };
    let b = backward_fn(|g, saved| Ok(vec![Some(g[0].as_ref().unwrap().mul(&saved[0])?)]));
    let (out, node) = ok(custom_function(&c, b));
    let node = node.unwrap();
    assert_eq!(node.name, "ExpBackward");
    assert_eq!(out[0].grad_fn().unwrap().id, node.id);
    assert!(node.next_functions()[0]
        .0
        .as_ref()
        .unwrap()
        .is_accumulate_grad());
    ok(ok(out[0].sum()).backward());
    let g = grad_values(&x);
    assert_eq!(g[0], 1.0);
    assert!((g[1] - std::f32::consts::E).abs() < 1e-6);
}

#[test]
fn no_input_requiring_grad_gives_outputs_without_history() {
    let x = constant(&[1.0], &[1]);
    let args = [Some(x.clone())];
    let outs = [x.clone()];
    let (out, node) = ok(custom_function(
        &call("Id", &args, &outs),
        backward_fn(|g, _| Ok(g.to_vec())),
    ));
    assert!(node.is_none());
    assert!(out[0].grad_fn().is_none());
}

#[test]
fn a_wrong_count_of_gradients_is_pytorchs_error() {
    let x = leaf(&[1.0], &[1]);
    let w = leaf(&[2.0], &[1]);
    let y = context::no_grad(|| x.mul(&w)).unwrap();
    let args = [Some(x.clone()), Some(w.clone())];
    let outs = [y];
    let b = backward_fn(|g, _| Ok(vec![g[0].clone()]));
    let (out, _) = ok(custom_function(&call("MyMul", &args, &outs), b));
    let e = ok(out[0].sum()).backward().unwrap_err();
    assert_eq!(
        e.to_string(),
        "function MyMulBackward returned an incorrect number of gradients (expected 2, got 1)"
    );
}

#[test]
fn a_wrong_shape_is_validate_outputs_error() {
    let x = leaf(&[1.0, 2.0], &[2]);
    let args = [Some(x.clone())];
    let outs = [context::no_grad(|| x.mul(2.0)).unwrap()];
    let b = backward_fn(|_, _| Ok(vec![Some(constant(&[1.0, 1.0, 1.0], &[3]))]));
    let (out, _) = ok(custom_function(&call("Bad", &args, &outs), b));
    let e = ok(out[0].sum()).backward().unwrap_err();
    assert_eq!(
        e.to_string(),
        "Function BadBackward returned an invalid gradient at index 0 - got [3] but expected shape compatible with [2]"
    );
}

#[test]
fn non_tensor_arguments_take_none_and_extra_nones_are_dropped() {
    // forward(ctx, x, k): backward returns (g, None, None): the trailing
    // None beyond the two arguments is dropped; a gradient for k is an error.
    let x = leaf(&[3.0], &[1]);
    let args = [Some(x.clone()), None];
    let outs = [context::no_grad(|| x.mul(2.0)).unwrap()];
    let b = backward_fn(|g, _| Ok(vec![Some(g[0].as_ref().unwrap().mul(2.0)?), None, None]));
    let (out, _) = ok(custom_function(&call("Scale", &args, &outs), b));
    ok(ok(out[0].sum()).backward());
    assert_eq!(grad_values(&x), vec![2.0]);

    let outs = [context::no_grad(|| x.mul(2.0)).unwrap()];
    let b = backward_fn(|g, _| Ok(vec![g[0].clone(), g[0].clone()]));
    let (out, _) = ok(custom_function(&call("Scale", &args, &outs), b));
    let e = ok(out[0].sum()).backward().unwrap_err();
    assert_eq!(
        e.to_string(),
        "function ScaleBackward returned a gradient different than None at position 2, but the corresponding forward input was not a Variable"
    );
}

#[test]
fn missing_gradients_are_zeros_unless_materialization_is_off() {
    // Two outputs, only the first used: backward sees (1, 0) — or (1, None).
    for materialize in [true, false] {
        let x = leaf(&[1.0], &[1]);
        let args = [Some(x.clone())];
        let outs = [
            context::no_grad(|| x.mul(1.0)).unwrap(),
            context::no_grad(|| x.mul(1.0)).unwrap(),
        ];
        let seen = Rc::new(RefCell::new(Vec::new()));
        let s = seen.clone();
        let b = backward_fn(move |g, _| {
            s.borrow_mut()
                .extend(g.iter().map(|t| t.as_ref().map(values)));
            Ok(vec![g[0].clone()])
        });
        let c = CustomCall {
            materialize_grads: materialize,
            ..call("Two", &args, &outs)
        };
        let (out, _) = ok(custom_function(&c, b));
        ok(ok(out[0].sum()).backward());
        let want = if materialize { Some(vec![0.0]) } else { None };
        assert_eq!(*seen.borrow(), vec![Some(vec![1.0]), want]);
    }
}

#[test]
fn the_custom_node_runs_between_its_hooks_like_any_node() {
    // y = Rev(x) (gradient reversal), y.sum().backward(): y's tensor hook →
    // the node's pre-hook → the user's backward → its post-hook; x.grad = -1.
    let x = leaf(&[5.0], &[1]);
    let args = [Some(x.clone())];
    let outs = [context::no_grad(|| x.mul(1.0)).unwrap()];
    let log = Rc::new(RefCell::new(Vec::<String>::new()));
    let l = log.clone();
    let b = backward_fn(move |g, _| {
        l.borrow_mut().push("backward".into());
        Ok(vec![Some(g[0].as_ref().unwrap().neg()?)])
    });
    let (out, node) = ok(custom_function(&call("Rev", &args, &outs), b));
    let node = node.unwrap();
    let l = log.clone();
    let th: Rc<dyn TensorHook> = Rc::new(move |_: &Tensor| {
        l.borrow_mut().push("tensor".into());
        Ok(None)
    });
    ok(out[0].register_hook(th));
    let l = log.clone();
    let pre: Rc<dyn NodePreHook> = Rc::new(move |_: &[Option<Tensor>]| {
        l.borrow_mut().push("pre".into());
        Ok(None)
    });
    node.register_prehook(pre);
    let l = log.clone();
    let post: Rc<dyn NodePostHook> = Rc::new(move |gi: &[Option<Tensor>], _: &[Option<Tensor>]| {
        l.borrow_mut()
            .push(format!("post {:?}", values(gi[0].as_ref().unwrap())));
        Ok(None)
    });
    node.register_hook(post);
    let (r, events) = crate::trace::trace(|| ok(out[0].sum()).backward());
    ok(r);
    assert_eq!(*log.borrow(), ["tensor", "pre", "backward", "post [-1.0]"]);
    assert_eq!(grad_values(&x), vec![-1.0]);
    let ran = events
        .iter()
        .any(|e| matches!(e, crate::trace::Event::Node { name, .. } if *name == "RevBackward"));
    assert!(ran, "the custom node's step is in the trace");
}

/// A host's backward that returns a non-tensor value (Python's `'a'`).
struct ReturnsText;

impl CustomBackward for ReturnsText {
    fn call(&self, _: &[Option<Tensor>], _: &[Tensor]) -> crate::error::Result<Vec<Returned>> {
        Ok(vec![Returned::Other("str".into())])
    }
}

#[test]
fn a_non_tensor_gradient_is_pytorchs_type_error() {
    let x = leaf(&[1.0], &[1]);
    let args = [Some(x.clone())];
    let outs = [context::no_grad(|| x.mul(2.0)).unwrap()];
    let (out, _) = ok(custom_function(
        &call("Text", &args, &outs),
        Rc::new(ReturnsText),
    ));
    let e = ok(out[0].sum()).backward().unwrap_err();
    assert_eq!(e.to_string(), "expected Variable or None (got str)");
}
