//! The exports behind the JS `Module` class (crate/js/hookgrad_classes.js), each
//! taking the module handle's table id, and the constructors of `hg.nn`'s
//! modules (their new handle's id).

use std::rc::Rc;

use js_sys::Array as JsArray;
use wasm_bindgen::prelude::*;

use crate::convert::*;
use crate::js_hook::{hook_fn, JsHook};
use crate::options::{HookOptions, LinearOptions};
use crate::table;
use hookgrad_core::module::{linear, Module as CoreModule};

fn module(id: u32) -> JsResult<CoreModule> {
    table::module(id).ok_or_else(|| js_error(table::released("module")))
}

/// A new Module handle's JS object.
fn module_js(m: CoreModule) -> JsValue {
    crate::facade::module_object(table::put_module(m))
}

/// `(prepend, withKwargs)`.
fn hook_opts(opts: &JsValue, what: &str) -> JsResult<(bool, bool)> {
    let o: HookOptions = crate::options::read(opts, what)?;
    Ok((o.prepend.unwrap_or(false), o.with_kwargs.unwrap_or(false)))
}

#[wasm_bindgen]
pub fn module_new(name: JsValue, forward: JsValue) -> JsResult<u32> {
    let name = name.as_string().ok_or_else(|| {
        type_error(format!(
            "Module(name, forward): name must be a string, not {}",
            type_name(&name)
        ))
    })?;
    let f = function(&forward, "Module(name, forward): forward")?;
    Ok(table::put_module(CoreModule::new(
        name,
        Rc::new(JsHook::new(f)),
    )))
}

#[wasm_bindgen]
pub fn module_name(id: u32) -> JsResult<String> {
    Ok(module(id)?.name())
}

#[wasm_bindgen]
pub fn module_id(id: u32) -> JsResult<u32> {
    Ok(module(id)?.id().0)
}

/// `module(*args)`; the facade's `call(...args)` lands here.
#[wasm_bindgen]
pub fn module_call_args(id: u32, args: JsValue) -> JsResult<JsValue> {
    let args = if JsArray::is_array(&args) {
        JsArray::from(&args)
            .iter()
            .map(|a| js_to_value(&a))
            .collect()
    } else {
        vec![js_to_value(&args)]
    };
    let out = module(id)?.call(args, None).js()?;
    Ok(value_to_js(&out))
}

/// `module(*args, **kwargs)`: forward(...args, kwargs); hooks see args.
#[wasm_bindgen]
pub fn module_call_with_kwargs(id: u32, args: JsValue, kwargs: JsValue) -> JsResult<JsValue> {
    if !JsArray::is_array(&args) {
        return Err(type_error(format!(
            "callWithKwargs(args, kwargs): args must be an array, not {}",
            type_name(&args)
        )));
    }
    let a = JsArray::from(&args)
        .iter()
        .map(|a| js_to_value(&a))
        .collect();
    let kw = js_to_value(&kwargs);
    let out = module(id)?.call(a, Some(kw)).js()?;
    Ok(value_to_js(&out))
}

#[wasm_bindgen]
pub fn module_register_forward_pre_hook(id: u32, f: JsValue, opts: JsValue) -> JsResult<JsValue> {
    let hook = Rc::new(JsHook::new(hook_fn(f, "registerForwardPreHook(): hook")?));
    let (prepend, kw) = hook_opts(&opts, "registerForwardPreHook()")?;
    Ok(hook.handle(module(id)?.register_forward_pre_hook(hook.clone(), prepend, kw)))
}

#[wasm_bindgen]
pub fn module_register_forward_hook(id: u32, f: JsValue, opts: JsValue) -> JsResult<JsValue> {
    let hook = Rc::new(JsHook::new(hook_fn(f, "registerForwardHook(): hook")?));
    let (prepend, kw) = hook_opts(&opts, "registerForwardHook()")?;
    Ok(hook.handle(module(id)?.register_forward_hook(hook.clone(), prepend, kw)))
}

#[wasm_bindgen]
pub fn module_register_backward_hook(id: u32, f: JsValue) -> JsResult<JsValue> {
    let hook = Rc::new(JsHook::new(hook_fn(f, "registerBackwardHook(): hook")?));
    let h = module(id)?.register_backward_hook(hook.clone()).js()?;
    Ok(hook.handle(h))
}

#[wasm_bindgen]
pub fn module_register_full_backward_hook(id: u32, f: JsValue, opts: JsValue) -> JsResult<JsValue> {
    let hook = Rc::new(JsHook::new(hook_fn(f, "registerFullBackwardHook(): hook")?));
    let (prepend, _) = hook_opts(&opts, "registerFullBackwardHook()")?;
    let h = module(id)?
        .register_full_backward_hook(hook.clone(), prepend)
        .js()?;
    Ok(hook.handle(h))
}

#[wasm_bindgen]
pub fn module_register_full_backward_pre_hook(
    id: u32,
    f: JsValue,
    opts: JsValue,
) -> JsResult<JsValue> {
    let hook = Rc::new(JsHook::new(hook_fn(
        f,
        "registerFullBackwardPreHook(): hook",
    )?));
    let (prepend, _) = hook_opts(&opts, "registerFullBackwardPreHook()")?;
    Ok(hook.handle(module(id)?.register_full_backward_pre_hook(hook.clone(), prepend)))
}

#[wasm_bindgen]
pub fn module_register_parameter(id: u32, name: JsValue, t: JsValue) -> JsResult<()> {
    let name = name
        .as_string()
        .ok_or_else(|| type_error("registerParameter(name, tensor): name must be a string"))?;
    let t = expect_tensor(&t, "registerParameter(): parameter")?;
    module(id)?.register_parameter(&name, t).js()
}

#[wasm_bindgen]
pub fn module_get_parameter(id: u32, name: String) -> JsResult<u32> {
    let m = module(id)?;
    m.get_parameter(&name)
        .map(table::put_tensor)
        .ok_or_else(|| {
            js_error(hookgrad_core::error::Error::runtime(format!(
                "module '{}' has no parameter '{name}'",
                m.name()
            )))
        })
}

#[wasm_bindgen]
pub fn module_parameters(id: u32) -> JsResult<JsValue> {
    Ok(module(id)?
        .parameters()
        .into_iter()
        .map(tensor_to_js)
        .collect::<JsArray>()
        .into())
}

#[wasm_bindgen]
pub fn module_named_parameters(id: u32) -> JsResult<JsValue> {
    Ok(module(id)?
        .named_parameters()
        .into_iter()
        .map(|(n, t)| {
            let pair = JsArray::new();
            pair.push(&n.into());
            pair.push(&tensor_to_js(t));
            JsValue::from(pair)
        })
        .collect::<JsArray>()
        .into())
}

#[wasm_bindgen]
pub fn module_add_module(id: u32, name: JsValue, child: JsValue) -> JsResult<()> {
    let name = name
        .as_string()
        .ok_or_else(|| type_error("addModule(name, module): name must be a string"))?;
    let child = expect_module(&child, "addModule(name, module): module")?;
    module(id)?.add_module(&name, child).js()
}

#[wasm_bindgen]
pub fn module_named_modules(id: u32) -> JsResult<JsValue> {
    Ok(module(id)?
        .named_modules()
        .into_iter()
        .map(|(n, m)| {
            let pair = JsArray::new();
            pair.push(&n.into());
            pair.push(&module_js(m));
            JsValue::from(pair)
        })
        .collect::<JsArray>()
        .into())
}

#[wasm_bindgen]
pub fn module_zero_grad(id: u32) -> JsResult<()> {
    module(id)?.zero_grad().js()
}

/// `new hg.nn.Linear(in, out, {bias?, seed?})` (the facade's `nn.Linear`).
#[wasm_bindgen]
pub fn nn_linear(in_features: JsValue, out_features: JsValue, opts: JsValue) -> JsResult<u32> {
    check_opts(&opts, "nn.Linear()")?;
    let dim = |v: &JsValue, what: &str| -> JsResult<usize> {
        match v.as_f64() {
            Some(n) if n.fract() == 0.0 && (0.0..=1_000_000.0).contains(&n) => Ok(n as usize),
            _ => Err(type_error(format!(
                "nn.Linear(): {what} must be a non-negative integer, not {}",
                js_message(v)
            ))),
        }
    };
    let (i, o) = (
        dim(&in_features, "in_features")?,
        dim(&out_features, "out_features")?,
    );
    if i.saturating_mul(o) > MAX_ELEMENTS {
        return Err(type_error("nn.Linear(): layer too large for hookgrad"));
    }
    let lo: LinearOptions = crate::options::read(&opts, "nn.Linear()")?;
    let bias = lo.bias.unwrap_or(true);
    let seed = crate::options::seed(lo.seed, "nn.Linear()")?;
    linear::linear(i, o, bias, seed).js().map(table::put_module)
}
