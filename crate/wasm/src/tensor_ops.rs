//! The JS `Tensor` methods added for the Python mode (indexing, reductions
//! with indices, clamp, norm, pow with a tensor exponent, view, contiguous,
//! fill_, copy_): a second `#[wasm_bindgen] impl` block, each method a few
//! lines of conversion around one core call. Numbers come in as `f64` /
//! `Option<f64>` (`undefined` and `null` are `None`), not `JsValue`: a
//! smaller wasm; a value that is no number arrives as NaN and is refused.

use wasm_bindgen::prelude::*;

use crate::convert::*;
use crate::tensor::core;
use hookgrad_core::ops::index;

/// An integer argument (`dim`, `index`, …), `None` when not given.
fn opt_int(v: Option<f64>, what: &str) -> JsResult<Option<i64>> {
    match v {
        None => Ok(None),
        Some(n) if n.is_finite() && n.fract() == 0.0 && n.abs() < 9.0e15 => Ok(Some(n as i64)),
        Some(n) => Err(type_error(format!(
            "{what} must be an integer, not {}",
            number_text(n)
        ))),
    }
}

/// An integer argument that must be given.
fn int(v: f64, what: &str) -> JsResult<i64> {
    opt_int(Some(v), what).map(|i| i.unwrap_or(0))
}

/// A number argument, `None` when not given (NaN: not a number at all).
fn opt_number(v: Option<f64>, what: &str) -> JsResult<Option<f32>> {
    match v {
        Some(n) if n.is_nan() => Err(type_error(format!("{what} must be a number"))),
        v => Ok(v.map(|n| n as f32)),
    }
}

pub(crate) fn wrap(r: hookgrad_core::Result<hookgrad_core::Tensor>) -> JsResult<u32> {
    r.map(crate::table::put_tensor).js()
}

/// `t.select(dim, index)`: a view without `dim` (`SelectBackward0`).
#[wasm_bindgen]
pub fn tensor_select(id: u32, dim: f64, index: f64) -> JsResult<u32> {
    let d = int(dim, "select(): argument 'dim' (position 1)")?;
    let i = int(index, "select(): argument 'index' (position 2)")?;
    wrap(index::select(&core(id)?, d, i))
}

/// `t.slice(dim = 0, start?, end?, step = 1)`: a view (`SliceBackward0`),
/// bounds clamped like a Python slice's.
#[wasm_bindgen]
pub fn tensor_slice(
    id: u32,
    dim: Option<f64>,
    start: Option<f64>,
    end: Option<f64>,
    step: Option<f64>,
) -> JsResult<u32> {
    let d = opt_int(dim, "slice(): argument 'dim' (position 1)")?.unwrap_or(0);
    let s = opt_int(start, "slice(): argument 'start' (position 2)")?;
    let e = opt_int(end, "slice(): argument 'end' (position 3)")?;
    let st = opt_int(step, "slice(): argument 'step' (position 4)")?.unwrap_or(1);
    wrap(index::slice(&core(id)?, d, s, e, st))
}

/// `t.alias()`: a view of the whole tensor (`AliasBackward0`), what
/// PyTorch's `t[...]` / `t[:, :]` return.
#[wasm_bindgen]
pub fn tensor_alias(id: u32) -> JsResult<u32> {
    wrap(index::alias(&core(id)?))
}

/// `t.index(indices)`: `t[indices]` for an array of integers (nested
/// arrays allowed) or a Tensor of integer values, along dim 0
/// (`IndexBackward0`, a copy).
#[wasm_bindgen]
pub fn tensor_index(id: u32, indices: JsValue) -> JsResult<u32> {
    let idx = match as_tensor(&indices) {
        Some(t) => t,
        None if js_sys::Array::is_array(&indices) => {
            let (shape, values) = parse_data(&indices, None)?;
            hookgrad_core::Tensor::from_vec(&shape, values, &Default::default()).js()?
        }
        None => {
            return Err(type_error(format!(
                "index(): indices must be an array of integers or a Tensor, not {}",
                type_name(&indices)
            )))
        }
    };
    wrap(index::index(&core(id)?, &idx))
}

/// `{values, indices}` of `max(dim)` / `min(dim)`: both Tensors, the
/// indices float32 values without grad (hookgrad's tensors are float32).
fn values_indices(r: hookgrad_core::Result<(CoreTensor, CoreTensor)>) -> JsResult<JsValue> {
    let (v, i) = r.js()?;
    let o = js_sys::Object::new();
    js_sys::Reflect::set(&o, &"values".into(), &tensor_to_js(v))?;
    js_sys::Reflect::set(&o, &"indices".into(), &tensor_to_js(i))?;
    Ok(o.into())
}

use hookgrad_core::ops::{fill_copy, minmax, norm, shape_ops};
use hookgrad_core::tensor::Tensor as CoreTensor;

/// `t.pow(exponent)`: a number (`PowBackward0`) or a Tensor (`PowBackward1`).
pub(crate) fn pow(t: &CoreTensor, exponent: &JsValue) -> JsResult<u32> {
    if let Some(e) = as_tensor(exponent) {
        return wrap(hookgrad_core::ops::pow::pow_tensor(t, &e));
    }
    let e = exponent.as_f64().ok_or_else(|| {
        type_error(format!(
            "pow(): argument 'exponent' must be a number or a Tensor, not {}",
            type_name(exponent)
        ))
    })?;
    wrap(t.pow(e as f32))
}

/// `hg.pow(base, exponent)` (`torch.pow`): a number base over a Tensor
/// exponent is `PowBackward2`; a Tensor base is `base.pow(exponent)`.
#[wasm_bindgen(js_name = pow)]
pub fn pow_fn(base: JsValue, exponent: JsValue) -> JsResult<JsValue> {
    if let Some(b) = as_tensor(&base) {
        return pow(&b, &exponent).map(crate::facade::tensor_object);
    }
    let b = base.as_f64().ok_or_else(|| {
        type_error(format!(
            "pow(): argument 'self' must be a number or a Tensor, not {}",
            type_name(&base)
        ))
    })?;
    let e = expect_tensor(&exponent, "pow(): argument 'exponent' (position 2)")?;
    wrap(hookgrad_core::ops::pow::pow_number_base(b as f32, &e)).map(crate::facade::tensor_object)
}

/// `hg.nn.functional.linear(input, weight, bias?)`.
#[wasm_bindgen]
pub fn functional_linear(input: JsValue, weight: JsValue, bias: JsValue) -> JsResult<u32> {
    let x = expect_tensor(&input, "linear(): argument 'input' (position 1)")?;
    let w = expect_tensor(&weight, "linear(): argument 'weight' (position 2)")?;
    let b = if bias.is_undefined() || bias.is_null() {
        None
    } else {
        Some(expect_tensor(
            &bias,
            "linear(): argument 'bias' (position 3)",
        )?)
    };
    wrap(hookgrad_core::ops::linear::linear(&x, &w, b.as_ref()))
}

/// `t.max()` (a Tensor, `MaxBackward1`) or `t.max(dim, keepdim?)`
/// (`{values, indices}`, `MaxBackward0`).
#[wasm_bindgen]
pub fn tensor_max(id: u32, dim: Option<f64>, keepdim: Option<bool>) -> JsResult<JsValue> {
    extreme(id, dim, keepdim, true)
}

/// `t.min()` / `t.min(dim, keepdim?)`, as `max`.
#[wasm_bindgen]
pub fn tensor_min(id: u32, dim: Option<f64>, keepdim: Option<bool>) -> JsResult<JsValue> {
    extreme(id, dim, keepdim, false)
}

fn extreme(id: u32, dim: Option<f64>, keepdim: Option<bool>, max: bool) -> JsResult<JsValue> {
    let t = core(id)?;
    match opt_int(dim, "max() / min(): argument 'dim' (position 1)")? {
        None => wrap(minmax::extreme(&t, max)).map(crate::facade::tensor_object),
        Some(d) => {
            let keep = keepdim.unwrap_or(false);
            values_indices(minmax::extreme_dim(&t, d, keep, max))
        }
    }
}

/// `t.norm(p = 2, dim?, keepdim = false)` (`LinalgVectorNormBackward0`).
#[wasm_bindgen]
pub fn tensor_norm(
    id: u32,
    p: Option<f64>,
    dim: Option<f64>,
    keepdim: Option<bool>,
) -> JsResult<u32> {
    let p = opt_number(p, "norm(): argument 'p' (position 1)")?.unwrap_or(2.0);
    let d = opt_int(dim, "norm(): argument 'dim' (position 2)")?;
    let keep = keepdim.unwrap_or(false);
    wrap(norm::norm(&core(id)?, p, d, keep))
}

/// `t.clamp(min?, max?)` with number bounds (`ClampBackward1`).
#[wasm_bindgen]
pub fn tensor_clamp(id: u32, min: Option<f64>, max: Option<f64>) -> JsResult<u32> {
    let lo = opt_number(min, "clamp(): argument 'min' (position 1)")?;
    let hi = opt_number(max, "clamp(): argument 'max' (position 2)")?;
    wrap(norm::clamp(&core(id)?, lo, hi))
}

/// `t.view(shape)`: a view (`ViewBackward0`) or PyTorch's error.
#[wasm_bindgen]
pub fn tensor_view(id: u32, shape: JsValue) -> JsResult<u32> {
    wrap(shape_ops::view(&core(id)?, &parse_signed_shape(&shape)?))
}

/// `t.contiguous()`: itself when contiguous, else a copy (`CloneBackward0`).
#[wasm_bindgen]
pub fn tensor_contiguous(id: u32) -> JsResult<u32> {
    wrap(shape_ops::contiguous(&core(id)?))
}

/// `t.fill_(value)` (`FillBackward2`).
#[wasm_bindgen]
pub fn tensor_fill_(id: u32, value: f64) -> JsResult<u32> {
    let v = opt_number(Some(value), "fill_(): argument 'value' (position 1)")?.unwrap_or(0.0);
    wrap(fill_copy::fill_(&core(id)?, v))
}

/// `t.copy_(src)` (`CopyBackwards`; `src` broadcasts to `t`'s shape).
#[wasm_bindgen]
pub fn tensor_copy_(id: u32, src: JsValue) -> JsResult<u32> {
    let s = expect_tensor(&src, "copy_(): argument 'src' (position 1)")?;
    wrap(fill_copy::copy_(&core(id)?, &s))
}
