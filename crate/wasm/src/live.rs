//! `hg.memory()`, and for AccumulateGrad's steal whether a JS hook is
//! running (handles made then are not counted as owners of their tensor).

use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;

hookgrad_core::thread_cell!(
    static HOOK_DEPTH: u32 = 0;
);

pub fn in_js_hook() -> bool {
    HOOK_DEPTH.with(|d| d.get() > 0)
}

hookgrad_core::thread_cell!(
    static HOOK_HANDLES_OWN: bool = false;
);

/// Whether a handle made now is not an owner of its tensor for
/// AccumulateGrad's steal: made while a JS hook runs, unless the host
/// releases what its hooks do not keep (`setHookHandlesOwn`).
pub fn hook_handle_borrows() -> bool {
    in_js_hook() && !HOOK_HANDLES_OWN.with(|o| o.get())
}

/// `hg.setHookHandlesOwn(on)`: handles made while a hook runs count as
/// owners of their tensor, as PyTorch counts a hook's references (a hook
/// that keeps a gradient stops AccumulateGrad from taking it over). For a
/// host that releases every handle it does not keep as soon as the hook
/// returns — the Python mode, whose tensors release theirs when CPython
/// frees them; JS code keeps the default (`false`): the garbage collector
/// frees handles late, so they would stop every steal. Returns the previous
/// setting.
#[wasm_bindgen(js_name = setHookHandlesOwn)]
pub fn set_hook_handles_own(on: bool) -> bool {
    HOOK_HANDLES_OWN.with(|o| o.replace(on))
}

/// Marks a JS hook call (nested calls nest); dropped when the call returns.
pub struct JsHookGuard;

impl JsHookGuard {
    pub fn enter() -> JsHookGuard {
        HOOK_DEPTH.with(|d| d.set(d.get() + 1));
        JsHookGuard
    }
}

impl Drop for JsHookGuard {
    fn drop(&mut self) {
        HOOK_DEPTH.with(|d| d.set(d.get().saturating_sub(1)));
    }
}

/// `hg.memory()` (the facade's): `{tensors, nodes, handles, wasmBytes}`.
/// Not exported as `memory`: that is the wasm instance's memory export.
#[wasm_bindgen]
pub fn memory_counts() -> Result<JsValue, JsValue> {
    let internal = || {
        crate::convert::js_error(hookgrad_core::Error::internal(
            "memory(): the wasm memory is not a WebAssembly.Memory",
        ))
    };
    let bytes = wasm_bindgen::memory()
        .dyn_into::<js_sys::WebAssembly::Memory>()
        .map_err(|_| internal())?
        .buffer()
        .dyn_into::<js_sys::ArrayBuffer>()
        .map_err(|_| internal())?
        .byte_length();
    let o = Object::new();
    for (k, v) in [
        ("tensors", hookgrad_core::live::tensors() as f64),
        ("nodes", hookgrad_core::live::nodes() as f64),
        ("handles", crate::table::live_handles() as f64),
        ("wasmBytes", f64::from(bytes)),
    ] {
        Reflect::set(&o, &k.into(), &JsValue::from_f64(v))?;
    }
    Ok(o.into())
}
