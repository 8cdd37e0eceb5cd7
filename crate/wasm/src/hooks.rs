//! The core hook traits implemented by one wrapper of `js_sys::Function`.
//! A JS throw becomes a core error carrying the hook's message; the engine
//! adds which tensor/node/module the hook was on. Values handed to hooks are
//! new wrappers sharing the core tensor, so a hook may keep them.

use std::cell::OnceCell;

use js_sys::{Array as JsArray, Function};
use wasm_bindgen::prelude::*;

use crate::convert::{
    js_message, js_to_opt_tensors, js_to_value, opt_tensors_to_js, tensor_arg, tensor_to_js,
    type_name, value_to_js, values_to_js,
};
use crate::live::JsHookGuard;
use crate::module::Module as JsModule;
use hookgrad_core::error::{Error, Result};
use hookgrad_core::hooks::{NodePostHook, NodePreHook, PostAccumulateGradHook, TensorHook};
use hookgrad_core::module::{
    ForwardHook, ForwardPreHook, Module, ModuleBackwardHook, ModuleBackwardPreHook, ModuleForward,
    Value,
};
use hookgrad_core::protocol::SourceLoc;
use hookgrad_core::tensor::Tensor;

pub struct JsHook {
    f: Function,
    /// The function's `name`, read on first use (graph(), traces, errors):
    /// reading it at registration cost ~0.2 µs per `registerHook`.
    name: OnceCell<String>,
    source: Option<SourceLoc>,
}

impl JsHook {
    pub fn new(f: Function) -> Self {
        // Where the user registered it, for graph()'s hook rows. Only while a
        // trace records (the playground): a stack capture costs microseconds
        // per registration, which a loop registering hooks should not pay.
        let source = if hookgrad_core::trace::is_recording() {
            registering_frame()
        } else {
            None
        };
        JsHook {
            f,
            name: OnceCell::new(),
            source,
        }
    }

    pub(crate) fn name_str(&self) -> &str {
        self.name.get_or_init(|| String::from(self.f.name()))
    }

    fn shown_name(&self) -> &str {
        match self.name_str() {
            "" => "hook",
            n => n,
        }
    }

    pub(crate) fn apply(&self, args: &[JsValue]) -> Result<JsValue> {
        let this = &JsValue::UNDEFINED;
        // Direct calls for the usual arities: no argument array per hook call.
        let r = match args {
            [a] => self.f.call1(this, a),
            [a, b] => self.f.call2(this, a, b),
            [a, b, c] => self.f.call3(this, a, b, c),
            _ => self.f.apply(this, &args.iter().collect::<JsArray>()),
        };
        crate::convert::note_js_call(r.as_ref().err());
        r.map_err(|e| Error::runtime(js_message(&e)))
    }

    /// A call of the user's hook (not a module's forward). The arguments are
    /// built inside `JsHookGuard`, so the JS handles made for them do not
    /// count as holders for AccumulateGrad's steal; console lines the hook
    /// prints are attributed to its trace event.
    fn call_hook<A: AsRef<[JsValue]>>(&self, make_args: impl FnOnce() -> A) -> Result<JsValue> {
        let _in_hook = JsHookGuard::enter();
        let args = make_args();
        let _call = hookgrad_core::trace::HookCall::begin();
        self.apply(args.as_ref())
    }

    fn grads(&self, v: &JsValue) -> Result<Option<Vec<Option<Tensor>>>> {
        js_to_opt_tensors(v, self.shown_name())
    }
}

/// The first stack frame outside hookgrad's own JS and wasm: the user's
/// `register*()` call. V8 (`at f (file:1:2)`, `… <anonymous>:1:2)` for
/// `new Function` code) and Firefox (`f@file:1:2`) both end a frame with
/// `:line:column`; wasm frames end with a hex offset and are skipped.
fn registering_frame() -> Option<SourceLoc> {
    let err = js_sys::Error::new("");
    let stack = js_sys::Reflect::get(&err, &"stack".into())
        .ok()?
        .as_string()?;
    stack.lines().find_map(|line| {
        let line = line.trim().trim_end_matches(')');
        let mut parts = line.rsplitn(3, ':');
        let column = parts.next()?.parse().ok()?;
        let line_nr = parts.next()?.parse().ok()?;
        let file = parts.next().unwrap_or("");
        let ours = file.ends_with("hookgrad_core.js")
            || file.ends_with("hookgrad.js")
            || file.contains("wasm://");
        (!ours).then_some(SourceLoc {
            line: line_nr,
            column,
        })
    })
}

fn module_js(m: &Module) -> JsValue {
    JsModule::wrap(m.clone()).into()
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
        let r = self.call_hook(|| [tensor_to_js(grad.clone())])?;
        if r.is_undefined() || r.is_null() {
            return Ok(None);
        }
        tensor_arg(&r)
            .map_err(|e| Error::runtime(js_message(&e)))?
            .map(Some)
            .ok_or_else(|| {
                Error::type_error(format!(
                    "expected Tensor or None (got {}) from hook '{}'",
                    type_name(&r),
                    self.shown_name()
                ))
            })
    }
    fn name(&self) -> String {
        self.name_str().to_owned()
    }
    fn source(&self) -> Option<SourceLoc> {
        self.source
    }
}

impl NodePreHook for JsHook {
    fn call(&self, grad_outputs: &[Option<Tensor>]) -> Result<Option<Vec<Option<Tensor>>>> {
        let r = self.call_hook(|| [opt_tensors_to_js(grad_outputs)])?;
        self.grads(&r)
    }
    fn name(&self) -> String {
        self.name_str().to_owned()
    }
    fn source(&self) -> Option<SourceLoc> {
        self.source
    }
}

impl NodePostHook for JsHook {
    fn call(
        &self,
        grad_inputs: &[Option<Tensor>],
        grad_outputs: &[Option<Tensor>],
    ) -> Result<Option<Vec<Option<Tensor>>>> {
        let r = self.call_hook(|| {
            [
                opt_tensors_to_js(grad_inputs),
                opt_tensors_to_js(grad_outputs),
            ]
        })?;
        self.grads(&r)
    }
    fn name(&self) -> String {
        self.name_str().to_owned()
    }
    fn source(&self) -> Option<SourceLoc> {
        self.source
    }
}

impl PostAccumulateGradHook for JsHook {
    fn call(&self, tensor: &Tensor) -> Result<bool> {
        let r = self.call_hook(|| [tensor_to_js(tensor.clone())])?;
        Ok(!(r.is_undefined() || r.is_null()))
    }
    fn name(&self) -> String {
        self.name_str().to_owned()
    }
    fn source(&self) -> Option<SourceLoc> {
        self.source
    }
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
    fn name(&self) -> String {
        self.name_str().to_owned()
    }
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
    fn name(&self) -> String {
        self.name_str().to_owned()
    }
}

impl ModuleBackwardHook for JsHook {
    fn call(
        &self,
        module: &Module,
        grad_input: &[Option<Tensor>],
        grad_output: &[Option<Tensor>],
    ) -> Result<Option<Vec<Option<Tensor>>>> {
        let r = self.call_hook(|| {
            [
                module_js(module),
                opt_tensors_to_js(grad_input),
                opt_tensors_to_js(grad_output),
            ]
        })?;
        self.grads(&r)
    }
    fn name(&self) -> String {
        self.name_str().to_owned()
    }
    fn source(&self) -> Option<SourceLoc> {
        self.source
    }
}

impl ModuleBackwardPreHook for JsHook {
    fn call(
        &self,
        module: &Module,
        grad_output: &[Option<Tensor>],
    ) -> Result<Option<Vec<Option<Tensor>>>> {
        let r = self.call_hook(|| [module_js(module), opt_tensors_to_js(grad_output)])?;
        self.grads(&r)
    }
    fn name(&self) -> String {
        self.name_str().to_owned()
    }
    fn source(&self) -> Option<SourceLoc> {
        self.source
    }
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

/// A handle as JS sees it: `{ id, remove() }`.
#[wasm_bindgen(js_name = RemovableHandle)]
pub struct Handle {
    inner: hookgrad_core::hooks::RemovableHandle,
}

#[wasm_bindgen(js_class = RemovableHandle)]
impl Handle {
    #[wasm_bindgen(getter)]
    pub fn id(&self) -> u32 {
        self.inner.id.0
    }
    pub fn remove(&self) {
        self.inner.remove();
    }
    /// Used by `hg.tidy`: a handle whose hook lists are all gone is freed.
    #[wasm_bindgen(js_name = __live)]
    pub fn live(&self) -> bool {
        self.inner.is_live()
    }
    /// `hg.tidy`'s question in one call: 0 while anything it removes from
    /// lives, else its id (kept by JS after the handle is freed).
    #[wasm_bindgen(js_name = __deadId)]
    pub fn dead_id(&self) -> u32 {
        if self.inner.is_live() {
            0
        } else {
            self.inner.id.0
        }
    }
}

impl Handle {
    pub fn wrap(inner: hookgrad_core::hooks::RemovableHandle) -> Handle {
        Handle { inner }
    }
}

/// `hg.savedTensorsHooks(pack, unpack, fn)`'s pair: `pack(tensor)` may
/// return anything; `unpack(packed)` must give a Tensor back.
pub struct JsSavedTensorsHooks {
    pub pack: Function,
    pub unpack: Function,
    pub handle: hookgrad_core::ids::HandleId,
}

struct JsPacked {
    value: JsValue,
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
