//! `hg.applyCustomFunction` (what `hg.customFunction(...).apply` and the
//! Python mode's `torch.autograd.Function.apply` call): the outputs of a
//! forward that ran under no_grad get one `<Name>Backward` node, whose
//! backward calls the host's function (hookgrad_core::custom_function).

use std::rc::Rc;

use js_sys::Array as JsArray;
use wasm_bindgen::prelude::*;

use crate::convert::*;
use crate::js_hook::JsHook;
use hookgrad_core::custom_function::{self, CustomBackward, CustomCall, Returned};
use hookgrad_core::error::{Error, Result};
use hookgrad_core::tensor::Tensor;

/// The user's backward as a JS function `(gradOutputs, saved) → grads`.
struct JsCustomBackward(JsHook);

impl CustomBackward for JsCustomBackward {
    fn call(&self, grad_outputs: &[Option<Tensor>], saved: &[Tensor]) -> Result<Vec<Returned>> {
        let r = self.0.call_hook(|| {
            let saved: JsArray = saved.iter().cloned().map(tensor_to_js).collect();
            [opt_tensors_to_js(grad_outputs), saved.into()]
        })?;
        if JsArray::is_array(&r) {
            JsArray::from(&r).iter().map(|v| returned(&v)).collect()
        } else {
            Ok(vec![returned(&r)?])
        }
    }
}

/// One returned value; a host may name a non-tensor's type (`{__pyType}`:
/// the Python mode's `int`, where JS would say `number`).
fn returned(v: &JsValue) -> Result<Returned> {
    if v.is_null() || v.is_undefined() {
        return Ok(Returned::None);
    }
    if let Some(t) = tensor_arg(v).map_err(|e| Error::runtime(js_message(&e)))? {
        return Ok(Returned::Tensor(t));
    }
    let py = v
        .is_object()
        .then(|| crate::options::field(v, "__pyType").as_string())
        .flatten();
    Ok(Returned::Other(py.unwrap_or_else(|| type_name(v))))
}

/// `hg.applyCustomFunction(name, args, outputs, backward, opts)`: `args` the
/// forward's arguments (tensors and anything else), `outputs` the tensors it
/// returned under no_grad; opts `{saved, nonDifferentiable, materializeGrads}`.
/// Returns the outputs with their history (new handles sharing storage).
#[wasm_bindgen(js_name = applyCustomFunction)]
pub fn apply_custom_function(
    name: String,
    args: JsValue,
    outputs: JsValue,
    backward: JsValue,
    opts: JsValue,
) -> JsResult<JsValue> {
    const WHAT: &str = "applyCustomFunction()";
    check_opts(&opts, WHAT)?;
    let f = function(&backward, "applyCustomFunction(): backward")?;
    let args: Vec<Option<Tensor>> = if JsArray::is_array(&args) {
        JsArray::from(&args)
            .iter()
            .map(|a| tensor_arg(&a))
            .collect::<JsResult<_>>()?
    } else {
        return Err(type_error(format!(
            "{WHAT}: args must be an array, not {}",
            type_name(&args)
        )));
    };
    let outputs = tensors_from_js(&outputs, "applyCustomFunction(): outputs")?;
    let o: crate::options::CustomFunctionOptions = crate::options::read(&opts, WHAT)?;
    let saved = match crate::options::given(&o.saved) {
        Some(s) => tensors_from_js(s, "applyCustomFunction(): saved")?,
        None => Vec::new(),
    };
    let non_diff: Vec<usize> = match crate::options::given(&o.non_differentiable) {
        Some(s) => tensors_from_js(s, "applyCustomFunction(): nonDifferentiable")?
            .iter()
            .filter_map(|t| outputs.iter().position(|o| o.id() == t.id()))
            .collect(),
        None => Vec::new(),
    };
    let call = CustomCall {
        name: &name,
        args: &args,
        outputs: &outputs,
        saved: &saved,
        non_differentiable: &non_diff,
        materialize_grads: o.materialize_grads.unwrap_or(true),
    };
    let (outs, _node) =
        custom_function::custom_function(&call, Rc::new(JsCustomBackward(JsHook::new(f)))).js()?;
    Ok(outs
        .into_iter()
        .map(tensor_to_js)
        .collect::<JsArray>()
        .into())
}
