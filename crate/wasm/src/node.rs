//! The exports behind the JS `Node` class (crate/js/hookgrad_classes.js): a backward
//! node (`tensor.gradFn`), named by its handle's table id.

use std::rc::Rc;

use js_sys::Array as JsArray;
use wasm_bindgen::prelude::*;

use crate::convert::{js_error, tensor_to_js, JsResult};
use crate::js_hook::{hook_fn, JsHook};
use hookgrad_core::node::NodeRef;

fn node(id: u32) -> JsResult<NodeRef> {
    crate::table::node(id).ok_or_else(|| js_error(crate::table::released("node")))
}

#[wasm_bindgen]
pub fn node_name(id: u32) -> JsResult<String> {
    Ok(node(id)?.name.to_string())
}

#[wasm_bindgen]
pub fn node_id(id: u32) -> JsResult<u32> {
    Ok(node(id)?.id.0)
}

/// `[[Node or null, inputNr], ...]`.
#[wasm_bindgen]
pub fn node_next_functions(id: u32) -> JsResult<JsValue> {
    Ok(node(id)?
        .next_functions()
        .into_iter()
        .map(|(n, nr)| {
            let pair = JsArray::new();
            pair.push(&n.map_or(JsValue::NULL, |n| {
                crate::facade::node_object(crate::table::put_node(n))
            }));
            pair.push(&JsValue::from_f64(nr as f64));
            JsValue::from(pair)
        })
        .collect::<JsArray>()
        .into())
}

/// The leaf of an `AccumulateGrad` node, else null.
#[wasm_bindgen]
pub fn node_variable(id: u32) -> JsResult<JsValue> {
    Ok(node(id)?.variable().map_or(JsValue::NULL, tensor_to_js))
}

#[wasm_bindgen]
pub fn node_register_prehook(id: u32, f: JsValue) -> JsResult<JsValue> {
    let f = hook_fn(f, "registerPrehook(): hook")?;
    let hook = Rc::new(JsHook::new(f));
    Ok(hook.handle(node(id)?.register_prehook(hook.clone())))
}

#[wasm_bindgen]
pub fn node_register_hook(id: u32, f: JsValue) -> JsResult<JsValue> {
    let f = hook_fn(f, "registerHook(): hook")?;
    let hook = Rc::new(JsHook::new(f));
    Ok(hook.handle(node(id)?.register_hook(hook.clone())))
}

#[wasm_bindgen]
pub fn node_to_string(id: u32) -> JsResult<String> {
    Ok(format!("<{} object>", node(id)?.name))
}
