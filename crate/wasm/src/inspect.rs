//! `graph()` and `trace()` as plain JS objects (no wasm handles), so the
//! playground can post them between workers and replay them freely. The
//! records are `hookgrad_core::protocol` types; their serde derives build the
//! JS objects directly through serde-wasm-bindgen (NaN and ±Infinity arrive
//! as the numbers themselves).
//!
//! Measured (Node 20, release build, W4: 333 × tanh(y·w + x) → a 1,002-node
//! graph and its backward trace, each + JSON.stringify as `npm run bench`
//! does; median / min of 80 interleaved runs on the shared 2-core machine):
//!   hand-written JSON writer + JSON.parse (before): graph 5.03 / 4.65 ms, trace 5.40 / 5.18 ms
//!   serde_json::to_string + JSON.parse:             graph 5.70 / 5.33 ms, trace 4.96 / 4.74 ms
//!   same, f32 shortest repr instead of f64:         graph 5.52 / 5.10 ms, trace 4.77 / 4.63 ms
//!   serde-wasm-bindgen (kept):                      graph 3.81 / 3.59 ms, trace 4.03 / 3.80 ms
//! Natively (opt-level "z") the serde_json text takes 0.3 ms (graph) and
//! 0.4 ms (trace); in wasm, decoding ~300 KB of UTF-8 and JSON.parse cost
//! more than building the objects directly.

use serde::Serialize;
use wasm_bindgen::prelude::*;

use hookgrad_core::protocol::{serialize_numbers, Event, GraphInfo};

use crate::convert::JsResult;

fn to_js<T: Serialize + ?Sized>(value: &T) -> JsResult<JsValue> {
    // Plain objects for maps (a hook event's flattened target), null for None.
    let s = serde_wasm_bindgen::Serializer::new()
        .serialize_missing_as_null(true)
        .serialize_maps_as_objects(true);
    serialize_numbers(value, &s).map_err(|e| {
        js_sys::Error::new(&format!(
            "internal error: converting a graph/trace to JS failed: {e}"
        ))
        .into()
    })
}

pub fn graph_to_js(g: &GraphInfo) -> JsResult<JsValue> {
    to_js(g)
}

pub fn events_to_js(events: &[Event]) -> JsResult<JsValue> {
    to_js(events)
}
