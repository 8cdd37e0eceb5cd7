//! Free functions of the second release: `hg.cat`, `hg.stack`, the losses
//! behind `hg.nn.functional`, and the constructors behind `hg.nn.Sequential`
//! and the activation modules (the JS facade wraps them as classes).

use js_sys::Array as JsArray;
use wasm_bindgen::prelude::*;

use crate::convert::*;
use hookgrad_core::module::sequential::{self, Activation};
use hookgrad_core::ops::{join, loss};

fn dim_arg(v: &JsValue, what: &str) -> JsResult<i64> {
    if v.is_undefined() || v.is_null() {
        return Ok(0);
    }
    match v.as_f64() {
        Some(n) if n.is_finite() && n.fract() == 0.0 && n.abs() < 1e9 => Ok(n as i64),
        _ => Err(type_error(format!(
            "{what}(): argument 'dim' must be an integer, not {}",
            type_name(v)
        ))),
    }
}

fn tensor_list(v: &JsValue, what: &str) -> JsResult<Vec<hookgrad_core::Tensor>> {
    if !JsArray::is_array(v) {
        return Err(type_error(format!(
            "{what}(): argument 'tensors' (position 1) must be an array of Tensors, not {}",
            type_name(v)
        )));
    }
    tensors_from_js(v, &format!("{what}(): tensors"))
}

/// `hg.cat(tensors, dim = 0)`.
#[wasm_bindgen]
pub fn cat(tensors: JsValue, dim: JsValue) -> JsResult<JsValue> {
    let ts = tensor_list(&tensors, "cat")?;
    join::cat(&ts, dim_arg(&dim, "cat")?).js().map(tensor_to_js)
}

/// `hg.stack(tensors, dim = 0)`.
#[wasm_bindgen]
pub fn stack(tensors: JsValue, dim: JsValue) -> JsResult<JsValue> {
    let ts = tensor_list(&tensors, "stack")?;
    join::stack(&ts, dim_arg(&dim, "stack")?)
        .js()
        .map(tensor_to_js)
}

/// `hg.nn.functional.mseLoss(input, target, {reduction})`.
#[wasm_bindgen]
pub fn functional_mse_loss(input: JsValue, target: JsValue, opts: JsValue) -> JsResult<u32> {
    check_opts(&opts, "mseLoss()")?;
    let x = expect_tensor(&input, "mseLoss(): argument 'input' (position 1)")?;
    let t = expect_tensor(&target, "mseLoss(): argument 'target' (position 2)")?;
    let o: crate::options::MseLossOptions = crate::options::read(&opts, "mseLoss()")?;
    let r = o.reduction.map_or(loss::Reduction::Mean, Into::into);
    loss::mse_loss(&x, &t, r).js().map(crate::table::put_tensor)
}

/// `hg.nn.functional.crossEntropy(logits, targets, {reduction})`: `targets`
/// is an array of class indices (or one index for 1-D logits).
#[wasm_bindgen]
pub fn functional_cross_entropy(logits: JsValue, targets: JsValue, opts: JsValue) -> JsResult<u32> {
    class_loss("crossEntropy", loss::cross_entropy, logits, targets, opts)
}

/// `hg.nn.functional.nllLoss(logProbs, targets, {reduction})`: PyTorch's
/// `F.nll_loss`, the second half of crossEntropy (after `logSoftmax`).
#[wasm_bindgen]
pub fn functional_nll_loss(log_probs: JsValue, targets: JsValue, opts: JsValue) -> JsResult<u32> {
    class_loss("nllLoss", loss::nll_loss, log_probs, targets, opts)
}

/// A loss over class indices: its options (`{reduction}`), input and
/// targets read and checked as `name()`'s, then `f`.
fn class_loss(
    name: &str,
    f: fn(
        &hookgrad_core::tensor::Tensor,
        &[i64],
        loss::Reduction,
    ) -> hookgrad_core::error::Result<hookgrad_core::tensor::Tensor>,
    input: JsValue,
    targets: JsValue,
    opts: JsValue,
) -> JsResult<u32> {
    let call = format!("{name}()");
    check_opts(&opts, &call)?;
    // The same one field as mseLoss's options.
    let o: crate::options::MseLossOptions = crate::options::read(&opts, &call)?;
    let r = o.reduction.map_or(loss::Reduction::Mean, Into::into);
    let x = expect_tensor(&input, &format!("{call}: argument 'input' (position 1)"))?;
    let index = |v: &JsValue| -> JsResult<i64> {
        match v.as_f64() {
            Some(n) if n.is_finite() && n.fract() == 0.0 && n.abs() < 1e9 => Ok(n as i64),
            _ => Err(type_error(format!(
                "{call}: targets must be integer class indices, got {}",
                js_message(v)
            ))),
        }
    };
    let ts: Vec<i64> = if JsArray::is_array(&targets) {
        JsArray::from(&targets)
            .iter()
            .map(|v| index(&v))
            .collect::<JsResult<_>>()?
    } else if let Some(t) = as_tensor(&targets) {
        t.to_array()
            .js()?
            .iter()
            .map(|&v| index(&JsValue::from_f64(v as f64)))
            .collect::<JsResult<_>>()?
    } else {
        vec![index(&targets)?]
    };
    f(&x, &ts, r).js().map(crate::table::put_tensor)
}

/// `new hg.nn.Sequential(...modules)`: children are added by the facade.
#[wasm_bindgen]
pub fn nn_sequential() -> JsResult<u32> {
    sequential::sequential(Vec::new())
        .js()
        .map(crate::table::put_module)
}

/// `new hg.nn.ReLU({inplace})` / `Tanh()` / `Sigmoid()`.
#[wasm_bindgen]
pub fn nn_activation(kind: &str, inplace: bool) -> JsResult<u32> {
    let k = match kind {
        "ReLU" if inplace => Activation::ReLUInplace,
        "ReLU" => Activation::ReLU,
        "Tanh" => Activation::Tanh,
        "Sigmoid" => Activation::Sigmoid,
        other => return Err(type_error(format!("unknown activation '{other}'"))),
    };
    Ok(crate::table::put_module(sequential::activation(k)))
}
