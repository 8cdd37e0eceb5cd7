//! The exports every scalar program runs most — `a.add(b)`, `a.mul(2)`,
//! `a.tanh()` … and `t.registerHook(f)` — answering a plain number: the new
//! handle's id (or the hook handle's number), or 0 with the error kept for
//! `take_error`. A `Result` crosses back through a return slot in memory
//! that wasm-bindgen's glue reads and frees per call; W1 makes ~10^4
//! handles a step. The JS `Error` is made by `take_error`, a few frames
//! below the user's call: V8 keeps only ten frames of a stack, and the
//! playground reads the user's line from it.

use wasm_bindgen::prelude::*;

use crate::convert::js_error;
use crate::table;
use crate::tensor::arith;
use hookgrad_core::deferred::{Handle as Held, Op, Other};
use hookgrad_core::{Error, Result};

/// The error of the last export here that answered 0.
enum Pending {
    Core(Error),
    Js(JsValue),
}

hookgrad_core::thread_refcell!(
    static PENDING_ERROR: Option<Pending> = None;
);

fn keep(p: Pending) {
    PENDING_ERROR.with(|e| {
        if let Ok(mut e) = e.try_borrow_mut() {
            *e = Some(p);
        }
    });
}

/// An export's answer: the new handle's id, or 0 with its error kept.
#[inline]
#[cfg_attr(hookgrad_nightly, optimize(speed))]
fn answer(r: Result<Held>) -> u32 {
    match r {
        Ok(held) => table::put_held(held),
        Err(e) => {
            keep(Pending::Core(e));
            0
        }
    }
}

/// `r`'s value, or `failed` with its (JS) error kept.
pub(crate) fn answer_js<T>(r: std::result::Result<T, JsValue>, failed: T) -> T {
    r.unwrap_or_else(|e| {
        keep(Pending::Js(e));
        failed
    })
}

/// The ops by the facade's numbering (crate/js/hookgrad_tensor.js: `add sub
/// mul div`, then `tanh neg exp log sigmoid relu pow sin cos abs sqrt`).
#[inline]
#[cfg_attr(hookgrad_nightly, optimize(speed))]
fn op_of(kind: u32) -> Option<Op> {
    Some(match kind {
        0 => Op::Add,
        1 => Op::Sub,
        2 => Op::Mul,
        3 => Op::Div,
        4 => Op::Tanh,
        5 => Op::Neg,
        6 => Op::Exp,
        7 => Op::Log,
        8 => Op::Sigmoid,
        9 => Op::Relu,
        10 => Op::Pow,
        11 => Op::Sin,
        12 => Op::Cos,
        13 => Op::Abs,
        14 => Op::Sqrt,
        _ => return None,
    })
}

#[inline]
#[cfg_attr(hookgrad_nightly, optimize(speed))]
fn run(kind: u32, a: &Held, other: Other<'_>) -> Result<Held> {
    match op_of(kind) {
        Some(op) => arith(a, op, other),
        None => Err(Error::internal(format!("no typed op {kind}"))),
    }
}

fn released() -> Error {
    table::released("tensor")
}

/// `a op v` for a number `v` (a unary op: `v` unused): the new handle's id.
#[wasm_bindgen]
#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub fn tensor_op_number(kind: u32, a: u32, v: f64) -> u32 {
    let other = if op_of(kind).is_some_and(Op::is_unary) {
        Other::None
    } else {
        Other::Number(v as f32)
    };
    answer(table::with_held(a, |a| run(kind, a, other)).unwrap_or_else(|| Err(released())))
}

/// `a op b` for a Tensor `b`: the new handle's id.
#[wasm_bindgen]
#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub fn tensor_op_tensor(kind: u32, a: u32, b: u32) -> u32 {
    let r = table::with_held(a, |a| {
        table::with_held(b, |b| run(kind, a, Other::Handle(b)))
    });
    answer(r.flatten().unwrap_or_else(|| Err(released())))
}

/// The error an export here kept when it answered 0 (taken once).
#[wasm_bindgen]
pub fn take_error() -> JsValue {
    let p = PENDING_ERROR.with(|e| e.try_borrow_mut().ok().and_then(|mut e| e.take()));
    match p {
        Some(Pending::Js(e)) => e,
        Some(Pending::Core(e)) => js_error(e),
        None => js_error(Error::internal("no pending error")),
    }
}

/// Releases the tensor, node and module handles `ids` (`dispose()`, the
/// garbage collector's callback, the end of an `hg.tidy`).
#[wasm_bindgen]
pub fn release_handles(ids: &[u32]) {
    table::release(ids);
}

/// Releases one handle (a `Uint32Array` per collected object would cost
/// more than the call).
#[wasm_bindgen]
pub fn release_handle(id: u32) {
    table::release(&[id]);
}
