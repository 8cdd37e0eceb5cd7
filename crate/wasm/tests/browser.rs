//! The binding layer in headless Chromium (wasm-bindgen-test): JS closures as
//! hooks, re-entrancy, errors arriving as JS `Error`s, no trap after errors,
//! tensors handed to hooks staying valid. Expected values are hand-computed.
//!
//! The package's facade (crate/js) cannot be loaded here, so `connect`
//! gets a small one of the same shape (crate/wasm/src/facade.rs): its
//! Tensor objects hold a table id and call the flat exports through `H`,
//! closures over them.

#![cfg(target_arch = "wasm32")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use hookgrad as hg;
use js_sys::{Function, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const FACADE: &str = r#"
const T = (id) => ({
  __hg: id,
  get __hgTensor() { return this.__hg; },
  mul(x) { return T(H.op('mul', id, x)); },
  add(x) { return T(H.op('add', id, x)); },
  sum() { return T(H.op('sum', id, undefined)); },
  item() { return H.op('item', id, undefined); },
  backward() { H.op('backward', id, undefined); },
  get grad() { const g = H.op('grad', id, undefined); return g === 0 ? null : T(g); },
});
let kept;
return {
  tensor: T,
  node: (id) => ({ __hg: id, get __hgNode() { return this.__hg; } }),
  module: (id) => ({ __hg: id, get __hgModule() { return this.__hg; } }),
  handle: (n) => ({ id: n % 4294967296, slot: Math.floor(n / 4294967296) }),
  callTensorHook(f, id) {
    try {
      const r = f(T(id));
      if (r === undefined || r === null) return 0;
      if (r.__hgTensor > 0) return r.__hgTensor;
      kept = r;
      return -1;
    } catch (e) { kept = e; return -2; }
  },
  call(f, a, b, c, n) {
    try {
      const r = n === 1 ? f(a) : n === 2 ? f(a, b) : n === 3 ? f(a, b, c) : n === 0 ? f() : f(...a);
      if (r === undefined || r === null) return 0;
      kept = r;
      return 1;
    } catch (e) { kept = e; return -2; }
  },
  take() { const v = kept; kept = undefined; return v; },
};
"#;

/// `H.op(name, id, arg)`: a number (a new id, a value), or throws.
fn op(name: String, id: u32, arg: JsValue) -> Result<JsValue, JsValue> {
    use hg::tensor as t;
    let n = |r: Result<u32, JsValue>| r.map(|v| JsValue::from_f64(f64::from(v)));
    match name.as_str() {
        "mul" => n(t::tensor_mul(id, arg)),
        "add" => n(t::tensor_add(id, arg)),
        "sum" => n(t::tensor_sum(id, JsValue::UNDEFINED, JsValue::UNDEFINED)),
        "item" => t::tensor_item(id).map(JsValue::from_f64),
        "backward" => t::tensor_backward(id, JsValue::UNDEFINED, JsValue::UNDEFINED)
            .map(|_| JsValue::UNDEFINED),
        "grad" => n(t::tensor_grad(id)),
        _ => Err(JsValue::from_str("unknown op")),
    }
}

fn connect() {
    thread_local!(static DONE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) });
    if DONE.with(|d| d.replace(true)) {
        return;
    }
    let h = Object::new();
    let f = Closure::<dyn Fn(String, u32, JsValue) -> Result<JsValue, JsValue>>::new(op);
    Reflect::set(&h, &"op".into(), f.as_ref()).unwrap();
    f.forget(); // once, for the whole run (the facade keeps calling it)
    let make = Function::new_with_args("H", FACADE);
    hg::facade::connect(make.call1(&JsValue::UNDEFINED, &h).unwrap());
}

fn f(args: &str, body: &str) -> JsValue {
    Function::new_with_args(args, body).into()
}

/// A tensor handle as the facade's object.
struct Tensor(JsValue);

impl Tensor {
    fn id(&self) -> u32 {
        Reflect::get(&self.0, &"__hg".into())
            .unwrap()
            .as_f64()
            .unwrap() as u32
    }
    fn made(id: Result<u32, JsValue>) -> Result<Tensor, JsValue> {
        id.map(|id| Tensor(hg::facade::tensor_object(id)))
    }
    fn mul(&self, x: JsValue) -> Result<Tensor, JsValue> {
        Tensor::made(hg::tensor::tensor_mul(self.id(), x))
    }
    fn add(&self, x: JsValue) -> Result<Tensor, JsValue> {
        Tensor::made(hg::tensor::tensor_add(self.id(), x))
    }
    fn sum(&self) -> Result<Tensor, JsValue> {
        Tensor::made(hg::tensor::tensor_sum(
            self.id(),
            JsValue::UNDEFINED,
            JsValue::UNDEFINED,
        ))
    }
    fn item(&self) -> Result<f64, JsValue> {
        hg::tensor::tensor_item(self.id())
    }
    fn backward(&self) -> Result<(), JsValue> {
        hg::tensor::tensor_backward(self.id(), JsValue::UNDEFINED, JsValue::UNDEFINED)
    }
    /// `registerHook(f)`: the handle's `(slot, id)`.
    fn register_hook(&self, f: JsValue) -> Result<(u32, u32), JsValue> {
        let is_fn = f.is_function();
        let n = hg::tensor::tensor_register_hook(self.id(), f, is_fn);
        if n == 0.0 {
            return Err(hg::fast_ops::take_error());
        }
        let id = n % 4_294_967_296.0;
        Ok((((n - id) / 4_294_967_296.0) as u32, id as u32))
    }
    fn grad_item(&self) -> f64 {
        let g = hg::tensor::tensor_grad(self.id()).unwrap();
        hg::tensor::tensor_item(g).unwrap()
    }
}

fn leaf(v: f64) -> Tensor {
    connect();
    let o = Object::new();
    Reflect::set(&o, &"requiresGrad".into(), &true.into()).unwrap();
    Tensor(hg::tensor(v.into(), o.into()).unwrap())
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

/// A canary computation that must keep working after any error.
fn canary() {
    let a = leaf(2.0);
    let b = a.mul(3.0.into()).unwrap();
    b.backward().unwrap();
    assert_eq!(a.grad_item(), 3.0);
}

#[wasm_bindgen_test]
fn js_closure_hook_replaces_gradient() {
    let a = leaf(2.0);
    a.register_hook(f("g", "return g.mul(2)")).unwrap();
    let b = a.mul(3.0.into()).unwrap();
    b.backward().unwrap();
    // d(3a)/da = 3, doubled by the hook.
    assert_eq!(a.grad_item(), 6.0);
}

#[wasm_bindgen_test]
fn tensors_given_to_hooks_stay_valid_after_backward() {
    set_global("__stored", js_sys::Array::new().into());
    let a = leaf(2.0);
    let b = leaf(5.0);
    let c = a.mul(b.add(0.0.into()).unwrap().0).unwrap();
    c.register_hook(f("g", "globalThis.__stored.push(g)"))
        .unwrap();
    a.register_hook(f("g", "globalThis.__stored.push(g)"))
        .unwrap();
    c.backward().unwrap();
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
    set_global("__y", x.mul(5.0.into()).unwrap().0);
    set_global("__x", x.0);
    let a = leaf(3.0);
    // The hook runs a whole other backward pass (x*5 → x.grad = 5).
    a.register_hook(f(
        "g",
        "globalThis.__y.backward(); return g.add(globalThis.__x.grad)",
    ))
    .unwrap();
    let b = a.mul(2.0.into()).unwrap();
    b.backward().unwrap();
    assert_eq!(eval_num("globalThis.__x.grad.item()"), 5.0);
    assert_eq!(a.grad_item(), 7.0);
}

#[wasm_bindgen_test]
fn graph_of_a_finished_backward_names_its_nodes() {
    let b = leaf(4.0);
    let c = b.mul(3.0.into()).unwrap();
    c.register_hook(f("g", "return g")).unwrap();
    c.backward().unwrap();
    assert_eq!(b.grad_item(), 3.0);
    let g = hg::graph(c.0).unwrap();
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

    let v =
        Tensor(hg::tensor(js_sys::JSON::parse("[1,2,3]").unwrap(), JsValue::UNDEFINED).unwrap());
    let e = v.item().err().unwrap();
    assert_eq!(
        message(&e),
        "a Tensor with 3 elements cannot be converted to Scalar"
    );
    canary();

    let e = hg::set_semantics("pytorch-3".into()).err().unwrap();
    assert!(message(&e).contains("'pytorch-2' or 'pytorch-1'"));
    canary();

    // A released id (the table's empty slot) is an error, never another tensor.
    let gone = leaf(5.0);
    let id = gone.id();
    hg::fast_ops::release_handle(id);
    let e = hg::tensor::tensor_item(id).err().unwrap();
    assert!(
        message(&e).contains("handle was released"),
        "{}",
        message(&e)
    );
    canary();
}

#[wasm_bindgen_test]
fn throwing_hook_aborts_backward_with_its_message_and_engine_survives() {
    let a = leaf(1.0);
    hg::tensor::tensor_set_name(a.id(), "a".into()).unwrap();
    a.register_hook(f("g", "throw new Error('boom')")).unwrap();
    let b = a.mul(2.0.into()).unwrap();
    let e = b.backward().err().unwrap();
    let m = message(&e);
    assert!(m.contains("boom") && m.contains("tensor 'a'"), "{m}");
    canary();
    // A second backward on a fresh graph through the same tensor still fails
    // cleanly (the hook is still there), and the engine keeps working.
    assert!(a.mul(3.0.into()).unwrap().backward().is_err());
    canary();
}

#[wasm_bindgen_test]
fn hook_returning_wrong_shape_or_type_is_an_error() {
    connect();
    let a = Tensor(
        hg::tensor(js_sys::JSON::parse("[1,2]").unwrap(), {
            let o = Object::new();
            Reflect::set(&o, &"requiresGrad".into(), &true.into()).unwrap();
            o.into()
        })
        .unwrap(),
    );
    let (slot, id) = a.register_hook(f("g", "return g.sum()")).unwrap();
    let s = a.mul(2.0.into()).unwrap().sum().unwrap();
    let e = s.backward().err().unwrap();
    // `new Function` names its function 'anonymous'; PyTorch prints the hook's __name__.
    assert_eq!(
        message(&e),
        "hook 'anonymous' has changed the size of value"
    );
    hg::js_hook::handle_remove(slot, id);
    a.register_hook(f("g", "return 'not a tensor'")).unwrap();
    let s = a.mul(2.0.into()).unwrap().sum().unwrap();
    let e = s.backward().err().unwrap();
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
    connect();
    let m = hg::module::module_new("Mul3".into(), f("a, b, c", "return a.mul(b).mul(c)")).unwrap();
    set_global("__seen", js_sys::Array::new().into());
    hg::module::module_register_backward_hook(
        m,
        f("m, gi, go", "globalThis.__seen.push(gi.map(t => t.item()))"),
    )
    .unwrap();
    let args = js_sys::Array::new();
    for v in [2.0, 3.0, 4.0] {
        args.push(&leaf(v).0);
    }
    let out = Tensor(hg::module::module_call_args(m, args.into()).unwrap());
    out.backward().unwrap();
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
    set_global("__b", a.mul(2.0.into()).unwrap().0);
    let events = hg::trace(f("", "globalThis.__b.backward()")).unwrap();
    let json = String::from(js_sys::JSON::stringify(&events).unwrap());
    assert!(
        json.contains("\"type\":\"error\"") && json.contains("inside"),
        "{json}"
    );
    canary();
}
