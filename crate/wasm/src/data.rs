//! Tensor data and shapes from JS (nested arrays, typed arrays, shape
//! arrays) and tensor values back to nested JS arrays. Every failure is a
//! JS `Error` in PyTorch's words, never a trap.

use js_sys::{Array as JsArray, Reflect};
use wasm_bindgen::prelude::*;

use crate::convert::{js_error, js_message, number_text, type_error, type_name, JsResult};
use hookgrad_core::error::Error;
use hookgrad_core::tensor::Array;

/// Largest tensor hookgrad will allocate (64 MB of float32): beyond this a
/// wasm allocation failure would abort the instance.
pub const MAX_ELEMENTS: usize = 1 << 24;

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
