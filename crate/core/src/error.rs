//! One error type for the whole engine. Messages follow PyTorch's wording
//! wherever PyTorch has one, because learners paste them into search engines.

use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// Maps to PyTorch's `RuntimeError`.
    Runtime(String),
    /// Maps to PyTorch's `TypeError` / `ValueError`: bad arguments.
    Type(String),
    /// Maps to PyTorch's `IndexError` (dimension out of range).
    Index(String),
    /// A broken invariant inside hookgrad (a failed RefCell borrow, a missing
    /// slot): PyTorch's "INTERNAL ASSERT FAILED", a `RuntimeError` whose
    /// message starts "internal error:" and names the fault.
    Internal(String),
    /// A user hook raised: PyTorch's `RuntimeError` naming the hook's target
    /// ("tensor hook 'h' on tensor 'c' raised an error: …"), and which hook
    /// it was (the trace's `error` event names it, so the UI need not parse
    /// the message).
    Hook(Box<HookError>),
}

/// [`Error::Hook`]'s message and hook.
#[derive(Debug, Clone, PartialEq)]
pub struct HookError {
    pub message: String,
    pub hook: crate::protocol::FailedHook,
}

impl Error {
    pub fn runtime(msg: impl Into<String>) -> Self {
        Error::Runtime(msg.into())
    }
    pub fn type_error(msg: impl Into<String>) -> Self {
        Error::Type(msg.into())
    }
    /// An internal fault naming what broke.
    pub fn internal(what: impl fmt::Display) -> Self {
        Error::Internal(format!(
            "internal error: {what}. This is a bug in hookgrad, please report it."
        ))
    }
    /// The error of hook `handle` (of `kind`, function `name`) that raised
    /// `message`.
    pub fn in_hook(
        message: String,
        handle: crate::ids::HandleId,
        kind: crate::protocol::HookKind,
        name: String,
    ) -> Self {
        let hook = crate::protocol::FailedHook { handle, kind, name };
        Error::Hook(Box::new(HookError { message, hook }))
    }
    /// The user hook whose exception this is, if it is one.
    pub fn failed_hook(&self) -> Option<&crate::protocol::FailedHook> {
        match self {
            Error::Hook(h) => Some(&h.hook),
            _ => None,
        }
    }
    pub fn message(&self) -> &str {
        match self {
            Error::Runtime(m) | Error::Type(m) | Error::Index(m) | Error::Internal(m) => m,
            Error::Hook(h) => &h.message,
        }
    }
    /// Python exception class name, so the JS side can set `error.name`.
    pub fn kind(&self) -> &'static str {
        match self {
            Error::Runtime(_) | Error::Internal(_) | Error::Hook(_) => "RuntimeError",
            Error::Type(_) => "TypeError",
            Error::Index(_) => "IndexError",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

// ----- faults where a signature cannot return Result ----------------------
//
// A few accessors are infallible by signature (`Tensor::shape()`,
// `requires_grad()`, hook-list snapshots, …) and used in hundreds of places.
// When their borrow fails they must not hand back a plausible `[]` / `false`
// silently: they record the fault here and return a placeholder, and every
// op (`ops::record`), every backward (`engine`) and every call from JS
// (`IntoJs::js` in the wasm crate) turns a recorded fault into
// `Error::Internal` before its result can be used. A `Cell` of a static
// string: recording can itself never fail or allocate.

crate::thread_cell!(
    static FAULT: Option<&'static str> = None;
);

/// Records an internal fault (the first one wins until taken). Out of line:
/// it is called from hundreds of places that must never be taken.
#[cold]
#[inline(never)]
pub fn fault(what: &'static str) {
    FAULT.with(|f| {
        if f.get().is_none() {
            f.set(Some(what));
        }
    });
}

/// `fault(what)` and a placeholder value, for `unwrap_or_else`.
pub fn fault_default<T: Default>(what: &'static str) -> T {
    fault(what);
    T::default()
}

/// `r.ok()`, recording `what` as a fault on an error (a value snapshot for
/// a trace event: a failed copy must not read as "no gradient").
pub fn ok_or_fault<T>(r: Result<T>, what: &'static str) -> Option<T> {
    match r {
        Ok(v) => Some(v),
        Err(_) => {
            fault(what);
            None
        }
    }
}

/// A value copied for a trace event (`t.to_array()`), recording a fault if
/// the copy failed.
pub fn snapshot<T>(r: Result<T>) -> Option<T> {
    ok_or_fault(r, "tensor data is busy copying values for a trace")
}

/// Whether a fault is recorded (and not yet taken).
#[inline]
pub(crate) fn fault_pending() -> bool {
    FAULT.with(|f| f.get().is_some())
}

/// The recorded fault as an error, clearing it.
/// Inlined into every call from JS: only the check is inline code.
#[inline]
pub fn take_fault() -> Option<Error> {
    if FAULT.with(|f| f.get().is_none()) {
        return None;
    }
    take_recorded_fault()
}

#[cold]
#[inline(never)]
fn take_recorded_fault() -> Option<Error> {
    FAULT.with(|f| f.take()).map(Error::internal)
}

/// `r`, unless an internal fault was recorded meanwhile: then that error.
pub fn checked<T>(r: Result<T>) -> Result<T> {
    match take_fault() {
        Some(e) => Err(e),
        None => r,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_fault_fails_the_next_checked_result() {
        assert_eq!(checked(Ok(1)), Ok(1));
        let v: Vec<usize> = fault_default("tensor data is busy in shape()");
        assert!(v.is_empty());
        fault("a second fault does not replace the first");
        let e = checked(Ok(1)).err();
        assert_eq!(
            e.as_ref().map(|e| e.message()),
            Some("internal error: tensor data is busy in shape(). This is a bug in hookgrad, please report it.")
        );
        assert_eq!(e.map(|e| e.kind()), Some("RuntimeError"));
        assert_eq!(checked(Ok(2)), Ok(2), "taken once");
    }

    // Borrow conflicts forced from inside the engine (JS cannot reach one:
    // no borrow is held across a call into JS): each becomes an internal
    // error naming the fault, never a `[]` shape or a zero result.

    fn message<T>(r: Result<T>) -> String {
        r.err().map(|e| e.to_string()).unwrap_or_default()
    }

    #[test]
    fn an_op_on_busy_data_is_an_internal_error() {
        let x = crate::testing::leaf(&[1.0, 2.0], &[2]);
        let busy = x.0.storage.data.borrow_mut();
        let m = message(crate::ops::unary::exp(&x));
        drop(busy);
        assert!(m.starts_with("internal error: tensor data is busy"), "{m}");
    }

    #[test]
    fn a_failed_infallible_accessor_fails_the_next_op_and_the_js_boundary() {
        let x = crate::testing::leaf(&[1.0, 2.0], &[2]);
        let busy = x.0.storage.data.borrow_mut();
        let shape = x.shape(); // the placeholder: must not be used silently
        drop(busy);
        assert!(shape.is_empty());
        let y = crate::testing::leaf(&[3.0], &[1]);
        let m = message(crate::ops::unary::exp(&y));
        assert_eq!(
            m,
            "internal error: tensor data is busy in shape(). This is a bug in hookgrad, please report it."
        );
        // Taken once: the next op is fine again.
        assert!(crate::ops::unary::exp(&y).is_ok());
    }

    #[test]
    fn backward_through_a_busy_leaf_is_an_internal_error() {
        let x = crate::testing::leaf(&[1.0, 2.0], &[2]);
        let y = x.mul(&x).and_then(|t| t.sum());
        let y = y.unwrap_or_else(|_| crate::testing::leaf(&[0.0], &[]));
        let busy = x.0.meta.borrow_mut();
        let m = message(crate::engine::backward(&y, None, false, None));
        drop(busy);
        assert!(
            m.starts_with("internal error: tensor metadata is busy"),
            "{m}"
        );
        assert!(x.grad_raw().is_none(), "no partial gradient stored");
    }

    #[test]
    fn a_busy_hook_list_fails_instead_of_dropping_the_registration() {
        let list = crate::hooks::HookList::<std::rc::Rc<u8>>::new();
        let busy = list.entries.borrow();
        list.add(std::rc::Rc::new(1), false);
        drop(busy);
        assert!(list.snapshot().is_empty());
        let m = message(checked(Ok(())));
        assert!(
            m.contains("a hook list is busy while registering a hook"),
            "{m}"
        );
    }
}
