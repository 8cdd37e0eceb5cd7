//! `torch.autograd.graph`'s hooks: `hg.savedTensorsHooks(pack, unpack, fn)`
//! and `hg.registerMultiGradHook(tensors, fn, {mode})`.

use std::rc::Rc;

use wasm_bindgen::prelude::*;

use crate::convert::*;
use crate::js_hook::JsHook;
use crate::saved_hooks::{JsMultiGradHook, JsSavedTensorsHooks};
use hookgrad_core::multi_grad::{self, Mode};

/// Runs `fn()` with `pack` / `unpack` as saved-tensor hooks (PyTorch's
/// `with saved_tensors_hooks(pack, unpack): fn()`); returns `fn`'s result.
#[wasm_bindgen(js_name = savedTensorsHooks)]
pub fn saved_tensors_hooks(pack: JsValue, unpack: JsValue, f: JsValue) -> JsResult<JsValue> {
    let pack = function(&pack, "savedTensorsHooks(pack, unpack, fn): pack")?;
    let unpack = function(&unpack, "savedTensorsHooks(pack, unpack, fn): unpack")?;
    let f = function(&f, "savedTensorsHooks(pack, unpack, fn): fn")?;
    let hooks = Rc::new(JsSavedTensorsHooks {
        pack,
        unpack,
        handle: hookgrad_core::ids::HandleId::next(),
    });
    hookgrad_core::context::with_saved_tensors_hooks(hooks, || f.call0(&JsValue::UNDEFINED))
}

/// `hg.pushSavedTensorsHooks(pack, unpack)`: as savedTensorsHooks, for a
/// scope entered and left in two calls (the Python mode's `with`); end it
/// with `hg.popSavedTensorsHooks()`.
#[wasm_bindgen(js_name = pushSavedTensorsHooks)]
pub fn push_saved_tensors_hooks(pack: JsValue, unpack: JsValue) -> JsResult<()> {
    let pack = function(&pack, "pushSavedTensorsHooks(pack, unpack): pack")?;
    let unpack = function(&unpack, "pushSavedTensorsHooks(pack, unpack): unpack")?;
    let hooks = Rc::new(JsSavedTensorsHooks {
        pack,
        unpack,
        handle: hookgrad_core::ids::HandleId::next(),
    });
    hookgrad_core::context::push_saved_tensors_hooks(hooks);
    Ok(())
}

/// Ends the innermost `hg.pushSavedTensorsHooks` scope.
#[wasm_bindgen(js_name = popSavedTensorsHooks)]
pub fn pop_saved_tensors_hooks() {
    hookgrad_core::context::pop_saved_tensors_hooks();
}

/// `torch.autograd.graph.register_multi_grad_hook(tensors, fn, mode=...)`.
#[wasm_bindgen(js_name = registerMultiGradHook)]
pub fn register_multi_grad_hook(tensors: JsValue, f: JsValue, opts: JsValue) -> JsResult<JsValue> {
    check_opts(&opts, "registerMultiGradHook()")?;
    let ts = tensors_from_js(&tensors, "registerMultiGradHook(): tensors")?;
    let f = function(&f, "registerMultiGradHook(): fn")?;
    let o: crate::options::MultiGradHookOptions =
        crate::options::read(&opts, "registerMultiGradHook()")?;
    let mode = o.mode.map_or(Mode::All, Into::into);
    let hook = Rc::new(JsMultiGradHook {
        hook: JsHook::new(f),
        any: mode == Mode::Any,
    });
    let h = multi_grad::register_multi_grad_hook(&ts, hook.clone(), mode).js()?;
    Ok(hook.hook.handle(h))
}
