//! `console.warn` for the engine's PyTorch warnings, as often as Python's
//! default warnings filter shows them: once per text and place. A warning
//! Python places inside torch is shown once; one placed at the user's line
//! (non-leaf `.grad`, a full backward hook with no input needing grad) once
//! per calling line — so a training loop prints it once, not every step.
//! Every warning is still a `warning` trace event (the core records those).

use std::cell::RefCell;

use hookgrad_core::context::WarnPlace;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = warn)]
    fn console_warn(s: &str);
}

thread_local! {
    /// A JS function that takes every warning instead (`hg.setWarningHandler`):
    /// the Python mode hands them to Python's `warnings`, whose filters decide
    /// what is shown, at the Python program's own line.
    static HANDLER: RefCell<Option<js_sys::Function>> = const { RefCell::new(None) };
    /// The keys shown: a few (one per text and place), searched only when a
    /// warning fires; a list rather than a hash set saves a SipHash-keyed
    /// table's code (issue 10, W5).
    static SHOWN: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// The warning sink the binding installs at start-up.
pub fn show(message: &str, place: WarnPlace) {
    // Cloned out first: the handler may re-enter the engine (no borrow held).
    let handler = HANDLER.with(|h| h.try_borrow().ok().and_then(|h| h.clone()));
    if let Some(f) = handler {
        let at_caller = matches!(place, WarnPlace::Caller);
        let _ = f.call2(
            &JsValue::NULL,
            &JsValue::from_str(message),
            &JsValue::from_bool(at_caller),
        );
        return;
    }
    let key = match place {
        WarnPlace::Library => message.to_owned(),
        WarnPlace::Caller => format!("{message}\n{}", caller_line()),
    };
    // try_borrow_mut: a sink that cannot tell shows the warning (never panics).
    let first = SHOWN.with(|s| {
        s.try_borrow_mut()
            .map(|mut s| {
                let new = !s.contains(&key);
                if new {
                    s.push(key);
                }
                new
            })
            .unwrap_or(true)
    });
    if first {
        console_warn(message);
    }
}

/// The user's line as `file:line:column`; empty if no frame is the user's.
fn caller_line() -> String {
    crate::js_stack::user_place(true)
        .map(|(file, line, column)| format!("{file}:{line}:{column}"))
        .unwrap_or_default()
}

/// `hg.setWarningHandler(fn | null)`: `fn(message, atCaller)` receives every
/// engine warning (no `console.warn`, no de-duplication) until it is reset
/// with `null`. `atCaller`: PyTorch places this warning at the user's line
/// (else inside the library).
#[wasm_bindgen(js_name = setWarningHandler)]
pub fn set_warning_handler(f: JsValue) -> Result<(), JsValue> {
    let f = if f.is_null() || f.is_undefined() {
        None
    } else {
        Some(f.dyn_into::<js_sys::Function>().map_err(|_| {
            crate::convert::type_error(
                "setWarningHandler(fn): fn must be a function or null".to_owned(),
            )
        })?)
    };
    HANDLER.with(|h| {
        if let Ok(mut h) = h.try_borrow_mut() {
            *h = f;
        }
    });
    Ok(())
}
