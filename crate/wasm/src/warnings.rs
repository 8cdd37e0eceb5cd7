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
    /// The keys shown: a few (one per text and place), searched only when a
    /// warning fires; a list rather than a hash set saves a SipHash-keyed
    /// table's code (issue 10, W5).
    static SHOWN: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// The warning sink the binding installs at start-up.
pub fn show(message: &str, place: WarnPlace) {
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
