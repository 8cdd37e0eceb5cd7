//! The binding layer in headless Chromium (wasm-bindgen-test): JS closures as
//! hooks, re-entrancy, errors arriving as JS `Error`s, no trap after errors,
//! tensors handed to hooks staying valid. Expected values are hand-computed.

#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use hookgrad as hg;
use hookgrad::tensor::Tensor;
use js_sys::{Function, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn f(args: &str, body: &str) -> JsValue {
    Function::new_with_args(args, body).into()
}

fn leaf(v: f64) -> Tensor {
    let o = Object::new();
    Reflect::set(&o, &"requiresGrad".into(), &true.into()).unwrap();
    hg::tensor(v.into(), o.into()).unwrap()
}

fn global() -> JsValue {
    js_sys::global().into()
}

fn set_global(name: &str, v: JsValue) {
    Reflect::set(&global(), &name.into(), &v).unwrap();
}

fn eval_num(expr: &str) -> f64 {
    js_sys::eval(expr).unwrap().as_f64().expect(expr)
}

fn message(e: &JsValue) -> String {
    assert!(e.is_instance_of::<js_sys::Error>(), "not an Error: {e:?}");
    String::from(e.dyn_ref::<js_sys::Error>().unwrap().message())
}

fn grad_item(t: &Tensor) -> f64 {
    let g = t.grad().unwrap();
    let item = Reflect::get(&g, &"item".into())
        .unwrap()
        .dyn_into::<Function>()
        .unwrap();
    item.call0(&g).unwrap().as_f64().unwrap()
}

/// A canary computation that must keep working after any error.
fn canary() {
    let a = leaf(2.0);
    let b = a.mul(3.0.into()).unwrap();
    b.backward(JsValue::UNDEFINED, JsValue::UNDEFINED).unwrap();
    assert_eq!(grad_item(&a), 3.0);
}

#[wasm_bindgen_test]
fn js_closure_hook_replaces_gradient() {
    let a = leaf(2.0);
    a.register_hook(f("g", "return g.mul(2)")).unwrap();
    let b = a.mul(3.0.into()).unwrap();
    b.backward(JsValue::UNDEFINED, JsValue::UNDEFINED).unwrap();
    // d(3a)/da = 3, doubled by the hook.
    assert_eq!(grad_item(&a), 6.0);
}

#[wasm_bindgen_test]
fn tensors_given_to_hooks_stay_valid_after_backward() {
    set_global("__stored", js_sys::Array::new().into());
    let a = leaf(2.0);
    let b = leaf(5.0);
    let c = a.mul(b.add(0.0.into()).unwrap().into()).unwrap();
    c.register_hook(f("g", "globalThis.__stored.push(g)"))
        .unwrap();
    a.register_hook(f("g", "globalThis.__stored.push(g)"))
        .unwrap();
    c.backward(JsValue::UNDEFINED, JsValue::UNDEFINED).unwrap();
    assert_eq!(eval_num("globalThis.__stored.length"), 2.0);
    assert_eq!(eval_num("globalThis.__stored[0].item()"), 1.0);
    assert_eq!(eval_num("globalThis.__stored[1].item()"), 5.0);
    // Still usable for new computations.
    assert_eq!(eval_num("globalThis.__stored[1].mul(2).item()"), 10.0);
}

#[wasm_bindgen_test]
fn hooks_may_reenter_the_engine_with_a_nested_backward() {
    let x = leaf(1.0);
    // Built before: inside backward grad mode is off, so (as in PyTorch) a
    // hook cannot record a new graph, but it can run backward on one.
    set_global("__y", x.mul(5.0.into()).unwrap().into());
    set_global("__x", x.into());
    let a = leaf(3.0);
    // The hook runs a whole other backward pass (x*5 → x.grad = 5).
    a.register_hook(f(
        "g",
        "globalThis.__y.backward(); return g.add(globalThis.__x.grad)",
    ))
    .unwrap();
    let b = a.mul(2.0.into()).unwrap();
    b.backward(JsValue::UNDEFINED, JsValue::UNDEFINED).unwrap();
    assert_eq!(eval_num("globalThis.__x.grad.item()"), 5.0);
    assert_eq!(grad_item(&a), 7.0);
}

#[wasm_bindgen_test]
fn hook_reading_grads_and_graph_midpass_works() {
    let a = leaf(2.0);
    set_global("__a", a.mul(1.0.into()).unwrap().into());
    let b = leaf(4.0);
    let c = b.mul(3.0.into()).unwrap();
    c.register_hook(f(
        "g",
        "globalThis.__graph = JSON.stringify(globalThis.hgGraphProbe ? 1 : 0); return g",
    ))
    .unwrap();
    c.backward(JsValue::UNDEFINED, JsValue::UNDEFINED).unwrap();
    assert_eq!(grad_item(&b), 3.0);
    let g = hg::graph(c.into()).unwrap();
    let json = String::from(js_sys::JSON::stringify(&g).unwrap());
    assert!(
        json.contains("\"MulBackward0\"") && json.contains("\"AccumulateGrad\""),
        "{json}"
    );
}

#[wasm_bindgen_test]
fn errors_are_js_errors_and_nothing_traps() {
    let a = leaf(1.0);
    let e = a.add("x".into()).err().unwrap();
    assert_eq!(
        message(&e),
        "add(): argument 'other' (position 1) must be Tensor or number, not string"
    );
    canary();

    let v = hg::tensor(js_sys::JSON::parse("[1,2,3]").unwrap(), JsValue::UNDEFINED).unwrap();
    let e = v.item().err().unwrap();
    assert_eq!(
        message(&e),
        "a Tensor with 3 elements cannot be converted to Scalar"
    );
    canary();

    let e = hg::set_semantics("pytorch-3".into()).err().unwrap();
    assert!(message(&e).contains("'pytorch-2' or 'pytorch-1'"));
    canary();
}

#[wasm_bindgen_test]
fn throwing_hook_aborts_backward_with_its_message_and_engine_survives() {
    let a = leaf(1.0);
    a.set_name("a".into()).unwrap();
    a.register_hook(f("g", "throw new Error('boom')")).unwrap();
    let b = a.mul(2.0.into()).unwrap();
    let e = b
        .backward(JsValue::UNDEFINED, JsValue::UNDEFINED)
        .err()
        .unwrap();
    let m = message(&e);
    assert!(m.contains("boom") && m.contains("tensor 'a'"), "{m}");
    canary();
    // A second backward on a fresh graph through the same tensor still fails
    // cleanly (the hook is still there), and the engine keeps working.
    assert!(a
        .mul(3.0.into())
        .unwrap()
        .backward(JsValue::UNDEFINED, JsValue::UNDEFINED)
        .is_err());
    canary();
}

#[wasm_bindgen_test]
fn hook_returning_wrong_shape_or_type_is_an_error() {
    let a = hg::tensor(js_sys::JSON::parse("[1,2]").unwrap(), {
        let o = Object::new();
        Reflect::set(&o, &"requiresGrad".into(), &true.into()).unwrap();
        o.into()
    })
    .unwrap();
    let h = a.register_hook(f("g", "return g.sum()")).unwrap();
    let s = a
        .mul(2.0.into())
        .unwrap()
        .sum(JsValue::UNDEFINED, JsValue::UNDEFINED)
        .unwrap();
    let e = s
        .backward(JsValue::UNDEFINED, JsValue::UNDEFINED)
        .err()
        .unwrap();
    // `new Function` names its function 'anonymous'; PyTorch prints the hook's __name__.
    assert_eq!(
        message(&e),
        "hook 'anonymous' has changed the size of value"
    );
    h.remove();
    a.register_hook(f("g", "return 'not a tensor'")).unwrap();
    let s = a
        .mul(2.0.into())
        .unwrap()
        .sum(JsValue::UNDEFINED, JsValue::UNDEFINED)
        .unwrap();
    let e = s
        .backward(JsValue::UNDEFINED, JsValue::UNDEFINED)
        .err()
        .unwrap();
    assert!(
        message(&e).contains("expected Tensor or None (got string)"),
        "{}",
        message(&e)
    );
    canary();
}

#[wasm_bindgen_test]
fn non_function_hook_is_a_type_error() {
    let a = leaf(1.0);
    let e = a.register_hook(42.0.into()).err().unwrap();
    assert_eq!(
        message(&e),
        "registerHook(): hook must be a function, not number"
    );
    canary();
}

#[wasm_bindgen_test]
fn module_with_js_forward_and_legacy_hook_reports_last_node() {
    let m = hg::module::Module::new("Mul3".into(), f("a, b, c", "return a.mul(b).mul(c)")).unwrap();
    set_global("__seen", js_sys::Array::new().into());
    m.register_backward_hook(f(
        "m, gi, go",
        "globalThis.__seen.push(gi.map(t => t.item()))",
    ))
    .unwrap();
    let args = js_sys::Array::new();
    for v in [2.0, 3.0, 4.0] {
        args.push(&leaf(v).into());
    }
    let out = m.call_args(args.into()).unwrap();
    let out: JsValue = out;
    let backward = Reflect::get(&out, &"backward".into())
        .unwrap()
        .dyn_into::<Function>()
        .unwrap();
    backward.call0(&out).unwrap();
    // Legacy hook sees the last MulBackward0: (c, a*b) = (4, 6).
    assert_eq!(eval_num("globalThis.__seen[0][0]"), 4.0);
    assert_eq!(eval_num("globalThis.__seen[0][1]"), 6.0);
    canary();
}

#[wasm_bindgen_test]
fn trace_returns_plain_events_even_when_fn_throws() {
    let a = leaf(1.0);
    a.register_hook(f("g", "throw new Error('inside')"))
        .unwrap();
    set_global("__b", a.mul(2.0.into()).unwrap().into());
    let events = hg::trace(f("", "globalThis.__b.backward()")).unwrap();
    let json = String::from(js_sys::JSON::stringify(&events).unwrap());
    assert!(
        json.contains("\"type\":\"error\"") && json.contains("inside"),
        "{json}"
    );
    canary();
}
