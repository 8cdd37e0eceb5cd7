//! The option objects of the JS API as typed structs (the typed seam's last
//! part: issue 8 item 9). Each struct's fields are read by name from the JS
//! object (`Reflect.get`: a getter or an inherited property counts, unknown
//! keys are ignored); `null` / `undefined` / a missing key is the default.
//! Plain data is typed here; a field holding tensors or tensor data
//! (`inputs`, `gradOutputs`, `shape`) is kept as the JS value and converted
//! by convert.rs, so a Tensor handle is never copied.
//!
//! Hand-written instead of serde + serde-wasm-bindgen (issue 10, W5): the
//! derive and the generic deserializer were ~9 KB of the wasm for nine small
//! structs. `js_options!` declares a struct and its reader; the fields are
//! read, checked and converted in declaration order, which is the order the
//! API always validated them in: the first bad field throws its
//! PyTorch-/hookgrad-worded error (tests/node/options.test.mjs pins every
//! message). Each struct's doc comment names its interface in
//! crate/js/hookgrad.d.ts (`JS: Name`); options.test.mjs checks that the
//! fields match.

use js_sys::Array as JsArray;
use wasm_bindgen::prelude::*;

use hookgrad_core::multi_grad::Mode;
use hookgrad_core::ops::loss::Reduction;

use crate::convert::{js_error, js_message, type_error, type_name, JsResult};

/// An option object's reader (written by `js_options!`).
pub trait JsOptions: Default {
    /// Reads every field of the object `opts`, in declaration order.
    fn read_fields(opts: &JsValue, what: &str) -> JsResult<Self>;
}

/// `opts` (undefined, null or a plain object) as `T`; anything else, or a
/// field of the wrong type, is the Error the API always threw.
pub fn read<T: JsOptions>(opts: &JsValue, what: &str) -> JsResult<T> {
    if !is_options(opts, what)? {
        return Ok(T::default());
    }
    T::read_fields(opts, what)
}

/// Not generic (one copy for every option struct): `Ok(false)` for
/// undefined / null (all defaults), `Ok(true)` for an object to read.
fn is_options(opts: &JsValue, what: &str) -> JsResult<bool> {
    if opts.is_undefined() || opts.is_null() {
        return Ok(false);
    }
    if !opts.is_object() || JsArray::is_array(opts) {
        return Err(type_error(format!(
            "{what}: options must be an object, not {}",
            type_name(opts)
        )));
    }
    Ok(true)
}

/// The JS key of a Rust field: `requires_grad` → `requiresGrad` (ASCII:
/// `char::to_uppercase` would bring Unicode's case tables, ~1 KB of wasm).
fn camel_case(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let mut upper = false;
    for c in field.chars() {
        if c == '_' {
            upper = true;
        } else {
            out.push(if upper { c.to_ascii_uppercase() } else { c });
            upper = false;
        }
    }
    out
}

/// One field's value, `undefined` for a missing key (not generic).
pub fn field(opts: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(opts, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// How one field type is checked and converted. `v` is neither null nor
/// undefined (those are the default: `None`, or the JS value as is).
pub trait FieldValue: Sized {
    fn from_js(v: &JsValue, key: &str, what: &str) -> JsResult<Self>;
    fn absent(v: JsValue) -> Self;
}

/// A boolean: "option 'key' must be a boolean, not T".
impl FieldValue for Option<bool> {
    fn from_js(v: &JsValue, key: &str, _what: &str) -> JsResult<Self> {
        match v.as_bool() {
            Some(b) => Ok(Some(b)),
            None => Err(type_error(format!(
                "option '{key}' must be a boolean, not {}",
                type_name(v)
            ))),
        }
    }
    fn absent(_: JsValue) -> Self {
        None
    }
}

fn must_be_a_string(v: &JsValue, key: &str, what: &str) -> JsValue {
    type_error(format!(
        "{what}: {key} must be a string, not {}",
        type_name(v)
    ))
}

/// A string: "fn(): key must be a string, not T".
impl FieldValue for Option<String> {
    fn from_js(v: &JsValue, key: &str, what: &str) -> JsResult<Self> {
        v.as_string()
            .map(Some)
            .ok_or_else(|| must_be_a_string(v, key, what))
    }
    fn absent(_: JsValue) -> Self {
        None
    }
}

/// A number — the only one is `seed`: anything else is the same error as
/// a negative seed ("fn(): seed must be a non-negative number", thrown by
/// [`seed`] when the value is used).
impl FieldValue for Option<f64> {
    fn from_js(v: &JsValue, _key: &str, what: &str) -> JsResult<Self> {
        match v.as_f64() {
            Some(n) => Ok(Some(n)),
            None => seed(Some(f64::NAN), what).map(|_| None),
        }
    }
    fn absent(_: JsValue) -> Self {
        None
    }
}

/// Tensors or tensor data: the JS value itself (null and undefined too).
impl FieldValue for JsValue {
    fn from_js(v: &JsValue, _key: &str, _what: &str) -> JsResult<Self> {
        Ok(v.clone())
    }
    fn absent(v: JsValue) -> Self {
        v
    }
}

/// PyTorch's `reduction=`: a string, then one of 'none', 'mean', 'sum'.
impl FieldValue for Option<Reduction> {
    fn from_js(v: &JsValue, key: &str, what: &str) -> JsResult<Self> {
        let s = v
            .as_string()
            .ok_or_else(|| must_be_a_string(v, key, what))?;
        Reduction::parse(&s).map(Some).map_err(js_error)
    }
    fn absent(_: JsValue) -> Self {
        None
    }
}

/// `register_multi_grad_hook`'s `mode=`: 'all' or 'any' (anything else is
/// named as JS prints it).
impl FieldValue for Option<Mode> {
    fn from_js(v: &JsValue, _key: &str, _what: &str) -> JsResult<Self> {
        let s = v.as_string().unwrap_or_else(|| js_message(v));
        Mode::parse(&s).map(Some).map_err(js_error)
    }
    fn absent(_: JsValue) -> Self {
        None
    }
}

/// Reads one field of `opts`: checked and converted, or its default.
pub fn read_field<T: FieldValue>(opts: &JsValue, rust_name: &str, what: &str) -> JsResult<T> {
    let key = camel_case(rust_name);
    let v = field(opts, &key);
    if v.is_undefined() || v.is_null() {
        Ok(T::absent(v))
    } else {
        T::from_js(&v, &key, what)
    }
}

/// Declares an option struct and its [`JsOptions`] reader. The attribute
/// `#[rename_all = "camelCase"]` is required and says what the reader
/// does: field `requires_grad` is read from key `requiresGrad`. Fields are
/// read in declaration order (the order of their checks).
macro_rules! js_options {
    (
        $(#[doc = $doc:literal])*
        #[rename_all = "camelCase"]
        pub struct $name:ident {
            $(pub $field:ident: $ty:ty,)*
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Default)]
        pub struct $name {
            $(pub $field: $ty,)*
        }

        impl JsOptions for $name {
            fn read_fields(opts: &JsValue, what: &str) -> JsResult<Self> {
                $(let $field = read_field::<$ty>(opts, stringify!($field), what)?;)*
                Ok(Self { $($field,)* })
            }
        }
    };
}

/// A seed: a non-negative number (default 0); fractions are truncated.
pub fn seed(v: Option<f64>, what: &str) -> JsResult<u64> {
    match v {
        None => Ok(0),
        Some(n) if n.is_finite() && n >= 0.0 => Ok(n as u64),
        Some(_) => Err(type_error(format!(
            "{what}: seed must be a non-negative number"
        ))),
    }
}

/// `v` unless it is null / undefined (both mean "not given").
pub fn given(v: &JsValue) -> Option<&JsValue> {
    (!v.is_undefined() && !v.is_null()).then_some(v)
}

js_options! {
    /// JS: TensorOptions — `hg.zeros` / `hg.ones`.
    #[rename_all = "camelCase"]
    pub struct TensorOptions {
        pub name: Option<String>,
        pub requires_grad: Option<bool>,
    }
}

js_options! {
    /// JS: TensorDataOptions — `hg.tensor`. `shape` is read by
    /// `convert::parse_shape` (a number or an array of integers).
    #[rename_all = "camelCase"]
    pub struct TensorDataOptions {
        pub name: Option<String>,
        pub requires_grad: Option<bool>,
        pub shape: JsValue,
    }
}

js_options! {
    /// JS: RandnOptions — `hg.randn`.
    #[rename_all = "camelCase"]
    pub struct RandnOptions {
        pub name: Option<String>,
        pub requires_grad: Option<bool>,
        pub seed: Option<f64>,
    }
}

js_options! {
    /// JS: BackwardOptions — `t.backward(gradient, opts)`. `inputs` is a Tensor
    /// or an array of them (`convert::tensors_from_js`).
    #[rename_all = "camelCase"]
    pub struct BackwardOptions {
        pub create_graph: Option<bool>,
        pub retain_graph: Option<bool>,
        pub inputs: JsValue,
    }
}

js_options! {
    /// JS: GradOptions — `hg.grad(outputs, inputs, opts)`. `gradOutputs` holds
    /// Tensors or nested numbers (converted in lib.rs).
    #[rename_all = "camelCase"]
    pub struct GradOptions {
        pub create_graph: Option<bool>,
        pub retain_graph: Option<bool>,
        pub allow_unused: Option<bool>,
        pub grad_outputs: JsValue,
    }
}

js_options! {
    /// JS: KwargsHookOptions — a module's `register*Hook(hook, opts)`
    /// (`withKwargs` is read, and ignored, by the full backward hooks too).
    #[rename_all = "camelCase"]
    pub struct HookOptions {
        pub prepend: Option<bool>,
        pub with_kwargs: Option<bool>,
    }
}

js_options! {
    /// JS: CustomFunctionOptions — `hg.applyCustomFunction(name, args,
    /// outputs, backward, opts)`: `saved` and `nonDifferentiable` are Tensors
    /// (`convert::tensors_from_js`).
    #[rename_all = "camelCase"]
    pub struct CustomFunctionOptions {
        pub saved: JsValue,
        pub non_differentiable: JsValue,
        pub materialize_grads: Option<bool>,
    }
}

js_options! {
    /// JS: LinearOptions — `new hg.nn.Linear(in, out, opts)`.
    #[rename_all = "camelCase"]
    pub struct LinearOptions {
        pub bias: Option<bool>,
        pub seed: Option<f64>,
    }
}

js_options! {
    /// JS: MseLossOptions — `hg.nn.functional.mseLoss(input, target, opts)`.
    #[rename_all = "camelCase"]
    pub struct MseLossOptions {
        pub reduction: Option<Reduction>,
    }
}

js_options! {
    /// JS: MultiGradHookOptions — `hg.registerMultiGradHook(tensors, fn, opts)`.
    #[rename_all = "camelCase"]
    pub struct MultiGradHookOptions {
        pub mode: Option<Mode>,
    }
}

#[cfg(test)]
mod tests {
    use super::camel_case;

    #[test]
    fn rust_fields_become_js_keys() {
        assert_eq!(camel_case("requires_grad"), "requiresGrad");
        assert_eq!(camel_case("grad_outputs"), "gradOutputs");
        assert_eq!(camel_case("seed"), "seed");
    }
}
