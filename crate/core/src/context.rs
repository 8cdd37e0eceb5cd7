//! Thread-wide switches: grad mode (`noGrad`), the PyTorch-version semantics
//! and the warning sink. Wasm is single-threaded, so thread-locals are the
//! whole process.

use std::cell::RefCell;
use std::rc::Rc;

use crate::error::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Semantics {
    /// PyTorch >= 2.0: retain-grad hooks run after all other tensor hooks.
    PyTorch2,
    /// PyTorch <= 1.13: retain-grad runs where `retain_grad()` was called
    /// among the tensor's hooks (the 2021 hooks video).
    PyTorch1,
}

impl Semantics {
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "pytorch-2" => Ok(Semantics::PyTorch2),
            "pytorch-1" => Ok(Semantics::PyTorch1),
            other => Err(Error::type_error(format!(
                "setSemantics: expected 'pytorch-2' or 'pytorch-1', but got '{other}'"
            ))),
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Semantics::PyTorch2 => "pytorch-2",
            Semantics::PyTorch1 => "pytorch-1",
        }
    }
}

/// Where Python's `warnings` module places a PyTorch warning, which decides
/// how often its default filter shows it: once per text and place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarnPlace {
    /// A line inside torch (e.g. nn/modules/module.py): shown once per text.
    Library,
    /// The user's line (`stacklevel` pointing out of torch, or a C++
    /// `TORCH_WARN` raised under a Python frame): shown once per text and
    /// calling line, so a warning in a loop is shown once.
    Caller,
}

/// Receives every warning raised; deciding what to show is the sink's job.
pub type WarningSink = Rc<dyn Fn(&str, WarnPlace)>;

crate::thread_cell!(
    static GRAD_ENABLED: bool = true;
);
crate::thread_cell!(
    static SEMANTICS: Semantics = Semantics::PyTorch2;
);

thread_local! {
    static WARNING_SINK: RefCell<Option<WarningSink>> = const { RefCell::new(None) };
}

#[inline]
pub fn is_grad_enabled() -> bool {
    GRAD_ENABLED.with(|g| g.get())
}

/// Restores the previous grad mode when dropped, so an early `?` return or a
/// throwing hook can never leave grad mode switched off.
pub struct GradModeGuard {
    previous: bool,
}

impl GradModeGuard {
    pub fn set(enabled: bool) -> Self {
        let previous = GRAD_ENABLED.with(|g| g.replace(enabled));
        GradModeGuard { previous }
    }
}

impl Drop for GradModeGuard {
    fn drop(&mut self) {
        GRAD_ENABLED.with(|g| g.set(self.previous));
    }
}

/// Sets grad mode and returns the previous one: for callers whose scope is
/// not a Rust block (Python's `with torch.no_grad():` enters and exits in two
/// calls); they restore the returned mode themselves.
pub fn set_grad_enabled(enabled: bool) -> bool {
    GRAD_ENABLED.with(|g| g.replace(enabled))
}

pub fn no_grad<T>(f: impl FnOnce() -> T) -> T {
    let _guard = GradModeGuard::set(false);
    f()
}

pub fn semantics() -> Semantics {
    SEMANTICS.with(|s| s.get())
}

pub fn set_semantics(s: Semantics) {
    SEMANTICS.with(|c| c.set(s));
}

/// Where warnings go besides the trace (the binding sends them to `console.warn`).
pub fn set_warning_sink(sink: Option<WarningSink>) {
    WARNING_SINK.with(|w| *w.borrow_mut() = sink);
}

/// Raise a PyTorch-style warning that Python places inside torch: recorded
/// as a `warning` trace event (every time: PyTorch raises it every time) and
/// handed to the sink. The sink is cloned out first so no borrow is held
/// while it (JS) runs.
pub fn warn(message: &str) {
    warn_from(message, WarnPlace::Library);
}

/// The same for a warning Python places at the user's calling line.
pub fn warn_at_caller(message: &str) {
    warn_from(message, WarnPlace::Caller);
}

fn warn_from(message: &str, place: WarnPlace) {
    crate::trace::record(|| crate::trace::Event::Warning {
        message: message.to_string(),
    });
    let sink = WARNING_SINK.with(|w| match w.try_borrow() {
        Ok(s) => s.clone(),
        Err(_) => crate::error::fault_default("the warning sink is busy"),
    });
    if let Some(sink) = sink {
        sink(message, place);
    }
}

thread_local! {
    static WARNED_ONCE: RefCell<Vec<&'static str>> = const { RefCell::new(Vec::new()) };
}

/// PyTorch's `TORCH_WARN_ONCE`: the first time in this instance only.
pub fn warn_once(message: &'static str) {
    let first = WARNED_ONCE.with(|w| match w.try_borrow_mut() {
        Ok(mut w) if !w.contains(&message) => {
            w.push(message);
            true
        }
        Ok(_) => false,
        Err(_) => crate::error::fault_default("the warn-once list is busy"),
    });
    if first {
        warn(message);
    }
}

// ----- saved tensors hooks ---------------------------------------------------

crate::thread_refcell!(
    /// `saved_tensors_hooks` contexts, innermost last (PyTorch keeps a stack
    /// too: the innermost pair packs). `None` entries disable packing while a
    /// pack or unpack hook runs, so ops inside a hook save plainly.
    static SAVED_HOOKS: Vec<Option<Rc<dyn crate::hooks::SavedTensorsHooks>>> = Vec::new();
);
crate::thread_refcell!(
    /// An error a pack hook raised inside an op, reported by `ops::record`
    /// (asked by every recorded op: a plain static in the wasm).
    static PENDING_ERROR: Option<Error> = None;
);

crate::thread_cell!(
    /// `SAVED_HOOKS`' length: every op that saves a tensor asks, and the
    /// stack is almost always empty.
    static SAVED_HOOKS_DEPTH: usize = 0;
);

/// The innermost active pack/unpack pair, if any.
#[inline]
pub fn saved_tensors_hooks() -> Option<Rc<dyn crate::hooks::SavedTensorsHooks>> {
    if SAVED_HOOKS_DEPTH.with(|d| d.get()) == 0 {
        return None;
    }
    innermost_saved_tensors_hooks()
}

fn innermost_saved_tensors_hooks() -> Option<Rc<dyn crate::hooks::SavedTensorsHooks>> {
    SAVED_HOOKS.with(|s| {
        s.try_borrow()
            .map(|s| s.last().cloned().flatten())
            .unwrap_or_else(|_| crate::error::fault_default("the saved-tensor hook stack is busy"))
    })
}

/// Pops its `saved_tensors_hooks` entry when dropped (even on an error).
pub struct SavedHooksGuard(());

impl SavedHooksGuard {
    /// `with saved_tensors_hooks(pack, unpack):` (or, with `None`, a region
    /// where nothing is packed).
    pub fn push(hooks: Option<Rc<dyn crate::hooks::SavedTensorsHooks>>) -> Self {
        SAVED_HOOKS.with(|s| match s.try_borrow_mut() {
            Ok(mut s) => {
                s.push(hooks);
                SAVED_HOOKS_DEPTH.with(|d| d.set(s.len()));
            }
            Err(_) => crate::error::fault("the saved-tensor hook stack is busy"),
        });
        SavedHooksGuard(())
    }
}

impl Drop for SavedHooksGuard {
    fn drop(&mut self) {
        SAVED_HOOKS.with(|s| match s.try_borrow_mut() {
            Ok(mut s) => {
                drop(s.pop());
                SAVED_HOOKS_DEPTH.with(|d| d.set(s.len()));
            }
            Err(_) => crate::error::fault("the saved-tensor hook stack is busy"),
        });
    }
}

/// Pushes saved-tensor hooks for a scope that spans two calls (Python's
/// `with saved_tensors_hooks(...)`: enter, then exit); the caller pops them
/// with [`pop_saved_tensors_hooks`].
pub fn push_saved_tensors_hooks(hooks: Rc<dyn crate::hooks::SavedTensorsHooks>) {
    std::mem::forget(SavedHooksGuard::push(Some(hooks)));
}

/// Ends the innermost [`push_saved_tensors_hooks`] scope (none: nothing).
pub fn pop_saved_tensors_hooks() {
    drop(SavedHooksGuard(()));
}

/// Runs `f` with saved-tensor hooks `hooks` active.
pub fn with_saved_tensors_hooks<T>(
    hooks: Rc<dyn crate::hooks::SavedTensorsHooks>,
    f: impl FnOnce() -> T,
) -> T {
    let _guard = SavedHooksGuard::push(Some(hooks));
    f()
}

pub(crate) fn set_pending_error(e: Error) {
    PENDING_ERROR.with(|p| {
        match p.try_borrow_mut() {
            Ok(mut p) if p.is_none() => *p = Some(e),
            Ok(_) => {}
            // A pack hook's error must not vanish.
            Err(_) => crate::error::fault("the pending-error slot is busy"),
        }
    });
}

#[inline]
pub(crate) fn take_pending_error() -> Option<Error> {
    PENDING_ERROR.with(|p| match p.try_borrow_mut() {
        Ok(mut p) => p.take(),
        Err(_) => Some(Error::internal("the pending-error slot is busy")),
    })
}
