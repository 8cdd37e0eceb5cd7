//! What the binding calls back into the facade (crate/js/hookgrad.js,
//! `facade`): the JS objects for new handles, and the hook trampoline.
//!
//! A JS `Tensor` (`Node`, `Module`, `RemovableHandle`) is the facade's own
//! class holding an id into the table (`crate::table`); the binding makes
//! one with `tensor(id)` and friends wherever a value crosses to JS inside
//! a bigger value (an array, a hook's arguments, a module's output).
//! Exports that answer one handle answer its id instead, and the facade
//! wraps it: no call back.
//!
//! The trampoline: wasm-bindgen calls a JS function through an import
//! wrapped in `handleError` and hands every value over as a heap reference;
//! a hook's result then costs further calls to classify. The facade's
//! `callTensorHook`/`call` methods catch for themselves and answer with a
//! number, so these imports need no `catch`: a JS exception never unwinds
//! through wasm.

use js_sys::{Array as JsArray, Function};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use hookgrad_core::error::{Error, Result};

#[wasm_bindgen]
extern "C" {
    /// The facade's object, handed over once by `connect`.
    pub type Facade;
    #[wasm_bindgen(method, js_name = tensor)]
    fn make_tensor(this: &Facade, id: u32) -> JsValue;
    #[wasm_bindgen(method, js_name = node)]
    fn make_node(this: &Facade, id: u32) -> JsValue;
    #[wasm_bindgen(method, js_name = module)]
    fn make_module(this: &Facade, id: u32) -> JsValue;
    /// A RemovableHandle for `slot · 2^32 + id`.
    #[wasm_bindgen(method, js_name = handle)]
    fn make_handle(this: &Facade, slot_and_id: f64) -> JsValue;
    /// Calls `f(tensor(id))`; see [`Returned`].
    #[wasm_bindgen(method, js_name = callTensorHook)]
    fn call_tensor_hook(this: &Facade, f: &Function, id: u32) -> f64;
    /// Calls `f` with the first `n` of `a, b, c` (`n` = 4: `a` holds them
    /// all); see [`Returned`] (never `Tensor`).
    #[wasm_bindgen(method, js_name = call)]
    fn call_n(this: &Facade, f: &Function, a: &JsValue, b: &JsValue, c: &JsValue, n: u32) -> f64;
    /// Calls the host's key-hook dispatcher with `(key, id)` (crate::key_hook);
    /// answers as `callTensorHook`.
    #[wasm_bindgen(method, js_name = callKeyHook)]
    fn call_key_hook(this: &Facade, key: u32, id: u32) -> f64;
    /// The host's hook name at `index`.
    #[wasm_bindgen(method, js_name = keyHookName)]
    fn key_hook_name(this: &Facade, index: u32) -> String;
    /// The value or exception the last call kept (then forgets it).
    #[wasm_bindgen(method)]
    fn take(this: &Facade) -> JsValue;
}

hookgrad_core::one_per_thread!(
    /// Set once by the facade's `init`; never borrowed mutably after. A
    /// plain static in the wasm (read on every hook call).
    static FACADE: std::cell::OnceCell<Facade> = std::cell::OnceCell::new();
);

/// Called once by the facade (`init`) with its object.
#[wasm_bindgen]
pub fn connect(facade: JsValue) {
    FACADE.with(|c| {
        // A second call (a second init of the same instance) keeps the first.
        let _ = c.set(facade.unchecked_into());
    });
}

fn with_facade<R>(f: impl FnOnce(&Facade) -> R) -> Option<R> {
    // Re-entrant (a hook that runs a backward calls hooks again): a shared
    // reference into the cell, no borrow flag.
    FACADE.with(|c| c.get().map(f))
}

fn or_fault(v: Option<JsValue>) -> JsValue {
    v.unwrap_or_else(|| {
        hookgrad_core::error::fault(
            "the facade is not connected (load hookgrad.js, not hookgrad_core.js)",
        );
        JsValue::UNDEFINED
    })
}

/// A new JS Tensor for table entry `id`.
pub fn tensor_object(id: u32) -> JsValue {
    or_fault(with_facade(|f| f.make_tensor(id)))
}

pub fn node_object(id: u32) -> JsValue {
    or_fault(with_facade(|f| f.make_node(id)))
}

pub fn module_object(id: u32) -> JsValue {
    or_fault(with_facade(|f| f.make_module(id)))
}

pub fn handle_object(slot_and_id: f64) -> JsValue {
    or_fault(with_facade(|f| f.make_handle(slot_and_id)))
}

/// A trampoline call's answer.
pub enum Returned {
    /// `undefined` or `null`.
    Nothing,
    /// A live Tensor handle's id.
    Tensor(u32),
    /// Anything else, kept for `take()`.
    Value,
    /// It threw; the exception is kept for `take()`.
    Threw,
}

impl From<f64> for Returned {
    fn from(status: f64) -> Self {
        if status == 0.0 {
            Returned::Nothing
        } else if status == -2.0 {
            Returned::Threw
        } else if status >= 1.0 && status <= f64::from(u32::MAX) && status.fract() == 0.0 {
            Returned::Tensor(status as u32)
        } else {
            Returned::Value
        }
    }
}

/// `f(tensor(id))` through the trampoline: its answer, and what it kept
/// (the value or exception, for `Value` and `Threw`).
pub fn call_tensor_hook(f: &Function, id: u32) -> Result<(Returned, JsValue)> {
    with_facade(|t| answered(t, t.call_tensor_hook(f, id)))
        .ok_or_else(|| Error::internal("the facade is not connected"))
}

/// A trampoline call's status as its answer and what it kept.
fn answered(t: &Facade, status: f64) -> (Returned, JsValue) {
    let r = Returned::from(status);
    let kept = match r {
        Returned::Value | Returned::Threw => t.take(),
        _ => JsValue::UNDEFINED,
    };
    (r, kept)
}

/// The host's key-hook dispatcher called with `(key, id)`: as `call_tensor_hook`.
pub fn call_key_hook(key: u32, id: u32) -> Result<(Returned, JsValue)> {
    with_facade(|t| answered(t, t.call_key_hook(key, id)))
        .ok_or_else(|| Error::internal("the facade is not connected"))
}

/// The host's name of a key hook ("" when it has none).
pub fn key_hook_name(index: u32) -> String {
    with_facade(|t| t.key_hook_name(index)).unwrap_or_default()
}

/// `f(...args)` through the trampoline: what it returned, or its exception
/// as the core's error.
pub fn call(f: &Function, args: &[JsValue]) -> Result<JsValue> {
    let r = with_facade(|t| {
        let u = &JsValue::UNDEFINED;
        let status = match args {
            [] => t.call_n(f, u, u, u, 0),
            [a] => t.call_n(f, a, u, u, 1),
            [a, b] => t.call_n(f, a, b, u, 2),
            [a, b, c] => t.call_n(f, a, b, c, 3),
            _ => {
                let all: JsArray = args.iter().collect();
                t.call_n(f, &all, u, u, 4)
            }
        };
        match Returned::from(status) {
            Returned::Nothing => Ok(JsValue::UNDEFINED),
            Returned::Threw => Err(t.take()),
            _ => Ok(t.take()),
        }
    })
    .ok_or_else(|| Error::internal("the facade is not connected"))?;
    match r {
        Ok(v) => {
            crate::convert::note_js_call(None);
            Ok(v)
        }
        Err(e) => Err(thrown(&e)),
    }
}

/// A hook's exception as the core's error (its message; the exception
/// itself becomes the JS error's `cause`).
pub fn thrown(e: &JsValue) -> Error {
    crate::convert::note_js_call(Some(e));
    Error::runtime(crate::convert::js_message(e))
}
