//! The core hook traits implemented by one wrapper of `js_sys::Function`.
//! A JS throw becomes a core error carrying the hook's message; the engine
//! adds which tensor/node/module the hook was on. Values handed to hooks are
//! new wrappers sharing the core tensor, so a hook may keep them.

use std::cell::OnceCell;

use js_sys::{Array as JsArray, Function};
use wasm_bindgen::convert::{IntoWasmAbi, RefFromWasmAbi};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

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
    /// The slot and id of its by-id handle (`keep_by_id`), else id 0: when
    /// the hook goes (removed, or its list dropped with a finished graph)
    /// the handle can only be a no-op, and the table forgets it.
    by_id: std::cell::Cell<(u32, u32)>,
}

impl Drop for JsHook {
    fn drop(&mut self) {
        let by_id = self.by_id.get();
        if by_id.1 != 0 {
            forget_by_id(by_id);
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
            f,
            name: OnceCell::new(),
            source,
            by_id: std::cell::Cell::new((0, 0)),
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
        if let Some(r) = with_trampoline(|t| t.apply(&self.f, args)) {
            return r;
        }
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

    /// A tensor hook's call through the facade's trampoline: the gradient
    /// crosses as a handle pointer (JS wraps it), the result comes back as a
    /// number. `None` without the facade (hookgrad_core.js used bare).
    fn call_tensor_hook(&self, grad: &Tensor) -> Option<Result<Option<Tensor>>> {
        with_trampoline(|t| {
            let status = {
                let _in_hook = JsHookGuard::enter();
                let ptr = crate::tensor::Tensor::wrap(grad.clone())
                    .into_abi()
                    .into_usize() as u32;
                let _call = hookgrad_core::trace::HookCall::begin();
                t.tensor(&self.f, ptr)
            };
            match Returned::from(status) {
                Returned::Nothing => {
                    crate::convert::note_js_call(None);
                    Ok(None)
                }
                Returned::Tensor(ptr) => {
                    crate::convert::note_js_call(None);
                    // `ptr`: the code of a live Tensor handle the hook
                    // returned, read by the trampoline just now (no JS ran
                    // since, so the handle cannot have been released).
                    crate::handle_code::tensor_of(ptr)
                        .unwrap_or_else(|| {
                            Err(Error::internal("a hook returned a released handle"))
                        })
                        .map(Some)
                }
                Returned::Value => {
                    crate::convert::note_js_call(None);
                    self.returned_tensor(&t.take())
                }
                Returned::Threw => Err(thrown(&t.take())),
            }
        })
    }

    /// What a tensor hook returned, other than nothing or a live Tensor.
    fn returned_tensor(&self, r: &JsValue) -> Result<Option<Tensor>> {
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

    fn grads(&self, v: &JsValue) -> Result<Option<Vec<Option<Tensor>>>> {
        js_to_opt_tensors(v, self.shown_name())
    }
}

// ----- the facade's hook trampoline --------------------------------------------
//
// wasm-bindgen calls a JS function through an import wrapped in
// `handleError` (`try { f.apply(this, arguments) }`) and hands every value
// over as a heap reference; a hook's result then costs further calls to
// classify. The facade (crate/js/hookgrad.js, `hookCalls`) instead gives one
// object whose methods catch themselves and answer with a number, so these
// imports need no `catch`: a JS exception never unwinds through wasm.

#[wasm_bindgen]
extern "C" {
    /// `{tensor(f, ptr), apply(f, a, b, c, n), take()}` from the facade.
    pub type Trampoline;
    /// Calls `f(Tensor.__wrap(ptr))`; see [`Returned`].
    #[wasm_bindgen(method)]
    fn tensor(this: &Trampoline, f: &Function, ptr: u32) -> f64;
    /// Calls `f` with the first `n` of `a, b, c`; see [`Returned`] (never `Tensor`).
    #[wasm_bindgen(method, js_name = apply)]
    fn call_n(
        this: &Trampoline,
        f: &Function,
        a: &JsValue,
        b: &JsValue,
        c: &JsValue,
        n: u32,
    ) -> f64;
    /// The value or exception the last call kept (then forgets it).
    #[wasm_bindgen(method)]
    fn take(this: &Trampoline) -> JsValue;
}

hookgrad_core::one_per_thread!(
    /// Set once by the facade's `init`; never borrowed mutably after. A
    /// plain static in the wasm (read on every hook call; a `thread_local!`
    /// access is an indirect call there, per_thread.rs).
    static TRAMPOLINE: std::cell::OnceCell<Trampoline> = std::cell::OnceCell::new();
);

/// Called once by the facade with its trampoline object.
#[wasm_bindgen(js_name = __setHookTrampoline)]
pub fn set_hook_trampoline(t: JsValue) {
    TRAMPOLINE.with(|c| {
        // A second call (a second init of the same instance) keeps the first.
        let _ = c.set(t.unchecked_into());
    });
}

fn with_trampoline<R>(f: impl FnOnce(&Trampoline) -> R) -> Option<R> {
    // Re-entrant (a hook that runs a backward calls hooks again): a shared
    // reference into the cell, no borrow flag.
    TRAMPOLINE.with(|c| c.get().map(f))
}

/// A trampoline call's answer.
enum Returned {
    /// `undefined` or `null`.
    Nothing,
    /// A live Tensor handle's code (`handle_code`: a box or a row).
    Tensor(u32),
    /// Anything else, kept for `take()`.
    Value,
    /// It threw; the exception is kept for `take()`.
    Threw,
}

impl From<f64> for Returned {
    fn from(status: f64) -> Self {
        if status == 0.0 {
            Returned::Nothing
        } else if status == -2.0 {
            Returned::Threw
        } else if status >= 1.0 && status <= f64::from(u32::MAX) && status.fract() == 0.0 {
            Returned::Tensor(status as u32)
        } else {
            Returned::Value
        }
    }
}

impl Trampoline {
    fn apply(&self, f: &Function, args: &[JsValue]) -> Result<JsValue> {
        let u = &JsValue::UNDEFINED;
        let status = match args {
            [] => self.call_n(f, u, u, u, 0),
            [a] => self.call_n(f, a, u, u, 1),
            [a, b] => self.call_n(f, a, b, u, 2),
            [a, b, c] => self.call_n(f, a, b, c, 3),
            _ => {
                let all: JsArray = args.iter().collect();
                self.call_n(f, &all, u, u, 4)
            }
        };
        match Returned::from(status) {
            Returned::Nothing => {
                crate::convert::note_js_call(None);
                Ok(JsValue::UNDEFINED)
            }
            Returned::Threw => Err(thrown(&self.take())),
            _ => {
                crate::convert::note_js_call(None);
                Ok(self.take())
            }
        }
    }
}

/// A hook's exception as the core's error (its message; the exception
/// itself becomes the JS error's `cause`).
fn thrown(e: &JsValue) -> Error {
    crate::convert::note_js_call(Some(e));
    Error::runtime(js_message(e))
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
        if let Some(r) = self.call_tensor_hook(grad) {
            return r;
        }
        let r = self.call_hook(|| [tensor_to_js(grad.clone())])?;
        self.returned_tensor(&r)
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
}

impl Handle {
    pub fn wrap(inner: hookgrad_core::hooks::RemovableHandle) -> Handle {
        Handle { inner }
    }

    /// 0 while anything it removes from lives, else its id.
    fn dead_id(&self) -> u32 {
        if self.inner.is_live() {
            0
        } else {
            self.inner.id.0
        }
    }
}

// ----- handles kept by id ------------------------------------------------------
//
// `t.registerHook(fn)` through the facade returns a handle that is a plain
// JS object holding its id and its slot here (crate/js/hookgrad.js): no
// wasm box, nothing for `hg.tidy` or the garbage collector to free. Its
// `remove()` finds the core handle in its slot. A handle whose hook is gone
// (removed, or dropped with a finished graph) can only be a no-op: the
// hook's drop empties its slot, for reuse. Keeping and forgetting are O(1):
// a W3-like loop registers and drops one per op (a sorted table's binary
// search on every drop was ~4% of a hooked backward).

/// The largest slot a handle can name: its JS side keeps `slot · 2^32 + id`
/// in one number, exact below 2^53.
const MAX_SLOT: usize = (1 << 20) - 1;

/// Slots of kept handles; a free slot is `None` and listed in `free`.
struct ById {
    slots: Vec<Option<(u32, hookgrad_core::hooks::RemovableHandle)>>,
    free: Vec<u32>,
}

impl ById {
    /// The handle in `slot` if it still is handle `id` (a slot is reused
    /// once its hook is gone), taken out.
    fn take(&mut self, slot: u32, id: u32) -> Option<hookgrad_core::hooks::RemovableHandle> {
        let entry = self.slots.get_mut(slot as usize)?;
        if entry.as_ref().is_none_or(|(i, _)| *i != id) {
            return None;
        }
        let (_, h) = entry.take()?;
        self.free.push(slot);
        Some(h)
    }
}

hookgrad_core::thread_refcell!(
    /// Read twice per `registerHook` and once per hook dropped: a plain
    /// static in the wasm, as TRAMPOLINE.
    static BY_ID: ById = ById {
        slots: Vec::new(),
        free: Vec::new(),
    };
);

/// Whether a handle can be kept by id now (a free slot, or room for one).
pub fn can_keep_by_id() -> bool {
    BY_ID.with(|b| {
        b.try_borrow()
            .is_ok_and(|b| !b.free.is_empty() || b.slots.len() <= MAX_SLOT)
    })
}

/// Keeps `h`, the handle of `hook`, for `__removeHook`: its slot and id as
/// the facade keeps them (`slot · 2^32 + id`), or 0 when it could not be
/// kept (see [`can_keep_by_id`]; never after that returned true).
pub fn keep_by_id(hook: &JsHook, h: hookgrad_core::hooks::RemovableHandle) -> f64 {
    let id = h.id.0;
    let slot = BY_ID.with(|b| {
        let mut b = b.try_borrow_mut().ok()?;
        let slot = match b.free.pop() {
            Some(slot) => slot,
            None if b.slots.len() <= MAX_SLOT => {
                b.slots.push(None);
                u32::try_from(b.slots.len() - 1).ok()?
            }
            None => return None,
        };
        *b.slots.get_mut(slot as usize)? = Some((id, h));
        Some(slot)
    });
    match slot {
        Some(slot) => {
            hook.by_id.set((slot, id));
            f64::from(slot) * 4_294_967_296.0 + f64::from(id)
        }
        None => {
            hookgrad_core::error::fault("the hook handle table is busy or full");
            0.0
        }
    }
}

/// A by-id handle's hook was dropped: the handle can only be a no-op now.
fn forget_by_id((slot, id): (u32, u32)) {
    // Busy only if a hook were dropped while the table changes (never: the
    // table holds weak references); its slot would then stay taken.
    let h = BY_ID.with(|b| b.try_borrow_mut().ok().and_then(|mut b| b.take(slot, id)));
    drop(h);
}

/// `remove()` of a handle kept by id (idempotent, like every handle's).
#[wasm_bindgen(js_name = __removeHook)]
pub fn remove_by_id(slot: u32, id: u32) {
    // Taken out first: removing drops the hook, never under the borrow.
    let h = BY_ID.with(|b| b.try_borrow_mut().ok().and_then(|mut b| b.take(slot, id)));
    if let Some(h) = h {
        h.remove();
    }
}

/// The end of an `hg.tidy`, for the RemovableHandles it owned, in one call:
/// per handle, 0 while anything it removes from lives (the facade hands it
/// to the garbage collector), else its id — and the handle is freed (its
/// `remove()` could only be a no-op; the facade keeps the id).
#[wasm_bindgen(js_name = __settleHandles)]
pub fn settle_handles(ptrs: &[u32]) -> Vec<u32> {
    ptrs.iter()
        .map(|&p| {
            if p == 0 {
                return 0;
            }
            let ptr = p as usize as *mut wasm_bindgen::__rt::WasmRefCell<Handle>;
            // SAFETY: `p` is the `__wbg_ptr` of a live RemovableHandle (the
            // pointer its `&self` methods get); the borrow ends before the free.
            let dead_id = {
                let h = unsafe { Handle::ref_from_abi(wasm_bindgen::__rt::WasmPtr::from_ptr(ptr)) };
                h.dead_id()
            };
            if dead_id != 0 {
                // SAFETY: as `__wbg_removablehandle_free(p, 1)`; the facade
                // zeroes the handle's pointer when given its id.
                unsafe { wasm_bindgen::__rt::free_rust_object(ptr, true) }
            }
            dead_id
        })
        .collect()
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
