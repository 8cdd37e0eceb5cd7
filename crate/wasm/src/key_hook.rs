//! Tensor hooks the host names by a number (the Python mode's hooks): a
//! `JsHook` without a function (`JsHook::keyed`), which the engine calls
//! through the host's one dispatcher (`facade.callKeyHook`) with the hook's
//! key and the gradient's table id — plain numbers, no JS function per
//! hook. The host maps the key to its callable (a Python function). A loop
//! registering the same Python hook on 2,000 tensors (W3) crosses with
//! numbers only, and its handles are numbers too.
//!
//! The host learns which keys no hook holds any more from
//! `take_dead_hook_key` (their callables can go, the keys be reused).

use wasm_bindgen::prelude::*;

use crate::js_hook::JsHook;

struct Keys {
    /// Live hooks per key (the host reuses the keys it is told are dead,
    /// so this is as long as the most keys alive at once).
    live: Vec<u32>,
    /// Keys whose last hook went, not yet taken by the host.
    dead: Vec<u32>,
}

hookgrad_core::thread_refcell!(
    static KEYS: Keys = Keys {
        live: Vec::new(),
        dead: Vec::new(),
    };
);

/// Counts a hook of `key` in (`add`) or out; a key's last hook out lists
/// it. Runs no JS (called from a hook's drop).
pub(crate) fn count(key: u32, add: bool) {
    let ok = KEYS.with(|k| {
        let Ok(mut k) = k.try_borrow_mut() else {
            return false;
        };
        let k = &mut *k;
        let i = key as usize;
        while k.live.len() <= i {
            k.live.push(0); // keys come one at a time: no resize code for it
        }
        let Some(n) = k.live.get_mut(i) else {
            return false;
        };
        *n = if add { *n + 1 } else { n.saturating_sub(1) };
        if *n == 0 {
            k.dead.push(key);
        }
        true
    });
    if !ok {
        hookgrad_core::error::fault("the hook keys are busy");
    }
}

/// `t.register_hook(fn)` for the host's hook `key` (named by the host's
/// `name_index`): the handle as `slot · 2^32 + id`, or 0 with the error
/// kept for `take_error` (PyTorch's, for a tensor that does not require grad).
#[wasm_bindgen]
pub fn tensor_register_key_hook(id: u32, key: u32, name_index: u32) -> f64 {
    crate::tensor::register_hook(id, Ok(JsHook::keyed(key, name_index)))
}

/// A key no hook holds any more (a key registered again since is skipped),
/// or 0 when there is none: the host may reuse it. One at a time — the
/// host asks once per 256 new keys, until 0. A key that died twice before
/// the host looked comes twice (the host forgets a key once).
#[wasm_bindgen]
pub fn take_dead_hook_key() -> u32 {
    KEYS.with(|k| {
        let Ok(mut k) = k.try_borrow_mut() else {
            hookgrad_core::error::fault("the hook keys are busy");
            return 0;
        };
        while let Some(d) = k.dead.pop() {
            if k.live.get(d as usize) == Some(&0) {
                return d;
            }
        }
        0
    })
}
