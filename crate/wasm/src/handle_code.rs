//! The number a JS Tensor handle carries in `__wbg_ptr` (issue 10, W1):
//!
//! - **even, nonzero**: the pointer of the wasm-bindgen box of a `Tensor`,
//!   what wasm-bindgen's generated methods take;
//! - **odd**: `row · 2 + 1`, a deferred op's row in the core's table
//!   (`hookgrad_core::deferred`), held by the JS handle itself. No box: a
//!   W1 step makes ~10^4 such handles, and boxing each one (an `Rc`
//!   allocation per op, a borrow per use, a free per handle at the end of
//!   the scope) was a fifth of the step in wasm (bench/PROFILE.md);
//! - **0**: released.
//!
//! The facade (crate/js/hookgrad.js) turns a row handle into a box
//! (`__boxRow`) before it calls any generated method; the exports here,
//! the arithmetic every scalar program runs and the handles' release, take
//! either kind. Each answers a code, or 0 with its error kept for
//! `__takeError`: a plain number crosses back, where a `Result` would cost
//! a JS array per call. The JS `Error` is made by `__takeError`, a few
//! frames below the user's call: V8 keeps only ten frames of a stack, and
//! the playground reads the user's line from it.

use std::mem::ManuallyDrop;

use wasm_bindgen::convert::{IntoWasmAbi, RefFromWasmAbi};
use wasm_bindgen::prelude::*;

use crate::convert::js_error;
use crate::tensor::{arith, Tensor};
use hookgrad_core::deferred::{self, Handle as Held, Lazy, Op, Other};
use hookgrad_core::{Error, Result};

hookgrad_core::thread_cell!(
    /// The error of the last export here that answered 0.
    static PENDING_ERROR: Option<Error> = None;
);

/// The row an odd code names.
#[inline]
#[cfg_attr(hookgrad_nightly, optimize(speed))]
fn row_of(code: u32) -> Option<u32> {
    (code & 1 == 1).then_some(code >> 1)
}

/// `f` on the handle `code` names; `None` for 0 (released).
#[inline]
#[cfg_attr(hookgrad_nightly, optimize(speed))]
fn with_held<R>(code: u32, f: impl FnOnce(&Held) -> R) -> Option<R> {
    if code == 0 {
        return None;
    }
    if let Some(row) = row_of(code) {
        // Borrowed, not taken: the JS handle keeps its hold on the row. A
        // row that is not live is the core's internal error, not another
        // row's value.
        let held = ManuallyDrop::new(Held::Lazy(Lazy::from_row(row)));
        return Some(f(&held));
    }
    // SAFETY: an even nonzero code is the `__wbg_ptr` of a live Tensor box,
    // the pointer wasm-bindgen itself passes to every `&self` method of the
    // handle (wasm-bindgen is pinned in Cargo.toml); the facade zeroes it
    // when the handle is freed. `ref_from_abi` holds a count of the box for
    // the call, so a JS hook that releases the handle meanwhile cannot
    // free it under `f`.
    let handle =
        unsafe { Tensor::ref_from_abi(wasm_bindgen::__rt::WasmPtr::from_usize(code as usize)) };
    Some(f(handle.held()))
}

/// The core tensor a code names (a Tensor argument the facade recognised
/// in one property read, `convert::live_tensor_fast`).
pub(crate) fn tensor_of(code: u32) -> Option<hookgrad_core::Result<hookgrad_core::Tensor>> {
    with_held(code, Held::tensor)
}

/// A new handle as its code: a deferred result keeps its row, anything
/// else is boxed.
#[inline]
#[cfg_attr(hookgrad_nightly, optimize(speed))]
fn code_of(held: Held) -> u32 {
    match held {
        Held::Lazy(l) => {
            crate::live::handle_created();
            let row = l.into_row();
            if row < 1 << 31 {
                (row << 1) | 1
            } else {
                // No room in a code: a box instead (it takes over the hold).
                box_code(Tensor::from_row(Lazy::from_row(row)))
            }
        }
        held => box_code(Tensor::hold(held)),
    }
}

fn box_code(t: Tensor) -> u32 {
    t.into_abi().into_usize() as u32
}

/// An export's answer: the new handle's code, or 0 with its error kept.
#[inline]
#[cfg_attr(hookgrad_nightly, optimize(speed))]
fn answer(r: Result<Held>) -> u32 {
    match r {
        Ok(held) => code_of(held),
        Err(e) => {
            PENDING_ERROR.with(|p| p.set(Some(e)));
            0
        }
    }
}

fn released() -> Error {
    Error::internal("a released handle reached a typed op (the facade checks first)")
}

/// The ops by the facade's numbering (crate/js/hookgrad.js: `add sub mul
/// div`, then `tanh`, then `neg exp log sigmoid relu pow sin cos abs sqrt`).
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

/// `a op v` for a number `v` (a unary op: `v` unused): the new handle's
/// code.
#[wasm_bindgen(js_name = __opNumber)]
#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub fn op_number(kind: u32, a: u32, v: f64) -> u32 {
    let other = if op_of(kind).is_some_and(Op::is_unary) {
        Other::None
    } else {
        Other::Number(v as f32)
    };
    answer(with_held(a, |a| run(kind, a, other)).unwrap_or_else(|| Err(released())))
}

/// `a op b` for a Tensor `b`: the new handle's code.
#[wasm_bindgen(js_name = __opTensor)]
#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub fn op_tensor(kind: u32, a: u32, b: u32) -> u32 {
    let r = with_held(a, |a| with_held(b, |b| run(kind, a, Other::Handle(b))));
    answer(r.flatten().unwrap_or_else(|| Err(released())))
}

/// The error an export here kept when it answered 0 (taken once).
#[wasm_bindgen(js_name = __takeError)]
pub fn take_error() -> JsValue {
    js_error(
        PENDING_ERROR
            .with(|p| p.take())
            .unwrap_or_else(|| Error::internal("no pending error")),
    )
}

/// A row handle's hold, moved into a new box: the pointer its JS handle
/// gives wasm-bindgen's methods from now on (0: `code` is not a row).
#[wasm_bindgen(js_name = __boxRow)]
pub fn box_row(code: u32) -> u32 {
    match row_of(code) {
        Some(row) => box_code(Tensor::from_row(Lazy::from_row(row))),
        None => 0,
    }
}

/// Releases one handle (`dispose()`, the garbage collector's callback).
#[wasm_bindgen(js_name = __dropHandle)]
pub fn drop_handle(code: u32) {
    free_tensors(&[code]);
}

/// The end of an `hg.tidy`: releases the Tensor handles it owned in one
/// call (a training step's scope holds ~10^4), the rows in one borrow of
/// the core's table.
#[wasm_bindgen(js_name = __freeTensors)]
#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub fn free_tensors(codes: &[u32]) {
    let mut rows = Vec::with_capacity(codes.len());
    for &code in codes.iter().filter(|&&c| c != 0) {
        if let Some(row) = row_of(code) {
            rows.push(row);
            continue;
        }
        // SAFETY: an even nonzero code is the `__wbg_ptr` of a live Tensor
        // box, which the facade zeroed before this call (no JS can use it
        // again): what `__wbg_tensor_free(p, 1)` would be given.
        unsafe {
            wasm_bindgen::__rt::free_rust_object(
                code as usize as *mut wasm_bindgen::__rt::WasmRefCell<Tensor>,
                true,
            )
        }
    }
    if !rows.is_empty() {
        crate::live::handles_dropped(rows.len());
        deferred::drop_rows(&rows);
    }
}
