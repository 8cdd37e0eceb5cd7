//! The core's hook traits for `JsHook`: each builds the JS arguments the
//! contract names (shared/js-api.md), calls the function and reads what it
//! returned. Values handed to hooks are new handles sharing the core
//! tensor, so a hook may keep them.

use wasm_bindgen::prelude::*;

use crate::convert::{js_to_value, opt_tensors_to_js, tensor_to_js, value_to_js, values_to_js};
use crate::js_hook::JsHook;
use hookgrad_core::error::Result;
use hookgrad_core::hooks::{NodePostHook, NodePreHook, PostAccumulateGradHook, TensorHook};
use hookgrad_core::module::{
    ForwardHook, ForwardPreHook, Module, ModuleBackwardHook, ModuleBackwardPreHook, ModuleForward,
    Value,
};
use hookgrad_core::protocol::SourceLoc;
use hookgrad_core::tensor::Tensor;

type Grads = Option<Vec<Option<Tensor>>>;

/// `name()` (and `source()`, where the trait has it) of a hook trait: the
/// function's name and where it was registered.
macro_rules! named {
    () => {
        fn name(&self) -> String {
            self.name_str().to_owned()
        }
    };
    (source) => {
        named!();
        fn source(&self) -> Option<SourceLoc> {
            self.source
        }
    };
}

fn module_js(m: &Module) -> JsValue {
    crate::facade::module_object(crate::table::put_module(m.clone()))
}

/// `(module, args[, kwargs][, output])`, as PyTorch calls forward (pre-)hooks.
fn forward_hook_args(
    module: &Module,
    args: &[Value],
    kwargs: Option<&Value>,
    output: Option<&Value>,
) -> Vec<JsValue> {
    let mut a = vec![module_js(module), values_to_js(args)];
    a.extend(kwargs.map(value_to_js));
    a.extend(output.map(value_to_js));
    a
}

/// A hook's return value: `undefined`/`null` keeps the value it was given.
fn returned_value(r: &JsValue) -> Option<Value> {
    if r.is_undefined() || r.is_null() {
        None
    } else {
        Some(js_to_value(r))
    }
}

impl TensorHook for JsHook {
    fn call(&self, grad: &Tensor) -> Result<Option<Tensor>> {
        self.call_tensor_hook(grad)
    }
    named!(source);
}

impl NodePreHook for JsHook {
    fn call(&self, grad_outputs: &[Option<Tensor>]) -> Result<Grads> {
        let r = self.call_hook(|| [opt_tensors_to_js(grad_outputs)])?;
        self.grads(&r)
    }
    named!(source);
}

impl NodePostHook for JsHook {
    fn call(
        &self,
        grad_inputs: &[Option<Tensor>],
        grad_outputs: &[Option<Tensor>],
    ) -> Result<Grads> {
        let r = self.call_hook(|| {
            [
                opt_tensors_to_js(grad_inputs),
                opt_tensors_to_js(grad_outputs),
            ]
        })?;
        self.grads(&r)
    }
    named!(source);
}

impl PostAccumulateGradHook for JsHook {
    fn call(&self, tensor: &Tensor) -> Result<bool> {
        let r = self.call_hook(|| [tensor_to_js(tensor.clone())])?;
        Ok(!(r.is_undefined() || r.is_null()))
    }
    named!(source);
}

impl ForwardPreHook for JsHook {
    fn call(
        &self,
        module: &Module,
        args: &[Value],
        kwargs: Option<&Value>,
    ) -> Result<Option<Value>> {
        let r = self.call_hook(|| forward_hook_args(module, args, kwargs, None))?;
        Ok(returned_value(&r))
    }
    named!();
}

impl ForwardHook for JsHook {
    fn call(
        &self,
        module: &Module,
        args: &[Value],
        kwargs: Option<&Value>,
        output: &Value,
    ) -> Result<Option<Value>> {
        let r = self.call_hook(|| forward_hook_args(module, args, kwargs, Some(output)))?;
        Ok(returned_value(&r))
    }
    named!();
}

impl ModuleBackwardHook for JsHook {
    fn call(
        &self,
        module: &Module,
        grad_input: &[Option<Tensor>],
        grad_output: &[Option<Tensor>],
    ) -> Result<Grads> {
        let r = self.call_hook(|| {
            [
                module_js(module),
                opt_tensors_to_js(grad_input),
                opt_tensors_to_js(grad_output),
            ]
        })?;
        self.grads(&r)
    }
    named!(source);
}

impl ModuleBackwardPreHook for JsHook {
    fn call(&self, module: &Module, grad_output: &[Option<Tensor>]) -> Result<Grads> {
        let r = self.call_hook(|| [module_js(module), opt_tensors_to_js(grad_output)])?;
        self.grads(&r)
    }
    named!(source);
}

/// A module's forward written in JS: `forward(...args[, kwargs])`.
impl ModuleForward for JsHook {
    fn forward(&self, _module: &Module, args: &[Value], kwargs: Option<&Value>) -> Result<Value> {
        let mut a: Vec<JsValue> = args.iter().map(value_to_js).collect();
        if let Some(kw) = kwargs {
            a.push(value_to_js(kw));
        }
        let r = self.apply(&a)?;
        Ok(js_to_value(&r))
    }
}
