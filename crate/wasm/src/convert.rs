//! JS ⇄ core conversions and errors. Every failure here is a JS `Error`
//! (never a trap); a Tensor argument is recognised by the table id its
//! object holds (crate/js: `__hgTensor`, 0 once released).

use std::rc::Rc;

use js_sys::{Array as JsArray, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use hookgrad_core::error::Error;
use hookgrad_core::module::Value;
use hookgrad_core::ops::Operand;
use hookgrad_core::tensor::{Array, Tensor};

/// Largest tensor hookgrad will allocate (64 MB of float32): beyond this a
/// wasm allocation failure would abort the instance.
pub const MAX_ELEMENTS: usize = 1 << 24;

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
    // "… hook 'h' on tensor 'c' raised an error: …" (engine::hook_error):
    // the hook's own exception becomes `cause`.
    if e.message().contains(" raised an error: ") {
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

/// A shape: an array of non-negative integers with a bounded product.
pub fn parse_shape(v: &JsValue) -> JsResult<Vec<usize>> {
    let items: Vec<JsValue> = if let Some(n) = v.as_f64() {
        vec![JsValue::from_f64(n)]
    } else if JsArray::is_array(v) {
        JsArray::from(v).iter().collect()
    } else {
        return Err(type_error(format!(
            "shape must be an array of integers, not {}",
            type_name(v)
        )));
    };
    let mut shape = Vec::with_capacity(items.len());
    let mut numel: usize = 1;
    for d in items {
        let n = d.as_f64().ok_or_else(|| {
            type_error(format!(
                "shape entries must be integers, not {}",
                type_name(&d)
            ))
        })?;
        if !n.is_finite() || n.fract() != 0.0 {
            return Err(type_error(format!(
                "shape entries must be integers, got {}",
                number_text(n)
            )));
        }
        if n < 0.0 {
            return Err(js_error(Error::runtime(format!(
                "Trying to create tensor with negative dimension {}: {}",
                number_text(n),
                format_shape_f64(v)
            ))));
        }
        let d = n as usize;
        numel = numel.saturating_mul(d);
        if numel > MAX_ELEMENTS || d > MAX_ELEMENTS {
            return Err(js_error(Error::runtime(format!(
                "tensor of shape {} is too large for hookgrad (limit {MAX_ELEMENTS} elements)",
                format_shape_f64(v)
            ))));
        }
        shape.push(d);
    }
    Ok(shape)
}

/// A shape as PyTorch prints it in these messages: `[-1, 2]`; a bare number
/// `n` (`hg.zeros(-1)`) is the one-dimensional shape `[n]`, as in torch
/// (it was JsValue's Debug text, `JsValue(-1)`).
fn format_shape_f64(v: &JsValue) -> String {
    let parts: Vec<String> = if JsArray::is_array(v) {
        JsArray::from(v)
            .iter()
            .map(|d| d.as_f64().map(number_text).unwrap_or("?".into()))
            .collect()
    } else {
        vec![js_message(v)]
    };
    format!("[{}]", parts.join(", "))
}

/// Signed dims for `reshape` (-1 allowed).
pub fn parse_signed_shape(v: &JsValue) -> JsResult<Vec<i64>> {
    if !JsArray::is_array(v) {
        return Err(type_error(format!(
            "reshape(): shape must be an array of integers, not {}",
            type_name(v)
        )));
    }
    JsArray::from(v)
        .iter()
        .map(|d| match d.as_f64() {
            Some(n)
                if n.is_finite() && n.fract() == 0.0 && n >= -1.0 && n <= MAX_ELEMENTS as f64 =>
            {
                Ok(n as i64)
            }
            Some(n) if n.is_finite() && n.fract() == 0.0 && n < -1.0 => Err(js_error(
                Error::runtime(format!("invalid shape dimension {}", number_text(n))),
            )),
            _ => Err(type_error(format!(
                "reshape(): shape entries must be integers, got {}",
                js_message(&d)
            ))),
        })
        .collect()
}

/// Nested arrays / number / typed array (+ `{shape}`) → shape and values.
///
/// `{shape}` lays out a typed array's or a flat array's values (row-major;
/// the core checks their count). Nested arrays and numbers carry their own
/// shape: a `{shape}` beside them must be that shape — it was silently
/// ignored, so `tensor([[1, 2], [3, 4]], {shape: [4]})` looked like a reshape
/// that never happened.
pub fn parse_data(data: &JsValue, shape_opt: Option<JsValue>) -> JsResult<(Vec<usize>, Vec<f32>)> {
    let given = match shape_opt {
        Some(s) if !s.is_undefined() => Some(parse_shape(&s)?),
        _ => None,
    };
    let (inferred, values) = parse_values(data)?;
    match given {
        // One dimension: a flat array or a typed array (a number has none).
        Some(shape) if inferred.len() == 1 => Ok((shape, values)),
        Some(shape) if shape != inferred => Err(js_error(Error::runtime(format!(
            "tensor(): shape {} does not match the data's shape {}; {{shape}} lays out a typed \
             array or a flat array",
            hookgrad_core::shape::fmt_shape(&shape),
            hookgrad_core::shape::fmt_shape(&inferred)
        )))),
        _ => Ok((inferred, values)),
    }
}

fn is_typed_array(v: &JsValue) -> bool {
    v.is_object()
        && !JsArray::is_array(v)
        && Reflect::has(v, &"BYTES_PER_ELEMENT".into()).unwrap_or(false)
}

/// The data's own shape and values (a typed array is flat).
fn parse_values(data: &JsValue) -> JsResult<(Vec<usize>, Vec<f32>)> {
    if let Some(n) = data.as_f64() {
        return Ok((Vec::new(), vec![n as f32]));
    }
    if is_typed_array(data) {
        let values: Vec<f32> = js_sys::Float32Array::new(data).to_vec();
        return Ok((vec![values.len()], values));
    }
    if !JsArray::is_array(data) {
        return Err(type_error(format!(
            "tensor(): data must be a number, nested arrays of numbers, or a typed array, not {}",
            type_name(data)
        )));
    }
    let mut shape = Vec::new();
    // Infer the shape along the first elements, then check every element.
    let mut probe = data.clone();
    while JsArray::is_array(&probe) {
        let arr = JsArray::from(&probe);
        shape.push(arr.length() as usize);
        if arr.length() == 0 {
            break;
        }
        probe = arr.get(0);
    }
    let numel: usize = shape.iter().product();
    if numel > MAX_ELEMENTS {
        return Err(js_error(Error::runtime(format!(
            "tensor too large for hookgrad (limit {MAX_ELEMENTS} elements)"
        ))));
    }
    let mut values = Vec::with_capacity(numel);
    fill(data, &shape, 0, &mut values)?;
    Ok((shape, values))
}

fn fill(v: &JsValue, shape: &[usize], dim: usize, out: &mut Vec<f32>) -> JsResult<()> {
    if dim == shape.len() {
        let n = v.as_f64().ok_or_else(|| {
            type_error(format!(
                "tensor(): expected a number at dim {dim}, got {}",
                type_name(v)
            ))
        })?;
        out.push(n as f32);
        return Ok(());
    }
    if !JsArray::is_array(v) {
        return Err(type_error(format!(
            "expected sequence of length {} at dim {dim} (got {})",
            shape[dim],
            type_name(v)
        )));
    }
    let arr = JsArray::from(v);
    if arr.length() as usize != shape[dim] {
        return Err(js_error(Error::type_error(format!(
            "expected sequence of length {} at dim {dim} (got {})",
            shape[dim],
            arr.length()
        ))));
    }
    for item in arr.iter() {
        fill(&item, shape, dim + 1, out)?;
    }
    Ok(())
}

/// An array as nested JS arrays (a number for 0-d).
pub fn array_to_js(a: &Array) -> JsValue {
    fn rec(values: &[f32], shape: &[usize]) -> JsValue {
        match shape.split_first() {
            None => JsValue::from_f64(values.first().copied().unwrap_or(0.0) as f64),
            Some((&n, rest)) => {
                let stride: usize = rest.iter().product();
                let out = JsArray::new_with_length(n as u32);
                for i in 0..n {
                    let chunk = values.get(i * stride..(i + 1) * stride).unwrap_or(&[]);
                    out.set(i as u32, rec(chunk, rest));
                }
                out.into()
            }
        }
    }
    rec(a.as_slice(), a.shape())
}

pub fn opt_array_to_js(a: &Option<Array>) -> JsValue {
    a.as_ref().map(array_to_js).unwrap_or(JsValue::NULL)
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
