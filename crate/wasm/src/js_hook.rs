//! One JS function as a hook of the core (`JsHook`; the core's hook traits
//! are implemented in hook_impls.rs): how it is called, what its throw
//! becomes, and the RemovableHandle that names it.

use std::cell::{Cell, OnceCell};

use js_sys::Function;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::convert::{js_message, js_to_opt_tensors, tensor_arg, type_name};
use crate::facade::{self, Returned};
use crate::live::JsHookGuard;
use hookgrad_core::error::{Error, Result};
use hookgrad_core::hooks::RemovableHandle;
use hookgrad_core::protocol::SourceLoc;
use hookgrad_core::tensor::Tensor;

pub struct JsHook {
    /// None: a host key hook (crate::key_hook), called through the host's
    /// dispatcher with `key`; it is only ever a tensor hook.
    f: Option<Function>,
    key: u32,
    /// A key hook's name, as the host's index of it (`facade.keyHookName`).
    name_index: u32,
    /// The function's `name`, read on first use (graph(), traces, errors):
    /// reading it at registration cost ~0.2 µs per `registerHook`.
    name: OnceCell<String>,
    pub(crate) source: Option<SourceLoc>,
    /// The table slot and id of its handle (`handle`), else id 0: when the
    /// hook goes (removed, or its list dropped with a finished graph) the
    /// handle can only be a no-op, and the table forgets it.
    slot: Cell<(u32, u32)>,
}

impl Drop for JsHook {
    fn drop(&mut self) {
        let (slot, id) = self.slot.get();
        if id != 0 {
            // Taken out, then dropped: a handle's drop runs no JS.
            drop(crate::table::take_hook(slot, id));
        }
        if self.f.is_none() {
            crate::key_hook::count(self.key, false);
        }
    }
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
            f: Some(f),
            key: 0,
            name_index: 0,
            name: OnceCell::new(),
            source,
            slot: Cell::new((0, 0)),
        }
    }

    /// The host's tensor hook `key` (crate::key_hook); the Python mode
    /// places its registration itself.
    pub fn keyed(key: u32, name_index: u32) -> Self {
        crate::key_hook::count(key, true);
        JsHook {
            f: None,
            key,
            name_index,
            name: OnceCell::new(),
            source: None,
            slot: Cell::new((0, 0)),
        }
    }

    pub(crate) fn name_str(&self) -> &str {
        self.name.get_or_init(|| match &self.f {
            Some(f) => String::from(f.name()),
            None => facade::key_hook_name(self.name_index),
        })
    }

    pub(crate) fn shown_name(&self) -> &str {
        match self.name_str() {
            "" => "hook",
            n => n,
        }
    }

    /// Calls the function with `args` (a module's forward, a multi-grad hook).
    pub(crate) fn apply(&self, args: &[JsValue]) -> Result<JsValue> {
        match &self.f {
            Some(f) => facade::call(f, args),
            None => Err(Error::internal("a key hook called as a function")),
        }
    }

    /// A call of the user's hook (not a module's forward). The arguments are
    /// built inside `JsHookGuard`, so the JS handles made for them do not
    /// count as holders for AccumulateGrad's steal; console lines the hook
    /// prints are attributed to its trace event.
    pub(crate) fn call_hook<A: AsRef<[JsValue]>>(
        &self,
        make_args: impl FnOnce() -> A,
    ) -> Result<JsValue> {
        let _in_hook = JsHookGuard::enter();
        let args = make_args();
        let _call = hookgrad_core::trace::HookCall::begin();
        self.apply(args.as_ref())
    }

    /// A tensor hook's call: the gradient crosses as a table id (the
    /// facade wraps it), the result comes back as a number.
    pub(crate) fn call_tensor_hook(&self, grad: &Tensor) -> Result<Option<Tensor>> {
        let (returned, kept) = {
            let _in_hook = JsHookGuard::enter();
            let id = crate::table::put_tensor(grad.clone());
            let _call = hookgrad_core::trace::HookCall::begin();
            match &self.f {
                Some(f) => facade::call_tensor_hook(f, id)?,
                None => facade::call_key_hook(self.key, id)?,
            }
        };
        match returned {
            Returned::Nothing => {
                crate::convert::note_js_call(None);
                Ok(None)
            }
            Returned::Tensor(id) => {
                crate::convert::note_js_call(None);
                // `id`: a live Tensor handle the hook returned, read by the
                // trampoline just now (no JS ran since).
                crate::table::tensor(id)
                    .unwrap_or_else(|| Err(Error::internal("a hook returned a released handle")))
                    .map(Some)
            }
            Returned::Value => {
                crate::convert::note_js_call(None);
                self.returned_tensor(&kept)
            }
            Returned::Threw => Err(facade::thrown(&kept)),
        }
    }

    /// What a tensor hook returned, other than nothing or a live Tensor.
    pub(crate) fn returned_tensor(&self, r: &JsValue) -> Result<Option<Tensor>> {
        if r.is_undefined() || r.is_null() {
            return Ok(None);
        }
        tensor_arg(r)
            .map_err(|e| Error::runtime(js_message(&e)))?
            .map(Some)
            .ok_or_else(|| {
                Error::type_error(format!(
                    "expected Tensor or None (got {}) from hook '{}'",
                    type_name(r),
                    self.shown_name()
                ))
            })
    }

    pub(crate) fn grads(&self, v: &JsValue) -> Result<Option<Vec<Option<Tensor>>>> {
        js_to_opt_tensors(v, self.shown_name())
    }

    /// Keeps `h`, the handle of this hook, in the table: the number its JS
    /// RemovableHandle holds (`slot · 2^32 + id`), or 0 when the table could
    /// not take it (an internal fault, reported by the next export's check).
    pub(crate) fn keep_handle(&self, h: RemovableHandle) -> f64 {
        let id = h.id.0;
        let slot = crate::table::put_hook(h);
        if slot == 0 {
            return 0.0;
        }
        self.slot.set((slot, id));
        f64::from(slot) * 4_294_967_296.0 + f64::from(id)
    }

    /// `keep_handle`'s JS RemovableHandle.
    pub(crate) fn handle(&self, h: RemovableHandle) -> JsValue {
        facade::handle_object(self.keep_handle(h))
    }
}

/// `remove()` of a RemovableHandle (idempotent, like PyTorch's).
#[wasm_bindgen]
pub fn handle_remove(slot: u32, id: u32) {
    // Taken out first: removing drops the hook, never under the borrow.
    if let Some(h) = crate::table::take_hook(slot, id) {
        h.remove();
    }
}

/// A hook argument as a function (`typeof f === 'function'`), taken over
/// without copying the reference; else `what must be a function, not …`.
pub fn hook_fn(f: JsValue, what: &str) -> crate::convert::JsResult<Function> {
    if f.is_function() {
        Ok(f.unchecked_into())
    } else {
        Err(crate::convert::type_error(format!(
            "{what} must be a function, not {}",
            type_name(&f)
        )))
    }
}

/// The first stack frame outside hookgrad's own JS and wasm: the user's
/// `register*()` call. V8 (`at f (file:1:2)`, `… <anonymous>:1:2)` for
/// `new Function` code) and Firefox (`f@file:1:2`) both end a frame with
/// `:line:column`; wasm frames end with a hex offset and are skipped.
fn registering_frame() -> Option<SourceLoc> {
    // V8 keeps 10 frames: enough in a release build; a dev build's deeper
    // wasm stack may hide the user's frame, so read again, deeper, then.
    let (_, line, column) =
        crate::js_stack::user_place(false).or_else(|| crate::js_stack::user_place(true))?;
    Some(SourceLoc { line, column })
}
