//! `hg.savedTensorsHooks(pack, unpack, fn)`'s pair and
//! `hg.registerMultiGradHook`'s function, as the core's hook traits.

use js_sys::Function;
use wasm_bindgen::prelude::*;

use crate::convert::{js_message, opt_tensors_to_js, tensor_arg, tensor_to_js, type_name};
use crate::js_hook::JsHook;
use hookgrad_core::error::{Error, Result};
use hookgrad_core::tensor::Tensor;

/// `hg.savedTensorsHooks(pack, unpack, fn)`'s pair: `pack(tensor)` may
/// return anything; `unpack(packed)` must give a Tensor back.
pub struct JsSavedTensorsHooks {
    pub pack: Function,
    pub unpack: Function,
    pub handle: hookgrad_core::ids::HandleId,
}

struct JsPacked {
    value: JsValue,
    /// Kept for its name only (trace events).
    pack: Function,
    unpack: Function,
    handle: hookgrad_core::ids::HandleId,
}

impl hookgrad_core::hooks::SavedTensorsHooks for JsSavedTensorsHooks {
    fn pack(&self, tensor: &Tensor) -> Result<std::rc::Rc<dyn hookgrad_core::hooks::PackedTensor>> {
        let value = self
            .pack
            .call1(&JsValue::UNDEFINED, &tensor_to_js(tensor.clone()))
            .map_err(|e| Error::runtime(js_message(&e)))?;
        Ok(std::rc::Rc::new(JsPacked {
            value,
            pack: self.pack.clone(),
            unpack: self.unpack.clone(),
            handle: self.handle,
        }))
    }
}

impl hookgrad_core::hooks::PackedTensor for JsPacked {
    fn unpack(&self) -> Result<Tensor> {
        let r = self
            .unpack
            .call1(&JsValue::UNDEFINED, &self.value)
            .map_err(|e| Error::runtime(js_message(&e)))?;
        tensor_arg(&r)
            .map_err(|e| Error::runtime(js_message(&e)))?
            .ok_or_else(|| {
                Error::type_error(format!(
                    "Output of saved tensor unpack_hook expected to be a Tensor but got result of type {}",
                    type_name(&r)
                ))
            })
    }
    fn packed_tensor(&self) -> Option<Tensor> {
        tensor_arg(&self.value).ok().flatten()
    }
    fn handle(&self) -> hookgrad_core::ids::HandleId {
        self.handle
    }
    fn name(&self, unpack: bool) -> String {
        String::from(if unpack { &self.unpack } else { &self.pack }.name())
    }
}

/// `hg.registerMultiGradHook`'s function: `fn(grads)` ('all') or `fn(grad)` ('any').
pub struct JsMultiGradHook {
    pub hook: JsHook,
    pub any: bool,
}

impl hookgrad_core::multi_grad::MultiGradHook for JsMultiGradHook {
    fn call(&self, grads: &[Option<Tensor>]) -> Result<()> {
        let arg = if self.any {
            grads
                .first()
                .cloned()
                .flatten()
                .map(tensor_to_js)
                .unwrap_or(JsValue::NULL)
        } else {
            opt_tensors_to_js(grads)
        };
        self.hook.apply(&[arg]).map(|_| ())
    }
    fn name(&self) -> String {
        self.hook.name_str().to_owned()
    }
}
