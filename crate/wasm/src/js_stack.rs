//! The JS call stack as V8 or Firefox print it, read to find the user's line
//! (where a hook was registered, where a warning is placed).

use wasm_bindgen::JsValue;

/// Frames of the current JS stack, innermost first. `deep` raises V8's
/// `Error.stackTraceLimit` (10) for this one read: under a backward pass the
/// engine's own frames alone can fill ten.
pub fn frames(deep: bool) -> Vec<String> {
    let read = || {
        js_sys::Reflect::get(&js_sys::Error::new(""), &"stack".into())
            .ok()
            .and_then(|s| s.as_string())
            .unwrap_or_default()
    };
    let stack = if deep {
        let ctor: JsValue = js_sys::Error::new("").constructor().into();
        let key: JsValue = "stackTraceLimit".into();
        let limit = js_sys::Reflect::get(&ctor, &key).unwrap_or(JsValue::UNDEFINED);
        let _ = js_sys::Reflect::set(&ctor, &key, &JsValue::from(200));
        let stack = read();
        let _ = js_sys::Reflect::set(&ctor, &key, &limit);
        stack
    } else {
        read()
    };
    stack.lines().map(|l| l.trim().to_owned()).collect()
}

/// `(file, line, column)` of a frame that ends with `:line:column` (V8's
/// `at f (file:1:2)`, `… <anonymous>:1:2)` for `new Function` code,
/// Firefox's `f@file:1:2`); wasm frames end with a hex offset: None.
pub fn place(frame: &str) -> Option<(&str, u32, u32)> {
    let mut parts = frame.trim_end_matches(')').rsplitn(3, ':');
    let column = parts.next()?.parse().ok()?;
    let line = parts.next()?.parse().ok()?;
    Some((parts.next().unwrap_or(""), line, column))
}

/// Whether a frame's file is hookgrad's own: the facade's modules and the
/// glue (`hookgrad.js`, `hookgrad_*.js`), or wasm.
pub fn is_ours(file: &str) -> bool {
    let name = file.rsplit('/').next().unwrap_or(file);
    (name.starts_with("hookgrad") && name.ends_with(".js")) || file.contains("wasm://")
}

/// The first frame outside hookgrad: the user's line.
pub fn user_place(deep: bool) -> Option<(String, u32, u32)> {
    frames(deep).iter().find_map(|f| {
        let (file, line, column) = place(f)?;
        (!is_ours(file)).then(|| (file.to_owned(), line, column))
    })
}
