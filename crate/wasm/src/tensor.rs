//! The exports behind the JS `Tensor` class (crate/js/hookgrad_tensor.js): each takes
//! the handle's table id, converts the other arguments, calls the core and
//! converts the result (a new handle answers its id; the class wraps it).
//! A tensor handle may still be a deferred 0-d op (`hookgrad_core::deferred`):
//! `add/sub/mul/tanh`, `item()` and `backward()` use it as it is; every
//! other use materializes it exactly as the eager op would have made it.

use std::rc::Rc;

use js_sys::Array as JsArray;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::convert::*;
use crate::js_hook::JsHook;
use hookgrad_core::deferred::{Handle as Held, Op, Other};
use hookgrad_core::ops::{self, reduce};
use hookgrad_core::tensor::Tensor as CoreTensor;

/// The tensor handle `id` names (a deferred op materialized), or the
/// released-handle error.
pub(crate) fn core(id: u32) -> JsResult<CoreTensor> {
    crate::table::tensor(id)
        .unwrap_or_else(|| Err(crate::table::released("tensor")))
        .js()
}

/// An op's result as a new handle's id.
pub(crate) fn wrap(r: hookgrad_core::Result<CoreTensor>) -> JsResult<u32> {
    r.map(crate::table::put_tensor).js()
}

/// `a op other`, deferred where it can be: not while a JS hook runs, whose
/// handles must be tensors (`table::put_tensor`).
#[inline]
#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub(crate) fn arith(a: &Held, op: Op, other: Other<'_>) -> hookgrad_core::Result<Held> {
    if crate::live::in_js_hook() {
        a.eager(op, other)
    } else {
        a.op(op, other)
    }
}

/// `f` on the handle `id` names (a deferred op as it is), or the
/// released-handle error.
fn with_held<R>(id: u32, f: impl FnOnce(&Held) -> hookgrad_core::Result<R>) -> JsResult<R> {
    crate::table::with_held(id, f)
        .unwrap_or_else(|| Err(crate::table::released("tensor")))
        .js()
}

fn opt_dim(v: &JsValue, what: &str) -> JsResult<Option<i64>> {
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    match v.as_f64() {
        Some(n) if n.is_finite() && n.fract() == 0.0 && n.abs() < 1e9 => Ok(Some(n as i64)),
        _ => Err(type_error(format!(
            "{what}(): argument 'dim' must be an integer, not {}",
            type_name(v)
        ))),
    }
}

fn int_arg(v: f64, what: &str) -> JsResult<i64> {
    if v.is_finite() && v.fract() == 0.0 && v.abs() < 1e9 {
        Ok(v as i64)
    } else {
        Err(type_error(format!(
            "{what}: expected an integer, got {}",
            crate::convert::number_text(v)
        )))
    }
}

#[wasm_bindgen]
pub fn tensor_id(id: u32) -> JsResult<u32> {
    Ok(core(id)?.id().0)
}

/// A plain array of numbers, like `list(t.shape)`.
#[wasm_bindgen]
pub fn tensor_shape(id: u32) -> JsResult<JsValue> {
    Ok(core(id)?
        .shape()
        .iter()
        .map(|&d| JsValue::from_f64(d as f64))
        .collect::<JsArray>()
        .into())
}

#[wasm_bindgen]
pub fn tensor_item(id: u32) -> JsResult<f64> {
    with_held(id, |h| h.item()).map(f64::from)
}

#[wasm_bindgen]
pub fn tensor_to_array(id: u32) -> JsResult<JsValue> {
    Ok(array_to_js(&*core(id)?.data().js()?))
}

#[wasm_bindgen]
pub fn tensor_to_string(id: u32) -> JsResult<String> {
    Ok(core(id)?.repr())
}

#[wasm_bindgen]
pub fn tensor_requires_grad(id: u32) -> JsResult<bool> {
    Ok(core(id)?.requires_grad())
}

#[wasm_bindgen]
pub fn tensor_set_requires_grad(id: u32, v: JsValue) -> JsResult<()> {
    let b = v.as_bool().ok_or_else(|| {
        type_error(format!(
            "requiresGrad must be a boolean, not {}",
            type_name(&v)
        ))
    })?;
    // A deferred op replays with the edges its inputs' requires_grad
    // gave it then (hookgrad_core::deferred's one rule).
    hookgrad_core::deferred::flush().js()?;
    core(id)?.set_requires_grad(b).js()
}

#[wasm_bindgen]
pub fn tensor_is_leaf(id: u32) -> JsResult<bool> {
    Ok(core(id)?.is_leaf())
}

/// A new Node handle's id, or 0 on leaves (the class answers null).
#[wasm_bindgen]
pub fn tensor_grad_fn(id: u32) -> JsResult<u32> {
    Ok(core(id)?.grad_fn().map_or(0, crate::table::put_node))
}

/// A new handle's id for `.grad`, or 0 when it is None (the class answers null).
#[wasm_bindgen]
pub fn tensor_grad(id: u32) -> JsResult<u32> {
    Ok(core(id)?.grad().map_or(0, crate::table::put_tensor))
}

#[wasm_bindgen]
pub fn tensor_set_grad(id: u32, v: JsValue) -> JsResult<()> {
    if v.is_null() || v.is_undefined() {
        return core(id)?.set_grad(None).js();
    }
    let g = expect_tensor(&v, "grad")?;
    core(id)?.set_grad(Some(g)).js()
}

#[wasm_bindgen]
pub fn tensor_name(id: u32) -> JsResult<JsValue> {
    Ok(core(id)?.name().map(JsValue::from).unwrap_or(JsValue::NULL))
}

#[wasm_bindgen]
pub fn tensor_set_name(id: u32, v: JsValue) -> JsResult<()> {
    if v.is_null() || v.is_undefined() {
        return core(id)?.set_name(None).js();
    }
    let s = v
        .as_string()
        .ok_or_else(|| type_error(format!("name must be a string, not {}", type_name(&v))))?;
    core(id)?.set_name(Some(s)).js()
}

#[wasm_bindgen]
pub fn tensor_retains_grad(id: u32) -> JsResult<bool> {
    Ok(core(id)?.retains_grad())
}

/// `t.stride()`: PyTorch's strides, in elements.
#[wasm_bindgen]
pub fn tensor_stride(id: u32) -> JsResult<JsValue> {
    Ok(core(id)?
        .strides()
        .iter()
        .map(|&d| JsValue::from_f64(d as f64))
        .collect::<JsArray>()
        .into())
}

/// `t.isContiguous()`, as PyTorch's `is_contiguous()`.
#[wasm_bindgen]
pub fn tensor_is_contiguous(id: u32) -> JsResult<bool> {
    Ok(core(id)?.is_contiguous())
}

#[wasm_bindgen]
pub fn tensor_version(id: u32) -> JsResult<u32> {
    Ok(core(id)?.version())
}

// ----- ops -------------------------------------------------------------

#[wasm_bindgen]
pub fn tensor_add(id: u32, other: JsValue) -> JsResult<u32> {
    wrap(ops::arith::add(&core(id)?, &operand(&other, "add")?))
}
#[wasm_bindgen]
pub fn tensor_sub(id: u32, other: JsValue) -> JsResult<u32> {
    wrap(ops::arith::sub(&core(id)?, &operand(&other, "sub")?))
}
#[wasm_bindgen]
pub fn tensor_mul(id: u32, other: JsValue) -> JsResult<u32> {
    wrap(ops::arith::mul(&core(id)?, &operand(&other, "mul")?))
}
#[wasm_bindgen]
pub fn tensor_div(id: u32, other: JsValue) -> JsResult<u32> {
    wrap(ops::arith::div(&core(id)?, &operand(&other, "div")?))
}
/// `pow(exponent)`: a number or a Tensor (crate::tensor_ops::pow).
#[wasm_bindgen]
pub fn tensor_pow(id: u32, exponent: JsValue) -> JsResult<u32> {
    crate::tensor_ops::pow(&core(id)?, &exponent)
}
#[wasm_bindgen]
pub fn tensor_softmax(id: u32, dim: JsValue) -> JsResult<u32> {
    let d = opt_dim(&dim, "softmax")?
        .ok_or_else(|| type_error("softmax(): argument 'dim' (position 1) must be an integer"))?;
    wrap(core(id)?.softmax(d))
}
#[wasm_bindgen]
pub fn tensor_log_softmax(id: u32, dim: JsValue) -> JsResult<u32> {
    let d = opt_dim(&dim, "logSoftmax")?.ok_or_else(|| {
        type_error("logSoftmax(): argument 'dim' (position 1) must be an integer")
    })?;
    wrap(core(id)?.log_softmax(d))
}
#[wasm_bindgen]
pub fn tensor_unsqueeze(id: u32, dim: JsValue) -> JsResult<u32> {
    let d = opt_dim(&dim, "unsqueeze")?
        .ok_or_else(|| type_error("unsqueeze(): argument 'dim' (position 1) must be an integer"))?;
    wrap(core(id)?.unsqueeze(d))
}
#[wasm_bindgen]
pub fn tensor_squeeze(id: u32, dim: JsValue) -> JsResult<u32> {
    wrap(core(id)?.squeeze(opt_dim(&dim, "squeeze")?))
}
/// `expand(shape)` (an array; `-1` keeps a size).
#[wasm_bindgen]
pub fn tensor_expand(id: u32, shape: JsValue) -> JsResult<u32> {
    wrap(core(id)?.expand(&parse_signed_shape(&shape)?))
}
#[wasm_bindgen]
pub fn tensor_matmul(id: u32, other: JsValue) -> JsResult<u32> {
    let o = expect_tensor(&other, "matmul(): argument 'other' (position 1)")?;
    wrap(core(id)?.matmul(&o))
}
#[wasm_bindgen]
pub fn tensor_sum(id: u32, dim: JsValue, keepdim: JsValue) -> JsResult<u32> {
    let keep = keepdim.as_bool().unwrap_or(false);
    match opt_dim(&dim, "sum")? {
        None => wrap(reduce::sum(&core(id)?)),
        Some(d) => wrap(reduce::sum_dim(&core(id)?, d, keep)),
    }
}
#[wasm_bindgen]
pub fn tensor_mean(id: u32, dim: JsValue, keepdim: JsValue) -> JsResult<u32> {
    let keep = keepdim.as_bool().unwrap_or(false);
    match opt_dim(&dim, "mean")? {
        None => wrap(reduce::mean(&core(id)?)),
        Some(d) => wrap(reduce::mean_dim(&core(id)?, d, keep)),
    }
}
#[wasm_bindgen]
pub fn tensor_reshape(id: u32, shape: JsValue) -> JsResult<u32> {
    wrap(core(id)?.reshape(&parse_signed_shape(&shape)?))
}
#[wasm_bindgen]
pub fn tensor_transpose(id: u32, d0: f64, d1: f64) -> JsResult<u32> {
    wrap(core(id)?.transpose(int_arg(d0, "transpose")?, int_arg(d1, "transpose")?))
}
#[wasm_bindgen]
pub fn tensor_t(id: u32) -> JsResult<u32> {
    wrap(core(id)?.t())
}
#[wasm_bindgen]
pub fn tensor_clone(id: u32) -> JsResult<u32> {
    wrap(core(id)?.clone_op())
}
#[wasm_bindgen]
pub fn tensor_detach(id: u32) -> JsResult<u32> {
    wrap(hookgrad_core::view::detached(&core(id)?, true))
}
#[wasm_bindgen]
pub fn tensor_detach_(id: u32) -> JsResult<()> {
    // As for requiresGrad: a deferred op replays with the edges it had.
    hookgrad_core::deferred::flush().js()?;
    core(id)?.detach_().js()
}
#[wasm_bindgen]
pub fn tensor_add_(id: u32, other: JsValue) -> JsResult<u32> {
    wrap(ops::inplace::add_(&core(id)?, &operand(&other, "add_")?))
}
#[wasm_bindgen]
pub fn tensor_sub_(id: u32, other: JsValue) -> JsResult<u32> {
    wrap(ops::inplace::sub_(&core(id)?, &operand(&other, "sub_")?))
}
#[wasm_bindgen]
pub fn tensor_mul_(id: u32, other: JsValue) -> JsResult<u32> {
    wrap(ops::inplace::mul_(&core(id)?, &operand(&other, "mul_")?))
}
#[wasm_bindgen]
pub fn tensor_div_(id: u32, other: JsValue) -> JsResult<u32> {
    wrap(ops::inplace::div_(&core(id)?, &operand(&other, "div_")?))
}
#[wasm_bindgen]
pub fn tensor_zero_(id: u32) -> JsResult<u32> {
    wrap(ops::inplace::zero_(&core(id)?))
}
#[wasm_bindgen]
pub fn tensor_relu_(id: u32) -> JsResult<u32> {
    wrap(ops::inplace::relu_(&core(id)?))
}

// ----- autograd ----------------------------------------------------------

/// `backward(gradient?, {retainGraph?, inputs?})`.
#[wasm_bindgen]
pub fn tensor_backward(id: u32, gradient: JsValue, opts: JsValue) -> JsResult<()> {
    check_opts(&opts, "backward()")?;
    let grad = if gradient.is_undefined() || gradient.is_null() {
        None
    } else if let Some(t) = tensor_arg(&gradient)? {
        Some(t)
    } else if gradient.as_f64().is_none() && !js_sys::Array::is_array(&gradient) {
        // PyTorch's words, plus a hint for the common slip of passing the
        // options object first.
        let hint = if gradient.is_object() {
            " (options go second: backward(undefined, {retainGraph: true}))"
        } else {
            ""
        };
        return Err(type_error(format!(
            "gradients can be either Tensors or None, but got {}{hint}",
            type_name(&gradient)
        )));
    } else {
        let (shape, values) = parse_data(&gradient, None)?;
        Some(CoreTensor::from_vec(&shape, values, &Default::default()).js()?)
    };
    // PyTorch: retain_graph defaults to create_graph.
    let o: crate::options::BackwardOptions = crate::options::read(&opts, "backward()")?;
    let create = o.create_graph.unwrap_or(false);
    let retain = o.retain_graph.unwrap_or(create);
    let inputs = crate::options::given(&o.inputs)
        .map(|v| tensors_from_js(v, "backward(): inputs"))
        .transpose()?;
    if grad.is_none() && !create && inputs.is_none() {
        // On a deferred root: on numbers where nothing can observe it.
        return with_held(id, |h| h.backward(retain));
    }
    let t = core(id)?;
    t.backward_ext(grad, retain, create, inputs.as_deref()).js()
}

/// `registerHook(fn)`: the RemovableHandle as the number its JS object
/// holds (`JsHook::keep_handle`), or 0 with the error kept for
/// `take_error` — a number, not a `Result`: W3 registers a hook per op.
/// `is_fn`: the class's `typeof f === 'function'` (no call back to ask).
#[wasm_bindgen]
pub fn tensor_register_hook(id: u32, f: JsValue, is_fn: bool) -> f64 {
    let r = (|| {
        let f = if is_fn {
            f.unchecked_into()
        } else {
            crate::js_hook::hook_fn(f, "registerHook(): hook")?
        };
        Ok(JsHook::new(f))
    })();
    register_hook(id, r)
}

/// Registers `hook` on tensor `id`: the handle's number, or 0 with the
/// error kept (also `hook`'s own, when making it failed).
pub(crate) fn register_hook(id: u32, hook: JsResult<JsHook>) -> f64 {
    let r = (|| {
        let hook = Rc::new(hook?);
        let h = core(id)?.register_hook(hook.clone()).js()?;
        Ok(hook.keep_handle(h))
    })();
    crate::fast_ops::answer_js(r, 0.0)
}

#[wasm_bindgen]
pub fn tensor_retain_grad(id: u32) -> JsResult<()> {
    core(id)?.retain_grad().js()
}

#[wasm_bindgen]
pub fn tensor_register_post_accumulate_grad_hook(id: u32, f: JsValue) -> JsResult<JsValue> {
    let f = crate::js_hook::hook_fn(f, "registerPostAccumulateGradHook(): hook")?;
    let hook = Rc::new(JsHook::new(f));
    let h = core(id)?
        .register_post_accumulate_grad_hook(hook.clone())
        .js()?;
    Ok(hook.handle(h))
}

/// Used by `graph()` inputs and `grad()` results.
pub fn tensors_to_js(ts: Vec<Option<CoreTensor>>) -> JsValue {
    ts.into_iter()
        .map(|t| t.map(tensor_to_js).unwrap_or(JsValue::NULL))
        .collect::<JsArray>()
        .into()
}
