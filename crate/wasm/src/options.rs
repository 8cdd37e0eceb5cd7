//! The option objects of the JS API as typed structs (the typed seam's last
//! part: issue 8 item 9). serde-wasm-bindgen reads each struct's declared
//! fields by name from the JS object (a getter or an inherited property
//! counts, unknown keys are ignored as before); `null` / `undefined` / a
//! missing key is the default. Plain data is typed here; a field holding
//! tensors or tensor data (`inputs`, `gradOutputs`, `shape`) is kept as the
//! JS value (`serde_wasm_bindgen::preserve`) and converted by convert.rs, so
//! a Tensor handle is never copied.
//!
//! Errors: serde's own messages name no field ("invalid type: string, expected
//! a boolean"), so when serde rejects an object, `Checks` re-reads the fields
//! in the order the API always read them and throws the first one's
//! PyTorch-/hookgrad-worded error (tests/node/options.test.mjs pins every
//! message). Each struct's doc comment names its interface in
//! crate/js/hookgrad.d.ts (`JS: Name`); options.test.mjs checks that the
//! fields match.

use js_sys::Array as JsArray;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use wasm_bindgen::prelude::*;

use hookgrad_core::error::Error;
use hookgrad_core::multi_grad::Mode as CoreMode;
use hookgrad_core::ops::loss::Reduction as CoreReduction;

use crate::convert::{js_error, js_message, type_error, type_name, JsResult};

/// An option object's reader: its struct, plus how to word a rejection.
pub trait JsOptions: DeserializeOwned + Default {
    /// `(key, check)` in the order the fields were always validated.
    const CHECKS: &'static [(&'static str, Check)];
}

/// The precise check of one field (the value is neither null nor undefined).
#[derive(Clone, Copy)]
pub enum Check {
    /// "option 'key' must be a boolean, not T".
    Bool,
    /// "fn(): key must be a string, not T".
    Str,
    /// "fn(): seed must be a non-negative number".
    Seed,
    /// A string, then one of PyTorch's reductions.
    Reduction,
    /// One of `register_multi_grad_hook`'s modes.
    Mode,
}

/// `opts` (undefined, null or a plain object) as `T`; anything else, or a
/// field of the wrong type, is the Error the API always threw.
pub fn read<T: JsOptions>(opts: &JsValue, what: &str) -> JsResult<T> {
    if !is_options(opts, what)? {
        return Ok(T::default());
    }
    serde_wasm_bindgen::from_value(opts.clone()).map_err(|e| explain(T::CHECKS, opts, what, &e))
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

/// Why serde rejected `opts`: the first field whose check fails, in order.
fn explain(
    checks: &[(&str, Check)],
    opts: &JsValue,
    what: &str,
    serde_error: &serde_wasm_bindgen::Error,
) -> JsValue {
    for &(key, check) in checks {
        let v = js_sys::Reflect::get(opts, &key.into()).unwrap_or(JsValue::UNDEFINED);
        if v.is_undefined() || v.is_null() {
            continue;
        }
        if let Err(e) = check_field(&v, key, check, what) {
            return e;
        }
    }
    // Every field passed its check, yet serde refused: a fault of this file.
    js_error(Error::runtime(format!(
        "internal error: {what}: options rejected without a field at fault ({serde_error})"
    )))
}

fn check_field(v: &JsValue, key: &str, check: Check, what: &str) -> JsResult<()> {
    let must_be = |kind: &str| {
        type_error(format!(
            "{what}: {key} must be {kind}, not {}",
            type_name(v)
        ))
    };
    match check {
        Check::Bool if v.as_bool().is_none() => Err(type_error(format!(
            "option '{key}' must be a boolean, not {}",
            type_name(v)
        ))),
        Check::Str if v.as_string().is_none() => Err(must_be("a string")),
        // Not a number at all: the same error as a negative one.
        Check::Seed => seed(Some(v.as_f64().unwrap_or(f64::NAN)), what).map(|_| ()),
        Check::Reduction => match v.as_string() {
            None => Err(must_be("a string")),
            Some(s) => CoreReduction::parse(&s).map(|_| ()).map_err(js_error),
        },
        Check::Mode => {
            let s = v.as_string().unwrap_or_else(|| js_message(v));
            CoreMode::parse(&s).map(|_| ()).map_err(js_error)
        }
        _ => Ok(()),
    }
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

/// JS: TensorOptions — `hg.zeros` / `hg.ones`.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct TensorOptions {
    pub requires_grad: Option<bool>,
    pub name: Option<String>,
}

impl JsOptions for TensorOptions {
    const CHECKS: &'static [(&'static str, Check)] =
        &[("name", Check::Str), ("requiresGrad", Check::Bool)];
}

/// JS: TensorDataOptions — `hg.tensor`. `shape` is read by
/// `convert::parse_shape` (a number or an array of integers).
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct TensorDataOptions {
    pub requires_grad: Option<bool>,
    pub name: Option<String>,
    #[serde(with = "serde_wasm_bindgen::preserve", default)]
    pub shape: JsValue,
}

impl JsOptions for TensorDataOptions {
    const CHECKS: &'static [(&'static str, Check)] =
        &[("name", Check::Str), ("requiresGrad", Check::Bool)];
}

/// JS: RandnOptions — `hg.randn`.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct RandnOptions {
    pub requires_grad: Option<bool>,
    pub name: Option<String>,
    pub seed: Option<f64>,
}

impl JsOptions for RandnOptions {
    const CHECKS: &'static [(&'static str, Check)] = &[
        ("name", Check::Str),
        ("requiresGrad", Check::Bool),
        ("seed", Check::Seed),
    ];
}

/// JS: BackwardOptions — `t.backward(gradient, opts)`. `inputs` is a Tensor
/// or an array of them (`convert::tensors_from_js`).
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct BackwardOptions {
    pub retain_graph: Option<bool>,
    #[serde(with = "serde_wasm_bindgen::preserve", default)]
    pub inputs: JsValue,
    pub create_graph: Option<bool>,
}

impl JsOptions for BackwardOptions {
    const CHECKS: &'static [(&'static str, Check)] =
        &[("createGraph", Check::Bool), ("retainGraph", Check::Bool)];
}

/// JS: GradOptions — `hg.grad(outputs, inputs, opts)`. `gradOutputs` holds
/// Tensors or nested numbers (converted in lib.rs).
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct GradOptions {
    #[serde(with = "serde_wasm_bindgen::preserve", default)]
    pub grad_outputs: JsValue,
    pub retain_graph: Option<bool>,
    pub allow_unused: Option<bool>,
    pub create_graph: Option<bool>,
}

impl JsOptions for GradOptions {
    const CHECKS: &'static [(&'static str, Check)] = &[
        ("createGraph", Check::Bool),
        ("retainGraph", Check::Bool),
        ("allowUnused", Check::Bool),
    ];
}

/// JS: KwargsHookOptions — a module's `register*Hook(hook, opts)`
/// (`withKwargs` is read, and ignored, by the full backward hooks too).
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct HookOptions {
    pub prepend: Option<bool>,
    pub with_kwargs: Option<bool>,
}

impl JsOptions for HookOptions {
    const CHECKS: &'static [(&'static str, Check)] =
        &[("prepend", Check::Bool), ("withKwargs", Check::Bool)];
}

/// JS: LinearOptions — `new hg.nn.Linear(in, out, opts)`.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct LinearOptions {
    pub bias: Option<bool>,
    pub seed: Option<f64>,
}

impl JsOptions for LinearOptions {
    const CHECKS: &'static [(&'static str, Check)] =
        &[("bias", Check::Bool), ("seed", Check::Seed)];
}

/// PyTorch's `reduction=` values.
#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
pub enum Reduction {
    None,
    Mean,
    Sum,
}

impl From<Reduction> for CoreReduction {
    fn from(r: Reduction) -> CoreReduction {
        match r {
            Reduction::None => CoreReduction::None,
            Reduction::Mean => CoreReduction::Mean,
            Reduction::Sum => CoreReduction::Sum,
        }
    }
}

/// JS: MseLossOptions — `hg.nn.functional.mseLoss(input, target, opts)`.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct MseLossOptions {
    pub reduction: Option<Reduction>,
}

impl JsOptions for MseLossOptions {
    const CHECKS: &'static [(&'static str, Check)] = &[("reduction", Check::Reduction)];
}

/// `register_multi_grad_hook`'s `mode=`.
#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    All,
    Any,
}

impl From<Mode> for CoreMode {
    fn from(m: Mode) -> CoreMode {
        match m {
            Mode::All => CoreMode::All,
            Mode::Any => CoreMode::Any,
        }
    }
}

/// JS: MultiGradHookOptions — `hg.registerMultiGradHook(tensors, fn, opts)`.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct MultiGradHookOptions {
    pub mode: Option<Mode>,
}

impl JsOptions for MultiGradHookOptions {
    const CHECKS: &'static [(&'static str, Check)] = &[("mode", Check::Mode)];
}
