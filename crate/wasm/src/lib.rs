//! The wasm-bindgen surface of hookgrad (the contract in `shared/js-api.md`):
//! the only crate that imports wasm-bindgen / js-sys. It converts JS values to
//! `hookgrad_core` types, calls the core, and converts the result back.

#![cfg_attr(hookgrad_nightly, feature(optimize_attribute))]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod backward_fn;
pub mod convert;
mod custom_fn;
mod data;
pub mod facade;
pub mod fast_ops;
pub mod functional;
pub mod graph_hooks;
mod hook_impls;
pub mod inspect;
pub mod js_hook;
mod js_stack;
mod key_hook;
pub mod live;
pub mod module;
pub mod node;
pub mod options;
// Natively only its tests use it (the global allocator is the wasm's).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
mod pool;
pub mod saved_hooks;
pub mod table;
pub mod tensor;
mod tensor_ops;
mod tensor_views;
mod warnings;

use std::rc::Rc;

/// Small blocks from per-size free lists (pool.rs: why).
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: pool::Pool = pool::Pool::new();

use wasm_bindgen::prelude::*;

use convert::*;
use js_hook::{hook_fn, JsHook};

use hookgrad_core::context::{self, Semantics};
use hookgrad_core::protocol::{Event, LogLevel};
use hookgrad_core::tensor::{Tensor as CoreTensor, TensorOptions};

#[wasm_bindgen(start)]
pub fn start() {
    context::set_warning_sink(Some(Rc::new(warnings::show)));
}

fn tensor_options(requires_grad: Option<bool>, name: Option<String>) -> TensorOptions {
    TensorOptions {
        requires_grad: requires_grad.unwrap_or(false),
        name,
    }
}

/// `hg.tensor(data, {requiresGrad?, name?, shape?})`.
#[wasm_bindgen]
pub fn tensor(data: JsValue, opts: JsValue) -> JsResult<JsValue> {
    let o: options::TensorDataOptions = options::read(&opts, "tensor()")?;
    let (shape, values) = parse_data(&data, options::given(&o.shape).cloned())?;
    let o = tensor_options(o.requires_grad, o.name);
    CoreTensor::from_vec(&shape, values, &o).js().map(leaf)
}

/// A new leaf for JS, noted by an active trace (`traceRun`'s graph shows it).
fn leaf(t: CoreTensor) -> JsValue {
    hookgrad_core::trace::note_tensor(&t);
    tensor_to_js(t)
}

fn filled(shape: JsValue, opts: JsValue, what: &str, value: f32) -> JsResult<JsValue> {
    let o: options::TensorOptions = options::read(&opts, what)?;
    let o = tensor_options(o.requires_grad, o.name);
    let s = parse_shape(&shape)?;
    CoreTensor::full(&s, value, &o).js().map(leaf)
}

#[wasm_bindgen]
pub fn zeros(shape: JsValue, opts: JsValue) -> JsResult<JsValue> {
    filled(shape, opts, "zeros()", 0.0)
}

#[wasm_bindgen]
pub fn ones(shape: JsValue, opts: JsValue) -> JsResult<JsValue> {
    filled(shape, opts, "ones()", 1.0)
}

/// Deterministic for a given `seed` (hookgrad's generator, not torch's).
#[wasm_bindgen]
pub fn randn(shape: JsValue, opts: JsValue) -> JsResult<JsValue> {
    let o: options::RandnOptions = options::read(&opts, "randn()")?;
    let s = parse_shape(&shape)?;
    let seed = options::seed(o.seed, "randn()")?;
    let o = tensor_options(o.requires_grad, o.name);
    let values = hookgrad_core::ops::random::randn(&s, seed).js()?;
    Ok(leaf(CoreTensor::from_array_opts(values, &o)))
}

/// `hg.grad(outputs, inputs, {gradOutputs?, retainGraph?, allowUnused?})`.
#[wasm_bindgen]
pub fn grad(outputs: JsValue, inputs: JsValue, opts: JsValue) -> JsResult<JsValue> {
    check_opts(&opts, "grad()")?;
    let outs = tensors_from_js(&outputs, "grad(): outputs")?;
    let ins = tensors_from_js(&inputs, "grad(): inputs")?;
    let o: options::GradOptions = options::read(&opts, "grad()")?;
    let grad_outputs =
        backward_fn::gradient_list(options::given(&o.grad_outputs).cloned(), outs.len())?;
    let create = o.create_graph.unwrap_or(false);
    // PyTorch: retain_graph defaults to create_graph.
    let retain = o.retain_graph.unwrap_or(create);
    let allow_unused = o.allow_unused.unwrap_or(false);
    let r =
        hookgrad_core::engine::grad_ext(&outs, &ins, grad_outputs, retain, create, allow_unused)
            .js()?;
    Ok(tensor::tensors_to_js(r))
}

/// `hg.noGrad(fn)`: runs `fn` with graph recording off.
#[wasm_bindgen(js_name = noGrad)]
pub fn no_grad(f: JsValue) -> JsResult<JsValue> {
    let f = function(&f, "noGrad(fn): fn")?;
    let _guard = context::GradModeGuard::set(false);
    f.call0(&JsValue::UNDEFINED)
}

/// Turns the deferral of 0-d ops off or on (`hookgrad_core::deferred`):
/// tests run the same program both ways and compare what JS observes.
#[wasm_bindgen]
pub fn defer_scalar_ops(on: bool) {
    hookgrad_core::deferred::set_enabled(on);
}

/// `hg.setGradEnabled(on)`: switches graph recording, returns the previous
/// mode (PyTorch's `torch.set_grad_enabled`; `with torch.no_grad():` in the
/// Python mode is this call on enter and again on exit).
#[wasm_bindgen(js_name = setGradEnabled)]
pub fn set_grad_enabled(on: bool) -> bool {
    context::set_grad_enabled(on)
}

#[wasm_bindgen(js_name = isGradEnabled)]
pub fn is_grad_enabled() -> bool {
    context::is_grad_enabled()
}

/// `hg.graph(roots)`: plain data for every reachable tensor and node.
#[wasm_bindgen]
pub fn graph(roots: JsValue) -> JsResult<JsValue> {
    let roots = if roots.is_undefined() {
        Vec::new()
    } else {
        tensors_from_js(&roots, "graph(): roots")?
    };
    inspect::graph_to_js(&roots)
}

/// Runs `f` under a trace; an exception ends the events with an `error`.
fn traced(f: &JsValue, what: &str) -> JsResult<(Vec<Event>, Vec<CoreTensor>)> {
    let f = function(f, what)?;
    let (result, mut events, tensors) =
        hookgrad_core::trace::trace_with_tensors(|| f.call0(&JsValue::UNDEFINED));
    if let Err(e) = &result {
        let message = js_message(e);
        let already = events.iter().rev().any(|ev| matches!(ev, Event::Error { message: m, .. } if message.contains(m.as_str()) || m.contains(&message)));
        if !already {
            events.push(Event::Error {
                message,
                node: None,
                hook: None,
            });
        }
    }
    Ok((events, tensors))
}

/// `hg.trace(fn)`: the ordered events `fn()` caused. If `fn` throws, the
/// events up to the failure are returned, ending with an `error` event.
#[wasm_bindgen]
pub fn trace(f: JsValue) -> JsResult<JsValue> {
    let (events, _) = traced(&f, "trace(fn): fn")?;
    inspect::events_to_js(&events)
}

/// `hg.traceRun(fn)`: `{trace, graph}` — `trace(fn)` plus `graph()` of every
/// tensor an op of the run consumed or produced (those still alive), so a
/// caller need not collect the run's tensors itself (the playground).
#[wasm_bindgen(js_name = traceRun)]
pub fn trace_run(f: JsValue) -> JsResult<JsValue> {
    let (events, tensors) = traced(&f, "traceRun(fn): fn")?;
    let out = js_sys::Object::new();
    js_sys::Reflect::set(&out, &"trace".into(), &inspect::events_to_js(&events)?)?;
    js_sys::Reflect::set(&out, &"graph".into(), &inspect::graph_to_js(&tensors)?)?;
    Ok(out.into())
}

/// `hg.recordLog(level, text)`: appends a `log` event (`level`: 'log',
/// 'info', 'debug', 'warn' or 'error') to the active trace, if any. A line
/// logged inside a hook follows that hook's event and names its handle.
#[wasm_bindgen(js_name = recordLog)]
pub fn record_log(level: JsValue, text: JsValue) -> JsResult<()> {
    let level = level
        .as_string()
        .and_then(|l| LogLevel::parse(&l))
        .ok_or_else(|| {
            let got = match level.as_string() {
                Some(l) => format!("'{l}'"),
                None => type_name(&level),
            };
            type_error(format!(
                "recordLog(): level must be 'log', 'info', 'debug', 'warn' or 'error', not {got}"
            ))
        })?;
    let text = text.as_string().ok_or_else(|| {
        type_error(format!(
            "recordLog(): text must be a string, not {}",
            type_name(&text)
        ))
    })?;
    hookgrad_core::trace::record_log(level, text);
    Ok(())
}

#[wasm_bindgen(js_name = setSemantics)]
pub fn set_semantics(s: JsValue) -> JsResult<()> {
    let name = s.as_string().ok_or_else(|| {
        type_error(format!(
            "setSemantics(): expected 'pytorch-2' or 'pytorch-1', but got {}",
            type_name(&s)
        ))
    })?;
    context::set_semantics(Semantics::parse(&name).js()?);
    Ok(())
}

#[wasm_bindgen(js_name = getSemantics)]
pub fn get_semantics() -> String {
    context::semantics().name().to_string()
}

#[wasm_bindgen(js_name = registerModuleForwardPreHook)]
pub fn register_module_forward_pre_hook(f: JsValue) -> JsResult<JsValue> {
    let hook = Rc::new(JsHook::new(hook_fn(
        f,
        "registerModuleForwardPreHook(): hook",
    )?));
    Ok(
        hook.handle(hookgrad_core::module::global::register_forward_pre_hook(
            hook.clone(),
        )),
    )
}

#[wasm_bindgen(js_name = registerModuleForwardHook)]
pub fn register_module_forward_hook(f: JsValue) -> JsResult<JsValue> {
    let hook = Rc::new(JsHook::new(hook_fn(
        f,
        "registerModuleForwardHook(): hook",
    )?));
    Ok(
        hook.handle(hookgrad_core::module::global::register_forward_hook(
            hook.clone(),
        )),
    )
}

#[wasm_bindgen(js_name = registerModuleFullBackwardHook)]
pub fn register_module_full_backward_hook(f: JsValue) -> JsResult<JsValue> {
    let hook = Rc::new(JsHook::new(hook_fn(
        f,
        "registerModuleFullBackwardHook(): hook",
    )?));
    let h = hookgrad_core::module::global::register_full_backward_hook(hook.clone()).js()?;
    Ok(hook.handle(h))
}

#[wasm_bindgen(js_name = registerModuleFullBackwardPreHook)]
pub fn register_module_full_backward_pre_hook(f: JsValue) -> JsResult<JsValue> {
    let hook = Rc::new(JsHook::new(hook_fn(
        f,
        "registerModuleFullBackwardPreHook(): hook",
    )?));
    Ok(hook.handle(hookgrad_core::module::global::register_full_backward_pre_hook(hook.clone())))
}
