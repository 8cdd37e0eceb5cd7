//! JS `Tensor` methods for what Python's operators and unpacking run:
//! `rsub` (`2 - t`), `reciprocal` (`2 / t` is `t.reciprocal() * 2`),
//! `permute` (`t.T`), `mT`, `unbind` (`a, b = t`, `for x in t`) and
//! `.data`. Each is conversion around one core call.

use js_sys::Array as JsArray;
use wasm_bindgen::prelude::*;

use crate::convert::*;
use crate::tensor::core;
use crate::tensor_ops::wrap;
use hookgrad_core::ops::views;

/// A dim: a whole number (a JS number that is not one is PyTorch's TypeError).
fn dim(n: f64, what: &str) -> JsResult<i64> {
    if n.is_finite() && n.fract() == 0.0 && n.abs() < 9.0e15 {
        Ok(n as i64)
    } else {
        Err(type_error(format!(
            "{what} must be an integer, not {}",
            number_text(n)
        )))
    }
}

/// `t.rsub(number)`: `number - t` (`RsubBackward1`, one edge).
#[wasm_bindgen]
pub fn tensor_rsub(id: u32, other: JsValue) -> JsResult<u32> {
    let s = other.as_f64().ok_or_else(|| {
        type_error(format!(
            "rsub(): argument 'other' (position 1) must be a number, not {}",
            type_name(&other)
        ))
    })?;
    wrap(core(id)?.rsub(s as f32))
}

/// `t.reciprocal()`: `1 / t` (`ReciprocalBackward0`).
#[wasm_bindgen]
pub fn tensor_reciprocal(id: u32) -> JsResult<u32> {
    wrap(core(id)?.reciprocal())
}

/// `t.permute(dims)`: a view with axis `dims[i]` as axis `i`
/// (`PermuteBackward0`).
#[wasm_bindgen]
pub fn tensor_permute(id: u32, dims: JsValue) -> JsResult<u32> {
    if !JsArray::is_array(&dims) {
        return Err(type_error(format!(
            "permute(): argument 'dims' (position 1) must be an array of integers, not {}",
            type_name(&dims)
        )));
    }
    let ds = JsArray::from(&dims)
        .iter()
        .map(|d| {
            dim(
                d.as_f64().unwrap_or(f64::NAN),
                "permute(): argument 'dims' entries",
            )
        })
        .collect::<JsResult<Vec<i64>>>()?;
    wrap(views::permute(&core(id)?, &ds))
}

/// `t.mT`: the last two dims swapped (`TransposeBackward0`); PyTorch's
/// error below 2-D.
#[wasm_bindgen]
pub fn tensor_m_t(id: u32) -> JsResult<u32> {
    let t = core(id)?;
    if t.ndim() < 2 {
        return Err(js_error(hookgrad_core::Error::runtime(format!(
            "tensor.mT is only supported on matrices or batches of matrices. Got {}-D tensor.",
            t.ndim()
        ))));
    }
    wrap(t.transpose(-2, -1))
}

/// `t.data`: PyTorch's `.data`, an alias with no history and a version
/// counter of its own (`t.detach()` shares `t`'s).
#[wasm_bindgen]
pub fn tensor_data(id: u32) -> JsResult<u32> {
    wrap(hookgrad_core::view::detached(&core(id)?, false))
}

/// `t.unbind(dim = 0)`: an array of views, outputs of one
/// `UnbindBackward0`.
#[wasm_bindgen]
pub fn tensor_unbind(id: u32, d: Option<f64>) -> JsResult<JsArray> {
    let d = dim(d.unwrap_or(0.0), "unbind(): argument 'dim' (position 1)")?;
    let parts = views::unbind(&core(id)?, d).js()?;
    Ok(parts.into_iter().map(tensor_to_js).collect())
}
