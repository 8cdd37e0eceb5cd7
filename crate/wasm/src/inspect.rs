//! `graph()` and `trace()` as plain JS objects (no wasm handles), so the
//! playground can post them between workers and replay them freely. The
//! records are `hookgrad_core::protocol` types, written onto a tape
//! (`protocol::tape`) that the facade's decoder, generated from the same
//! declarations, turns into objects (crate/js/records.js). With
//! the feature `serde-reference` (the wasm browser tests, and the reference
//! build of tests/node/tape.test.mjs), their serde derives can also build
//! the objects through serde-wasm-bindgen, when no decoder is set (NaN and
//! ±Infinity arrive as the numbers themselves). The shipped package has no
//! such fallback (issue 10, W5).
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

use std::cell::RefCell;

use js_sys::Function;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use hookgrad_core::protocol::Event;
use hookgrad_core::tensor::Tensor;

use crate::convert::JsResult;
use hookgrad_core::protocol::Tape;

thread_local! {
    /// The facade's tape decoder (`hg.init` sets it); without it (the wasm
    /// tests, or hookgrad_core.js used bare) only a `serde-reference` build
    /// can build the objects (serde-wasm-bindgen, call by call).
    static DECODER: RefCell<Option<Function>> = const { RefCell::new(None) };
    /// The last call's tape, reused: growing a fresh 0.5 MB Vec by doubling
    /// was ~8% of trace(). Taken out while in use (a re-entrant call, from
    /// a decoder that calls graph(), simply gets a new one).
    static SPARE: RefCell<Option<Tape>> = const { RefCell::new(None) };
}

/// Called once by the facade with its `decodeTape(words, strings)`.
#[wasm_bindgen(js_name = __setTapeDecoder)]
pub fn set_tape_decoder(f: JsValue) {
    DECODER.with(|d| {
        if let Ok(mut d) = d.try_borrow_mut() {
            *d = f.dyn_into::<Function>().ok();
        }
    });
}

/// What `to_js` may be given: serde-serializable where that is used.
#[cfg(feature = "serde-reference")]
trait Record: serde::Serialize {}
#[cfg(feature = "serde-reference")]
impl<T: serde::Serialize> Record for T {}
#[cfg(not(feature = "serde-reference"))]
trait Record {}
#[cfg(not(feature = "serde-reference"))]
impl<T> Record for T {}

#[cfg(feature = "serde-reference")]
fn internal(e: impl std::fmt::Display) -> JsValue {
    js_sys::Error::new(&format!(
        "internal error: converting a graph/trace to JS failed: {e}"
    ))
    .into()
}

/// Without the decoder: serde-wasm-bindgen converts `value()`.
#[cfg(feature = "serde-reference")]
fn without_decoder<T: serde::Serialize>(value: impl FnOnce() -> T) -> JsResult<JsValue> {
    // Plain objects for maps (a hook event's flattened target), null for None.
    let s = serde_wasm_bindgen::Serializer::new()
        .serialize_missing_as_null(true)
        .serialize_maps_as_objects(true);
    hookgrad_core::protocol::serialize_numbers(&value(), &s).map_err(internal)
}

/// Without the decoder, in the shipped build: a clear error (the facade,
/// hookgrad.js, always sets it).
#[cfg(not(feature = "serde-reference"))]
fn without_decoder<T>(_value: impl FnOnce() -> T) -> JsResult<JsValue> {
    Err(js_sys::Error::new(
        "internal error: graph()/trace() need the record decoder that hookgrad.js sets at init; \
         load hookgrad through hookgrad.js, not hookgrad_core.js",
    )
    .into())
}

/// `write` puts the record on the tape and the facade's decoder builds it;
/// without the decoder, see `without_decoder`.
fn to_js<T>(write: impl FnOnce(&mut Tape), value: impl FnOnce() -> T) -> JsResult<JsValue>
where
    T: Record,
{
    // Cloned out first: no borrow is held while the decoder (JS) runs.
    let decoder = DECODER.with(|d| d.try_borrow().ok().and_then(|d| d.clone()));
    if let Some(decode) = decoder {
        let mut tape = SPARE
            .with(|s| s.try_borrow_mut().ok().and_then(|mut s| s.take()))
            .unwrap_or_default();
        tape.clear();
        write(&mut tape);
        let strings: js_sys::Array = tape.strings.iter().map(|s| JsValue::from_str(s)).collect();
        // A copy (one memcpy): a view into wasm memory would need `unsafe`.
        let words = js_sys::Float64Array::from(tape.words.as_slice());
        let r = decode.call2(&JsValue::UNDEFINED, &words, &strings);
        SPARE.with(|s| {
            if let Ok(mut s) = s.try_borrow_mut() {
                *s = Some(tape);
            }
        });
        return r;
    }
    without_decoder(value)
}

/// `graph(roots)` as JS objects (written onto the tape as the core walks it).
pub fn graph_to_js(roots: &[Tensor]) -> JsResult<JsValue> {
    to_js(|t| t.graph(roots), || hookgrad_core::graph::graph(roots))
}

pub fn events_to_js(events: &[Event]) -> JsResult<JsValue> {
    to_js(|t| t.events(events), || events)
}
