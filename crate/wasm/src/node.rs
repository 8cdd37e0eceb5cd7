//! The JS `Node` class: a backward node (`tensor.gradFn`).

use std::rc::Rc;

use js_sys::Array as JsArray;
use wasm_bindgen::prelude::*;

use crate::convert::{function, JsResult};
use crate::hooks::{Handle, JsHook};
use crate::tensor::Tensor;
use hookgrad_core::node::NodeRef;

#[wasm_bindgen]
pub struct Node {
    inner: NodeRef,
}

impl Node {
    pub fn wrap(inner: NodeRef) -> Node {
        crate::live::handle_created();
        Node { inner }
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        crate::live::handle_dropped();
    }
}

#[wasm_bindgen]
impl Node {
    #[wasm_bindgen(getter)]
    pub fn name(&self) -> String {
        self.inner.name.to_string()
    }

    #[wasm_bindgen(getter)]
    pub fn id(&self) -> u32 {
        self.inner.id.0
    }

    /// `[[Node or null, inputNr], ...]`.
    #[wasm_bindgen(getter, js_name = nextFunctions)]
    pub fn next_functions(&self) -> JsValue {
        self.inner
            .next_functions()
            .into_iter()
            .map(|(n, nr)| {
                let pair = JsArray::new();
                pair.push(
                    &n.map(|n| JsValue::from(Node::wrap(n)))
                        .unwrap_or(JsValue::NULL),
                );
                pair.push(&JsValue::from_f64(nr as f64));
                JsValue::from(pair)
            })
            .collect::<JsArray>()
            .into()
    }

    /// The leaf of an `AccumulateGrad` node.
    #[wasm_bindgen(getter)]
    pub fn variable(&self) -> JsValue {
        self.inner
            .variable()
            .map(|t| Tensor::wrap(t).into())
            .unwrap_or(JsValue::NULL)
    }

    #[wasm_bindgen(js_name = registerPrehook)]
    pub fn register_prehook(&self, f: JsValue) -> JsResult<Handle> {
        let f = function(&f, "registerPrehook(): hook")?;
        Ok(Handle::wrap(
            self.inner.register_prehook(Rc::new(JsHook::new(f))),
        ))
    }

    #[wasm_bindgen(js_name = registerHook)]
    pub fn register_hook(&self, f: JsValue) -> JsResult<Handle> {
        let f = function(&f, "registerHook(): hook")?;
        Ok(Handle::wrap(
            self.inner.register_hook(Rc::new(JsHook::new(f))),
        ))
    }

    #[wasm_bindgen(js_name = toString)]
    pub fn to_string_js(&self) -> String {
        format!("<{} object>", self.inner.name)
    }
}
