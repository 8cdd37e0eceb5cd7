//! JS ⇄ core conversions and errors (tensor data and shapes: data.rs,
//! re-exported here). Every failure here is a JS `Error`
//! (never a trap); a Tensor argument is recognised by the table id its
//! object holds (crate/js: `__hgTensor`, 0 once released).

use std::rc::Rc;

use js_sys::{Array as JsArray, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use hookgrad_core::error::Error;
use hookgrad_core::module::Value;
use hookgrad_core::ops::Operand;
use hookgrad_core::tensor::Tensor;

pub use crate::data::*;

hookgrad_core::thread_refcell!(
    /// What the last JS call made by the engine (a hook) threw, if it threw.
    /// The engine rethrows a hook's exception in PyTorch's words and keeps only
    /// its message; the original goes on the new Error as `cause`, so a page
    /// can show where in the hook it was thrown (its stack). Written on every
    /// hook call: a plain static in the wasm.
    static HOOK_THROW: Option<JsValue> = None;
);

/// Records what a JS call threw (`None`: it returned) — see `HOOK_THROW`.
pub fn note_js_call(thrown: Option<&JsValue>) {
    HOOK_THROW.with(|t| {
        if let Ok(mut t) = t.try_borrow_mut() {
            *t = thrown.cloned();
        }
    });
}

pub fn js_error(e: Error) -> JsValue {
    let err = js_sys::Error::new(e.message());
    err.set_name(e.kind());
    // A user hook raised (the error names the failed hook, as the trace's
    // error event does): the hook's own exception becomes `cause`.
    if e.failed_hook().is_some() {
        let thrown = HOOK_THROW.with(|t| t.try_borrow_mut().ok().and_then(|mut t| t.take()));
        if let Some(thrown) = thrown {
            let _ = js_sys::Reflect::set(&err, &JsValue::from_str("cause"), &thrown);
        }
    }
    err.into()
}

pub fn type_error(msg: impl Into<String>) -> JsValue {
    js_error(Error::type_error(msg))
}

pub type JsResult<T> = Result<T, JsValue>;

pub trait IntoJs<T> {
    fn js(self) -> JsResult<T>;
}

impl<T> IntoJs<T> for hookgrad_core::error::Result<T> {
    /// Also fails when an internal fault was recorded during the call (an
    /// infallible accessor whose borrow failed: `hookgrad_core::error::fault`).
    fn js(self) -> JsResult<T> {
        hookgrad_core::error::checked(self).map_err(js_error)
    }
}

#[wasm_bindgen]
extern "C" {
    /// ECMAScript's `String(n)` of a number: its shortest round-trip digits.
    #[wasm_bindgen(js_name = String)]
    fn js_number_string(n: f64) -> String;
}

/// Rust's `format!("{n}")` (what these messages always printed), with the
/// digits from JS: core's float printing is ~11 KB of wasm (issue 10, W5).
pub fn number_text(n: f64) -> String {
    let shortest = if n.is_finite() && n != 0.0 {
        js_number_string(n.abs())
    } else {
        String::new()
    };
    hookgrad_core::repr::decimal::plain(n, &shortest)
}

/// The message of a thrown JS value, or a value shown in a message: an
/// Error's `.message`, a string as is, numbers/booleans as JS prints them,
/// anything else by its type name (never Rust's Debug text).
pub fn js_message(v: &JsValue) -> String {
    if let Some(e) = v.dyn_ref::<js_sys::Error>() {
        return String::from(e.message());
    }
    if let Some(s) = v.as_string() {
        return s;
    }
    if let Some(n) = v.as_f64() {
        return number_text(n);
    }
    if let Some(b) = v.as_bool() {
        return b.to_string();
    }
    if v.is_undefined() {
        return "undefined".into();
    }
    if v.is_null() {
        return "null".into();
    }
    format!("a thrown {}", type_name(v))
}

pub fn type_name(v: &JsValue) -> String {
    if v.is_null() {
        "null".into()
    } else if v.is_undefined() {
        "undefined".into()
    } else if JsArray::is_array(v) {
        "Array".into()
    } else if v.is_object() {
        Reflect::get(v, &"constructor".into())
            .ok()
            .and_then(|c| Reflect::get(&c, &"name".into()).ok())
            .and_then(|n| n.as_string())
            .unwrap_or_else(|| "object".into())
    } else {
        v.js_typeof().as_string().unwrap_or_else(|| "value".into())
    }
}

/// The core tensor behind a JS `Tensor`, or None for anything else. Benign
/// `.ok()`: callers only ask "is this a tensor?" and then report a bad
/// argument in PyTorch's words; no value is made up from the failure.
pub fn as_tensor(v: &JsValue) -> Option<Tensor> {
    tensor_arg(v).ok().flatten()
}

/// Like `as_tensor`, but a released handle (`dispose()`, `hg.tidy`) is the
/// facade's "this tensor handle was released" error, not "not a Tensor".
pub fn tensor_arg(v: &JsValue) -> JsResult<Option<Tensor>> {
    if !v.is_object() {
        return Ok(None);
    }
    match handle_id(v, Kind::Tensor) {
        None => Ok(None),
        Some(id) => crate::table::tensor(id)
            .unwrap_or_else(|| Err(crate::table::released("tensor")))
            .js()
            .map(Some),
    }
}

#[wasm_bindgen]
extern "C" {
    /// Any JS object, asked for the id a facade handle holds.
    type MaybeHandle;
    #[wasm_bindgen(method, getter, structural, catch, js_name = __hgTensor)]
    fn hg_tensor(this: &MaybeHandle) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, getter, structural, catch, js_name = __hgNode)]
    fn hg_node(this: &MaybeHandle) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, getter, structural, catch, js_name = __hgModule)]
    fn hg_module(this: &MaybeHandle) -> Result<JsValue, JsValue>;
}

/// The kinds of handle a JS object can be.
#[derive(Clone, Copy)]
pub enum Kind {
    Tensor,
    Node,
    Module,
}

/// The table id a facade handle of `kind` holds (0: released), or `None`
/// for any other value (a getter that throws, on a hostile Proxy, too).
pub fn handle_id(v: &JsValue, kind: Kind) -> Option<u32> {
    let m = v.unchecked_ref::<MaybeHandle>();
    let id = match kind {
        Kind::Tensor => m.hg_tensor(),
        Kind::Node => m.hg_node(),
        Kind::Module => m.hg_module(),
    }
    .ok()?
    .as_f64()?;
    (id >= 0.0 && id <= f64::from(u32::MAX) && id.fract() == 0.0).then_some(id as u32)
}

/// The core module behind a JS `Module` argument; `what must be Module` else.
pub fn expect_module(v: &JsValue, what: &str) -> JsResult<hookgrad_core::module::Module> {
    match v.is_object().then(|| handle_id(v, Kind::Module)).flatten() {
        Some(id) => {
            crate::table::module(id).ok_or_else(|| js_error(crate::table::released("module")))
        }
        None => Err(type_error(format!(
            "{what} must be Module, not {}",
            type_name(v)
        ))),
    }
}

pub fn expect_tensor(v: &JsValue, what: &str) -> JsResult<Tensor> {
    tensor_arg(v)?.ok_or_else(|| type_error(format!("{what} must be Tensor, not {}", type_name(v))))
}

pub fn operand(v: &JsValue, op: &str) -> JsResult<Operand> {
    if let Some(n) = v.as_f64() {
        return Ok(Operand::Scalar(n as f32));
    }
    if let Some(t) = tensor_arg(v)? {
        return Ok(Operand::Tensor(t));
    }
    Err(type_error(format!(
        "{op}(): argument 'other' (position 1) must be Tensor or number, not {}",
        type_name(v)
    )))
}

/// A new JS Tensor handle of `t`.
pub fn tensor_to_js(t: Tensor) -> JsValue {
    crate::facade::tensor_object(crate::table::put_tensor(t))
}

pub fn opt_tensors_to_js(v: &[Option<Tensor>]) -> JsValue {
    v.iter()
        .map(|t| t.clone().map(tensor_to_js).unwrap_or(JsValue::NULL))
        .collect::<JsArray>()
        .into()
}

/// A hook's returned list: `undefined`/`null` → keep, else an array of
/// Tensor-or-null.
pub fn js_to_opt_tensors(
    v: &JsValue,
    hook: &str,
) -> hookgrad_core::error::Result<Option<Vec<Option<Tensor>>>> {
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    if !JsArray::is_array(v) {
        return Err(Error::type_error(format!(
            "hook '{hook}' must return an array of Tensors (or null entries), or nothing; got {}",
            type_name(v)
        )));
    }
    JsArray::from(v)
        .iter()
        .map(|x| {
            if x.is_null() || x.is_undefined() {
                Ok(None)
            } else {
                tensor_arg(&x)
                    .map_err(|e| Error::runtime(js_message(&e)))?
                    .map(Some)
                    .ok_or_else(|| {
                        Error::type_error(format!(
                            "hook '{hook}' returned an array holding {}, expected Tensor or null",
                            type_name(&x)
                        ))
                    })
            }
        })
        .collect::<hookgrad_core::error::Result<Vec<_>>>()
        .map(Some)
}

/// JS value → module `Value` (arrays become tuples, plain objects dicts).
pub fn js_to_value(v: &JsValue) -> Value {
    if v.is_undefined() || v.is_null() {
        return Value::None;
    }
    if let Some(t) = as_tensor(v) {
        return Value::Tensor(t);
    }
    if JsArray::is_array(v) {
        return Value::Tuple(JsArray::from(v).iter().map(|x| js_to_value(&x)).collect());
    }
    if let Some(obj) = v.dyn_ref::<Object>() {
        let proto = Object::get_prototype_of(obj);
        if proto.is_null() || proto == Object::get_prototype_of(&Object::new()) {
            let entries = Object::entries(obj)
                .iter()
                .filter_map(|e| {
                    let pair = JsArray::from(&e);
                    pair.get(0)
                        .as_string()
                        .map(|k| (k, js_to_value(&pair.get(1))))
                })
                .collect();
            return Value::Dict(entries);
        }
    }
    Value::Opaque(Rc::new(v.clone()))
}

pub fn value_to_js(v: &Value) -> JsValue {
    match v {
        Value::Tensor(t) => tensor_to_js(t.clone()),
        Value::Tuple(items) => items.iter().map(value_to_js).collect::<JsArray>().into(),
        Value::Dict(entries) => {
            let obj = Object::new();
            for (k, x) in entries {
                let _ = Reflect::set(&obj, &k.into(), &value_to_js(x));
            }
            obj.into()
        }
        Value::None => JsValue::UNDEFINED,
        Value::Opaque(any) => any
            .downcast_ref::<JsValue>()
            .cloned()
            .unwrap_or(JsValue::UNDEFINED),
    }
}

pub fn values_to_js(values: &[Value]) -> JsValue {
    values.iter().map(value_to_js).collect::<JsArray>().into()
}

/// `opts` must be undefined, null or an object.
pub fn check_opts(opts: &JsValue, fn_name: &str) -> JsResult<()> {
    if opts.is_undefined() || opts.is_null() || (opts.is_object() && !JsArray::is_array(opts)) {
        Ok(())
    } else {
        Err(type_error(format!(
            "{fn_name}: options must be an object, not {}",
            type_name(opts)
        )))
    }
}

pub fn tensors_from_js(v: &JsValue, what: &str) -> JsResult<Vec<Tensor>> {
    if JsArray::is_array(v) {
        JsArray::from(v)
            .iter()
            .map(|x| expect_tensor(&x, what))
            .collect()
    } else {
        Ok(vec![expect_tensor(v, what)?])
    }
}

pub fn function(v: &JsValue, what: &str) -> JsResult<js_sys::Function> {
    v.dyn_ref::<js_sys::Function>()
        .cloned()
        .ok_or_else(|| type_error(format!("{what} must be a function, not {}", type_name(v))))
}
