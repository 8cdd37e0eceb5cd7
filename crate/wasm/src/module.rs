//! The JS `Module` class. `m.call(...args)` is added by the JS facade
//! (`web/pkg/hookgrad.js`) on top of `callArgs(args)`, since wasm-bindgen
//! exports cannot be variadic.

use std::rc::Rc;

use js_sys::Array as JsArray;
use wasm_bindgen::prelude::*;

use crate::convert::*;
use crate::hooks::{Handle, JsHook};
use crate::options::{HookOptions, LinearOptions};
use crate::tensor::Tensor;
use hookgrad_core::module::{linear, Module as CoreModule};

#[wasm_bindgen]
pub struct Module {
    inner: CoreModule,
}

impl Module {
    pub fn wrap(inner: CoreModule) -> Module {
        Module { inner }
    }
}

/// `(prepend, withKwargs)`.
fn hook_opts(opts: &JsValue, what: &str) -> JsResult<(bool, bool)> {
    let o: HookOptions = crate::options::read(opts, what)?;
    Ok((o.prepend.unwrap_or(false), o.with_kwargs.unwrap_or(false)))
}

#[wasm_bindgen]
impl Module {
    #[wasm_bindgen(constructor)]
    pub fn new(name: JsValue, forward: JsValue) -> JsResult<Module> {
        let name = name.as_string().ok_or_else(|| {
            type_error(format!(
                "Module(name, forward): name must be a string, not {}",
                type_name(&name)
            ))
        })?;
        let f = function(&forward, "Module(name, forward): forward")?;
        Ok(Module::wrap(CoreModule::new(name, Rc::new(JsHook::new(f)))))
    }

    #[wasm_bindgen(getter)]
    pub fn name(&self) -> String {
        self.inner.name()
    }

    #[wasm_bindgen(getter)]
    pub fn id(&self) -> u32 {
        self.inner.id().0
    }

    /// `module(*args)`; the facade's `call(...args)` lands here.
    #[wasm_bindgen(js_name = callArgs)]
    pub fn call_args(&self, args: JsValue) -> JsResult<JsValue> {
        let args = if JsArray::is_array(&args) {
            JsArray::from(&args)
                .iter()
                .map(|a| js_to_value(&a))
                .collect()
        } else {
            vec![js_to_value(&args)]
        };
        let out = self.inner.call(args, None).js()?;
        Ok(value_to_js(&out))
    }

    /// `module(*args, **kwargs)`: forward(...args, kwargs); hooks see args.
    #[wasm_bindgen(js_name = callWithKwargs)]
    pub fn call_with_kwargs(&self, args: JsValue, kwargs: JsValue) -> JsResult<JsValue> {
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
        let out = self.inner.call(a, Some(kw)).js()?;
        Ok(value_to_js(&out))
    }

    #[wasm_bindgen(js_name = registerForwardPreHook)]
    pub fn register_forward_pre_hook(&self, f: JsValue, opts: JsValue) -> JsResult<Handle> {
        let f = function(&f, "registerForwardPreHook(): hook")?;
        let (prepend, kw) = hook_opts(&opts, "registerForwardPreHook()")?;
        Ok(Handle::wrap(self.inner.register_forward_pre_hook(
            Rc::new(JsHook::new(f)),
            prepend,
            kw,
        )))
    }

    #[wasm_bindgen(js_name = registerForwardHook)]
    pub fn register_forward_hook(&self, f: JsValue, opts: JsValue) -> JsResult<Handle> {
        let f = function(&f, "registerForwardHook(): hook")?;
        let (prepend, kw) = hook_opts(&opts, "registerForwardHook()")?;
        Ok(Handle::wrap(self.inner.register_forward_hook(
            Rc::new(JsHook::new(f)),
            prepend,
            kw,
        )))
    }

    #[wasm_bindgen(js_name = registerBackwardHook)]
    pub fn register_backward_hook(&self, f: JsValue) -> JsResult<Handle> {
        let f = function(&f, "registerBackwardHook(): hook")?;
        self.inner
            .register_backward_hook(Rc::new(JsHook::new(f)))
            .js()
            .map(Handle::wrap)
    }

    #[wasm_bindgen(js_name = registerFullBackwardHook)]
    pub fn register_full_backward_hook(&self, f: JsValue, opts: JsValue) -> JsResult<Handle> {
        let f = function(&f, "registerFullBackwardHook(): hook")?;
        let (prepend, _) = hook_opts(&opts, "registerFullBackwardHook()")?;
        self.inner
            .register_full_backward_hook(Rc::new(JsHook::new(f)), prepend)
            .js()
            .map(Handle::wrap)
    }

    #[wasm_bindgen(js_name = registerFullBackwardPreHook)]
    pub fn register_full_backward_pre_hook(&self, f: JsValue, opts: JsValue) -> JsResult<Handle> {
        let f = function(&f, "registerFullBackwardPreHook(): hook")?;
        let (prepend, _) = hook_opts(&opts, "registerFullBackwardPreHook()")?;
        Ok(Handle::wrap(self.inner.register_full_backward_pre_hook(
            Rc::new(JsHook::new(f)),
            prepend,
        )))
    }

    #[wasm_bindgen(js_name = registerParameter)]
    pub fn register_parameter(&self, name: JsValue, t: JsValue) -> JsResult<()> {
        let name = name
            .as_string()
            .ok_or_else(|| type_error("registerParameter(name, tensor): name must be a string"))?;
        let t = expect_tensor(&t, "registerParameter(): parameter")?;
        self.inner.register_parameter(&name, t).js()
    }

    #[wasm_bindgen(js_name = getParameter)]
    pub fn get_parameter(&self, name: String) -> JsResult<Tensor> {
        self.inner
            .get_parameter(&name)
            .map(Tensor::wrap)
            .ok_or_else(|| {
                js_error(hookgrad_core::error::Error::runtime(format!(
                    "module '{}' has no parameter '{name}'",
                    self.inner.name()
                )))
            })
    }

    pub fn parameters(&self) -> JsValue {
        self.inner
            .parameters()
            .into_iter()
            .map(|t| JsValue::from(Tensor::wrap(t)))
            .collect::<JsArray>()
            .into()
    }

    #[wasm_bindgen(js_name = namedParameters)]
    pub fn named_parameters(&self) -> JsValue {
        self.inner
            .named_parameters()
            .into_iter()
            .map(|(n, t)| {
                let pair = JsArray::new();
                pair.push(&n.into());
                pair.push(&Tensor::wrap(t).into());
                JsValue::from(pair)
            })
            .collect::<JsArray>()
            .into()
    }

    #[wasm_bindgen(js_name = addModule)]
    pub fn add_module(&self, name: JsValue, child: &Module) -> JsResult<()> {
        let name = name
            .as_string()
            .ok_or_else(|| type_error("addModule(name, module): name must be a string"))?;
        self.inner.add_module(&name, child.inner.clone()).js()
    }

    #[wasm_bindgen(js_name = namedModules)]
    pub fn named_modules(&self) -> JsValue {
        self.inner
            .named_modules()
            .into_iter()
            .map(|(n, m)| {
                let pair = JsArray::new();
                pair.push(&n.into());
                pair.push(&Module::wrap(m).into());
                JsValue::from(pair)
            })
            .collect::<JsArray>()
            .into()
    }

    #[wasm_bindgen(js_name = zeroGrad)]
    pub fn zero_grad(&self) -> JsResult<()> {
        self.inner.zero_grad().js()
    }
}

/// `new hg.nn.Linear(in, out, {bias?, seed?})` (the facade's `nn.Linear`).
#[wasm_bindgen(js_name = __linear)]
pub fn linear_module(
    in_features: JsValue,
    out_features: JsValue,
    opts: JsValue,
) -> JsResult<Module> {
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
    linear::linear(i, o, bias, seed).js().map(Module::wrap)
}
