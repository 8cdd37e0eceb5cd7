//! JS `Tensor` methods for what Python's operators and unpacking run:
//! `rsub` (`2 - t`), `reciprocal` (`2 / t` is `t.reciprocal() * 2`),
//! `permute` (`t.T`), `mT`, `unbind` (`a, b = t`, `for x in t`) and the
//! `.data`-style alias. Each is conversion around one core call.

use js_sys::Array as JsArray;
use wasm_bindgen::prelude::*;

use crate::convert::*;
use crate::tensor::Tensor;
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

#[wasm_bindgen]
impl Tensor {
    /// `t.rsub(number)`: `number - t` (`RsubBackward1`, one edge).
    pub fn rsub(&self, other: JsValue) -> JsResult<Tensor> {
        let s = other.as_f64().ok_or_else(|| {
            type_error(format!(
                "rsub(): argument 'other' (position 1) must be a number, not {}",
                type_name(&other)
            ))
        })?;
        wrap(self.core().js()?.rsub(s as f32))
    }

    /// `t.reciprocal()`: `1 / t` (`ReciprocalBackward0`).
    pub fn reciprocal(&self) -> JsResult<Tensor> {
        wrap(self.core().js()?.reciprocal())
    }

    /// `t.permute(dims)`: a view with axis `dims[i]` as axis `i`
    /// (`PermuteBackward0`).
    pub fn permute(&self, dims: JsValue) -> JsResult<Tensor> {
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
        wrap(views::permute(&self.core().js()?, &ds))
    }

    /// `t.mT`: the last two dims swapped (`TransposeBackward0`); PyTorch's
    /// error below 2-D.
    #[wasm_bindgen(getter, js_name = mT)]
    pub fn m_t(&self) -> JsResult<Tensor> {
        let t = self.core().js()?;
        if t.ndim() < 2 {
            return Err(js_error(hookgrad_core::Error::runtime(format!(
                "tensor.mT is only supported on matrices or batches of matrices. Got {}-D tensor.",
                t.ndim()
            ))));
        }
        wrap(t.transpose(-2, -1))
    }

    /// `t.unbind(dim = 0)`: an array of views, outputs of one
    /// `UnbindBackward0`.
    pub fn unbind(&self, d: Option<f64>) -> JsResult<JsArray> {
        let d = dim(d.unwrap_or(0.0), "unbind(): argument 'dim' (position 1)")?;
        let parts = views::unbind(&self.core().js()?, d).js()?;
        Ok(parts
            .into_iter()
            .map(|t| JsValue::from(Tensor::wrap(t)))
            .collect())
    }
}
