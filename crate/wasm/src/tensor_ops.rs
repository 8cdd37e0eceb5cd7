//! The JS `Tensor` methods added for the Python mode (indexing, reductions
//! with indices, clamp, norm, pow with a tensor exponent, view, contiguous,
//! fill_, copy_): a second `#[wasm_bindgen] impl` block, each method four
//! lines of conversion around one core call.

use wasm_bindgen::prelude::*;

use crate::convert::*;
use crate::tensor::Tensor;
use hookgrad_core::ops::index;

/// An integer argument (`dim`, `index`, …); `None` when undefined or null.
pub(crate) fn opt_int(v: &JsValue, what: &str) -> JsResult<Option<i64>> {
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    match v.as_f64() {
        Some(n) if n.is_finite() && n.fract() == 0.0 && n.abs() < 9.0e15 => Ok(Some(n as i64)),
        _ => Err(type_error(format!(
            "{what} must be an integer, not {}",
            match v.as_f64() {
                Some(n) => number_text(n),
                None => type_name(v),
            }
        ))),
    }
}

/// An integer argument that must be given.
pub(crate) fn int(v: &JsValue, what: &str) -> JsResult<i64> {
    opt_int(v, what)?
        .ok_or_else(|| type_error(format!("{what} must be an integer, not {}", type_name(v))))
}

pub(crate) fn wrap(r: hookgrad_core::Result<hookgrad_core::Tensor>) -> JsResult<Tensor> {
    r.map(Tensor::wrap).js()
}

#[wasm_bindgen]
impl Tensor {
    /// `t.select(dim, index)`: a view without `dim` (`SelectBackward0`).
    pub fn select(&self, dim: JsValue, index: JsValue) -> JsResult<Tensor> {
        let d = int(&dim, "select(): argument 'dim' (position 1)")?;
        let i = int(&index, "select(): argument 'index' (position 2)")?;
        wrap(index::select(&self.core().js()?, d, i))
    }

    /// `t.slice(dim = 0, start?, end?, step = 1)`: a view (`SliceBackward0`),
    /// bounds clamped like a Python slice's.
    pub fn slice(
        &self,
        dim: JsValue,
        start: JsValue,
        end: JsValue,
        step: JsValue,
    ) -> JsResult<Tensor> {
        let d = opt_int(&dim, "slice(): argument 'dim' (position 1)")?.unwrap_or(0);
        let s = opt_int(&start, "slice(): argument 'start' (position 2)")?;
        let e = opt_int(&end, "slice(): argument 'end' (position 3)")?;
        let st = opt_int(&step, "slice(): argument 'step' (position 4)")?.unwrap_or(1);
        wrap(index::slice(&self.core().js()?, d, s, e, st))
    }

    /// `t.index(indices)`: `t[indices]` for an array of integers (nested
    /// arrays allowed) or a Tensor of integer values, along dim 0
    /// (`IndexBackward0`, a copy).
    pub fn index(&self, indices: JsValue) -> JsResult<Tensor> {
        let (shape, values) = match as_tensor(&indices) {
            Some(t) => (t.shape(), t.to_array().js()?.into_vec()),
            None if js_sys::Array::is_array(&indices) => parse_data(&indices, None)?,
            None => {
                return Err(type_error(format!(
                    "index(): indices must be an array of integers or a Tensor, not {}",
                    type_name(&indices)
                )))
            }
        };
        let values: Vec<f64> = values.into_iter().map(f64::from).collect();
        wrap(index::index(&self.core().js()?, &values, &shape))
    }
}
