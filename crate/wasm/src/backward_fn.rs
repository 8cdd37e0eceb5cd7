//! `hg.backward(tensors, gradients?, opts?)`: PyTorch's
//! `torch.autograd.backward`, every root in one engine pass (so hooks run
//! once each, in the one order the engine gives all of them); and the
//! gradient-list reading it shares with `hg.grad`'s `gradOutputs`.

use js_sys::Array as JsArray;
use wasm_bindgen::prelude::*;

use crate::convert::*;
use hookgrad_core::tensor::Tensor as CoreTensor;

/// One gradient per output from `v` (undefined: none given): an array of
/// Tensors / nested numbers / nulls, or, for a single output, its gradient
/// itself (a Tensor, a number or a nested-number array).
pub(crate) fn gradient_list(
    v: Option<JsValue>,
    outputs: usize,
) -> JsResult<Vec<Option<CoreTensor>>> {
    let Some(v) = v else {
        return Ok(vec![None; outputs]);
    };
    // A list of gradients (one per output) unless a single output was
    // given a plain nested-number array as its gradient.
    let first = JsArray::is_array(&v).then(|| JsArray::from(&v).get(0));
    let is_list = match &first {
        Some(f) => outputs != 1 || f.is_null() || as_tensor(f).is_some(),
        None => false,
    };
    let items: Vec<JsValue> = if is_list {
        JsArray::from(&v).iter().collect()
    } else {
        vec![v]
    };
    items
        .iter()
        .map(|g| {
            if g.is_null() || g.is_undefined() {
                Ok(None)
            } else if let Some(t) = tensor_arg(g)? {
                Ok(Some(t))
            } else {
                let (shape, values) = parse_data(g, None)?;
                CoreTensor::from_vec(&shape, values, &Default::default())
                    .js()
                    .map(Some)
            }
        })
        .collect()
}

/// `hg.backward(tensors, gradients?, {retainGraph?, createGraph?, inputs?})`.
#[wasm_bindgen]
pub fn backward(tensors: JsValue, gradients: JsValue, opts: JsValue) -> JsResult<()> {
    check_opts(&opts, "backward()")?;
    let roots = tensors_from_js(&tensors, "backward(): tensors")?;
    let given = (!gradients.is_undefined() && !gradients.is_null()).then_some(gradients);
    let grads = gradient_list(given, roots.len())?;
    if grads.len() != roots.len() {
        // PyTorch's words (torch/autograd/__init__.py, _make_grads' caller).
        return Err(js_error(hookgrad_core::Error::runtime(format!(
            "got {} tensors and {} gradients",
            roots.len(),
            grads.len()
        ))));
    }
    let o: crate::options::BackwardOptions = crate::options::read(&opts, "backward()")?;
    let create = o.create_graph.unwrap_or(false);
    // PyTorch: retain_graph defaults to create_graph.
    let retain = o.retain_graph.unwrap_or(create);
    let inputs = crate::options::given(&o.inputs)
        .map(|v| tensors_from_js(v, "backward(): inputs"))
        .transpose()?;
    hookgrad_core::engine::backward_ext(&roots, grads, retain, create, inputs.as_deref()).js()
}
