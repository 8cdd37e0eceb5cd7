//! `graph()` and `trace()` as plain JS objects (no wasm handles), so the
//! playground can post them between workers and replay them freely. The
//! records are `hookgrad_core::protocol` types; their serde derives write one
//! flat tape (tape.rs) that the facade's decoder turns into the objects (NaN
//! and ±Infinity arrive as the numbers themselves). Without the facade (the
//! wasm browser tests, hookgrad_core.js used bare) `decode` below builds the
//! same objects from the same tape in Rust. It replaced a serde-wasm-bindgen
//! serializer (issue 10, W5: ~12 KB of wasm for a fallback); the test at the
//! end checks the tape against serde_json, an independent serializer.
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
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use hookgrad_core::protocol::{serialize_numbers, Event, GraphInfo};

use crate::convert::JsResult;
use crate::tape::{Tape, ARR, FALSE, NULL, NUM, OBJ, STR, TRUE};

thread_local! {
    /// The facade's tape decoder (`hg.init` sets it); without it (the wasm
    /// tests, or hookgrad_core.js used bare) `decode` builds the objects.
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

fn internal(e: impl std::fmt::Display) -> JsValue {
    js_sys::Error::new(&format!(
        "internal error: converting a graph/trace to JS failed: {e}"
    ))
    .into()
}

fn to_js<T: Serialize + ?Sized>(value: &T) -> JsResult<JsValue> {
    // Cloned out first: no borrow is held while the decoder (JS) runs.
    let decoder = DECODER.with(|d| d.try_borrow().ok().and_then(|d| d.clone()));
    let mut tape = SPARE
        .with(|s| s.try_borrow_mut().ok().and_then(|mut s| s.take()))
        .unwrap_or_default();
    tape.clear();
    serialize_numbers(value, &mut tape).map_err(internal)?;
    let strings: js_sys::Array = tape.strings.iter().map(|s| JsValue::from_str(s)).collect();
    let r = match decoder {
        Some(decode) => {
            // SAFETY: a view of the tape in wasm memory instead of a copy (no
            // ~0.5 MB ArrayBuffer per call for the collector). It is valid while
            // wasm memory does not grow: the decoder is plain JS that never calls
            // into wasm, and the view is not used after it returns.
            let words = unsafe { js_sys::Float64Array::view(&tape.words) };
            decode.call2(&JsValue::UNDEFINED, &words, &strings)
        }
        None => decode(&tape.words, &strings),
    };
    SPARE.with(|s| {
        if let Ok(mut s) = s.try_borrow_mut() {
            *s = Some(tape);
        }
    });
    r
}

/// The facade's `__decodeTape` (crate/js/hookgrad.js), in Rust, with its
/// errors: the tape's value as plain JS objects.
fn decode(words: &[f64], strings: &js_sys::Array) -> JsResult<JsValue> {
    let mut i = 0;
    let v = decode_value(words, strings, &mut i)?;
    if i != words.len() {
        return Err(internal(format_args!(
            "{} tape words left over",
            words.len() - i
        )));
    }
    Ok(v)
}

fn decode_value(words: &[f64], strings: &js_sys::Array, i: &mut usize) -> JsResult<JsValue> {
    let mut next = || {
        let w = words.get(*i).copied();
        *i += 1;
        w.ok_or_else(|| internal("tape ends early"))
    };
    let w = next()?;
    Ok(match w {
        NUM => JsValue::from_f64(next()?),
        STR => strings.get(next()? as u32),
        NULL => JsValue::NULL,
        TRUE => JsValue::TRUE,
        FALSE => JsValue::FALSE,
        ARR => {
            let n = next()? as u32;
            let a = js_sys::Array::new_with_length(n);
            for k in 0..n {
                a.set(k, decode_value(words, strings, i)?);
            }
            a.into()
        }
        OBJ => {
            let n = next()? as usize;
            let o = js_sys::Object::new();
            for _ in 0..n {
                let key = decode_value(words, strings, i)?;
                let v = decode_value(words, strings, i)?;
                js_sys::Reflect::set(&o, &key, &v)?;
            }
            o.into()
        }
        _ => return Err(internal(format_args!("bad tape word {w} at {}", *i - 1))),
    })
}

pub fn graph_to_js(g: &GraphInfo) -> JsResult<JsValue> {
    to_js(g)
}

pub fn events_to_js(events: &[Event]) -> JsResult<JsValue> {
    to_js(events)
}

#[cfg(test)]
mod tests {
    //! The tape (what both decoders read) against serde_json's view of the
    //! same records: a graph and a backward trace with a hook, a retained
    //! gradient, names and nested values.
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use std::rc::Rc;

    use serde_json::{Map, Value};

    use hookgrad_core::hooks::TensorHook;
    use hookgrad_core::protocol::serialize_numbers;
    use hookgrad_core::tensor::{Tensor, TensorOptions};

    use crate::tape::{Tape, ARR, FALSE, NULL, NUM, OBJ, STR, TRUE};

    fn decode(t: &Tape, i: &mut usize) -> Value {
        let w = t.words[*i];
        *i += 1;
        let mut next = || {
            *i += 1;
            t.words[*i - 1]
        };
        match w {
            NUM => serde_json::json!(next()),
            STR => Value::String(t.strings[next() as usize].clone()),
            NULL => Value::Null,
            TRUE => Value::Bool(true),
            FALSE => Value::Bool(false),
            ARR => {
                let n = next() as usize;
                Value::Array((0..n).map(|_| decode(t, i)).collect())
            }
            OBJ => {
                let n = next() as usize;
                let mut o = Map::new();
                for _ in 0..n {
                    let Value::String(k) = decode(t, i) else {
                        panic!("a key that is not a string")
                    };
                    o.insert(k, decode(t, i));
                }
                Value::Object(o)
            }
            _ => panic!("bad tape word {w}"),
        }
    }

    /// serde_json writes integers as integers; the tape has only f64.
    fn numbers_as_f64(v: Value) -> Value {
        match v {
            Value::Number(n) => serde_json::json!(n.as_f64().unwrap()),
            Value::Array(a) => Value::Array(a.into_iter().map(numbers_as_f64).collect()),
            Value::Object(o) => {
                Value::Object(o.into_iter().map(|(k, v)| (k, numbers_as_f64(v))).collect())
            }
            v => v,
        }
    }

    fn same<T: serde::Serialize + ?Sized>(value: &T) -> usize {
        let mut tape = Tape::default();
        serialize_numbers(value, &mut tape).unwrap();
        let mut i = 0;
        let from_tape = decode(&tape, &mut i);
        assert_eq!(i, tape.words.len(), "tape words left over");
        let expected = numbers_as_f64(serde_json::to_value(value).unwrap());
        assert_eq!(from_tape, expected);
        tape.words.len()
    }

    #[test]
    fn the_tape_holds_what_serde_json_sees() {
        let x = Tensor::from_vec(
            &[2, 2],
            vec![0.5, -1.0, 2.0, 0.1],
            &TensorOptions {
                requires_grad: true,
                name: Some("x".into()),
            },
        )
        .unwrap();
        let hook: Rc<dyn TensorHook> = Rc::new(|g: &Tensor| Ok(Some(g.mul(2.0)?)));
        let ((), events) = hookgrad_core::trace::trace(|| {
            let y = x.mul(&x).unwrap().tanh().unwrap();
            y.retain_grad().unwrap();
            y.register_hook(hook.clone()).unwrap();
            y.sum().unwrap().backward().unwrap();
        });
        assert!(events.len() > 3, "{} events", events.len());
        assert!(same(&events[..]) > 50);
        let y = x.mul(3.0).unwrap().sum().unwrap();
        let graph = hookgrad_core::graph::graph(&[y, x.clone()]);
        assert!(same(&graph) > 50);
    }
}
