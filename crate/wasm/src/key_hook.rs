//! A tensor hook the host names by a number (the Python mode's hooks): the
//! engine calls the host's one dispatcher (`facade.callKeyHook`) with the
//! hook's key and the gradient's table id — plain numbers, no JS Tensor and
//! no JS function per hook. The host maps the key to its callable (a Python
//! function) and answers with a number. A loop registering the same Python
//! hook on 2,000 tensors (W3) thus crosses with numbers only.
//!
//! The host learns which keys no hook holds any more from
//! `take_dead_hook_keys` (its callables can then go).

use std::cell::{Cell, OnceCell};
use std::rc::Rc;

use wasm_bindgen::prelude::*;

use crate::convert::IntoJs;
use crate::facade;
use crate::live::JsHookGuard;
use hookgrad_core::error::{Error, Result};
use hookgrad_core::hooks::TensorHook;
use hookgrad_core::tensor::Tensor;

hookgrad_core::thread_refcell!(
    /// Live hooks per key (the host reuses the keys it is told are dead,
    /// so this stays as long as the most keys alive at once).
    static LIVE: Vec<u32> = Vec::new();
);

hookgrad_core::thread_refcell!(
    /// Keys whose last hook went, not yet taken by the host.
    static DEAD: Vec<u32> = Vec::new();
);

/// Counts a hook of `key` in (`true`) or out; a key's last hook out lists it.
fn count(key: u32, add: bool) -> Result<()> {
    let dead = LIVE.with(|l| {
        let mut l = l
            .try_borrow_mut()
            .map_err(|_| Error::internal("the hook keys are busy"))?;
        let i = key as usize;
        if l.len() <= i {
            l.resize(i + 1, 0);
        }
        let n = l
            .get_mut(i)
            .ok_or_else(|| Error::internal("a hook key out of range"))?;
        *n = if add { *n + 1 } else { n.saturating_sub(1) };
        Ok::<bool, Error>(*n == 0)
    })?;
    if dead {
        // Listed once (a key may die, be registered again and die again
        // before the host looks): no sort in the wasm for a few keys.
        DEAD.with(|d| {
            d.try_borrow_mut().map(|mut d| {
                if !d.contains(&key) {
                    d.push(key);
                }
            })
        })
        .map_err(|_| Error::internal("the dead hook keys are busy"))?;
    }
    Ok(())
}

pub struct KeyHook {
    key: u32,
    /// The host's index of the hook's name (`facade.keyHookName`).
    name_index: u32,
    /// Read on first use (graph(), traces, errors), not per registration.
    name: OnceCell<String>,
    /// Its handle's table slot and id (as `JsHook`'s): freed with the hook.
    slot: Cell<(u32, u32)>,
}

impl Drop for KeyHook {
    fn drop(&mut self) {
        let (slot, id) = self.slot.get();
        if id != 0 {
            drop(crate::table::take_hook(slot, id));
        }
        // No JS runs in a drop: the key is only listed for the host.
        if count(self.key, false).is_err() {
            hookgrad_core::error::fault("the hook keys are busy");
        }
    }
}

impl TensorHook for KeyHook {
    fn call(&self, grad: &Tensor) -> Result<Option<Tensor>> {
        let (status, kept, id) = {
            let _in_hook = JsHookGuard::enter();
            let id = crate::table::put_tensor(grad.clone());
            if id == 0 {
                return Err(Error::internal(
                    "the handle table could not take a hook's gradient",
                ));
            }
            let _call = hookgrad_core::trace::HookCall::begin();
            let (status, kept) = facade::call_key_hook(self.key, id)?;
            (status, kept, id)
        };
        // status: -2 — it threw; else 2 · (the returned tensor's id, or 0)
        // + 1 when the host let go of the gradient's handle `id` (freed here).
        if status == -2.0 {
            return Err(facade::thrown(&kept));
        }
        crate::convert::note_js_call(None);
        if !((0.0..8_589_934_592.0).contains(&status) && status.fract() == 0.0) {
            return Err(Error::internal(
                "a hook dispatcher answered an unknown status",
            ));
        }
        let status = status as u64;
        if status & 1 == 1 {
            crate::table::release(&[id]);
        }
        match (status >> 1) as u32 {
            0 => Ok(None),
            r => crate::table::tensor(r)
                .unwrap_or_else(|| Err(Error::internal("a hook returned a released handle")))
                .map(Some),
        }
    }

    fn name(&self) -> String {
        if let Some(n) = self.name.get() {
            return n.clone();
        }
        // Fetched outside any borrow; a second fetch (re-entry) is harmless.
        let n = facade::key_hook_name(self.name_index);
        let _ = self.name.set(n.clone());
        n
    }
}

/// `t.register_hook(fn)` for the host's hook `key` (named by the host's
/// `name_index`): the handle as `slot · 2^32 + id`, or 0 with the error
/// kept for `take_error` (PyTorch's, for a tensor that does not require grad).
#[wasm_bindgen]
pub fn tensor_register_key_hook(id: u32, key: u32, name_index: u32) -> f64 {
    let r = (|| {
        count(key, true).js()?;
        let hook = Rc::new(KeyHook {
            key,
            name_index,
            name: OnceCell::new(),
            slot: Cell::new((0, 0)),
        });
        let h = crate::tensor::core(id)?.register_hook(hook.clone()).js()?;
        let hid = h.id.0;
        let slot = crate::table::put_hook(h);
        if slot == 0 {
            return Ok(0.0);
        }
        hook.slot.set((slot, hid));
        Ok(f64::from(slot) * 4_294_967_296.0 + f64::from(hid))
    })();
    crate::fast_ops::answer_js(r, 0.0)
}

/// The keys no hook holds any more, each once (a key registered again
/// since is not among them): the host may reuse them.
#[wasm_bindgen]
pub fn take_dead_hook_keys() -> Vec<u32> {
    let dead = DEAD.with(|d| d.try_borrow_mut().map(|mut d| std::mem::take(&mut *d)));
    let Ok(mut dead) = dead else {
        hookgrad_core::error::fault("the dead hook keys are busy");
        return Vec::new();
    };
    LIVE.with(|l| match l.try_borrow() {
        Ok(l) => dead.retain(|&k| l.get(k as usize) == Some(&0)),
        Err(_) => {
            hookgrad_core::error::fault("the hook keys are busy");
            dead.clear();
        }
    });
    dead
}
