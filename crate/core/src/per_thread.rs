//! `thread_cell!`: a `Cell` per thread for the engine's flags and counters
//! (grad mode, semantics, the recorded fault, whether a trace records, the id
//! counters), read on every op.
//!
//! Natively it is a `thread_local!` (the tests run on many threads, each with
//! its own engine state). The wasm build has one thread, and at opt-level "z"
//! every `thread_local!` access was an indirect call through its `LocalKey`:
//! there it is a plain static, read and written with single loads and stores.
//! Call sites are the same on both: `FLAG.with(|c| c.get())`. The binding
//! crate uses it too (`hookgrad_core::thread_cell!`).

#[cfg(not(all(target_arch = "wasm32", not(target_feature = "atomics"))))]
#[macro_export]
macro_rules! thread_cell {
    ($(#[$m:meta])* static $name:ident: $t:ty = $init:expr;) => {
        thread_local! {
            $(#[$m])* static $name: std::cell::Cell<$t> = const { std::cell::Cell::new($init) };
        }
    };
}

#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[macro_export]
macro_rules! thread_cell {
    ($(#[$m:meta])* static $name:ident: $t:ty = $init:expr;) => {
        $(#[$m])* static $name: $crate::per_thread::OneThread<$t> =
            $crate::per_thread::OneThread(std::cell::Cell::new($init));
    };
}

/// A `Cell` in a static, for a target without threads.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
pub struct OneThread<T>(pub std::cell::Cell<T>);

// SAFETY: wasm32 without the atomics target feature runs exactly one thread,
// so the cell is never shared between threads.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
unsafe impl<T> Sync for OneThread<T> {}

#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
impl<T> OneThread<T> {
    /// As `LocalKey::with`.
    #[inline]
    pub fn with<R>(&'static self, f: impl FnOnce(&std::cell::Cell<T>) -> R) -> R {
        f(&self.0)
    }
    /// As `LocalKey::try_with` (a static is never destroyed).
    #[inline]
    pub fn try_with<R>(
        &'static self,
        f: impl FnOnce(&std::cell::Cell<T>) -> R,
    ) -> Result<R, std::convert::Infallible> {
        Ok(f(&self.0))
    }
}

/// `thread_cell!`'s twin for a `RefCell` (deferred.rs's table): a
/// `thread_local!` natively, a plain static on single-threaded wasm. Call
/// sites are the same on both: `TABLE.with(|t| t.try_borrow_mut())`.
#[cfg(not(all(target_arch = "wasm32", not(target_feature = "atomics"))))]
#[macro_export]
macro_rules! thread_refcell {
    ($(#[$m:meta])* static $name:ident: $t:ty = $init:expr;) => {
        thread_local! {
            $(#[$m])* static $name: std::cell::RefCell<$t> = const { std::cell::RefCell::new($init) };
        }
    };
}

#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[macro_export]
macro_rules! thread_refcell {
    ($(#[$m:meta])* static $name:ident: $t:ty = $init:expr;) => {
        $(#[$m])* static $name: $crate::per_thread::OneThreadRef<$t> =
            $crate::per_thread::OneThreadRef(std::cell::RefCell::new($init));
    };
}

/// A `RefCell` in a static, for a target without threads.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
pub struct OneThreadRef<T>(pub std::cell::RefCell<T>);

// SAFETY: as `OneThread`'s: exactly one thread ever runs.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
unsafe impl<T> Sync for OneThreadRef<T> {}

#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
impl<T> OneThreadRef<T> {
    /// As `LocalKey::with`.
    #[inline]
    pub fn with<R>(&'static self, f: impl FnOnce(&std::cell::RefCell<T>) -> R) -> R {
        f(&self.0)
    }
    /// As `LocalKey::try_with` (a static is never destroyed).
    #[inline]
    pub fn try_with<R>(
        &'static self,
        f: impl FnOnce(&std::cell::RefCell<T>) -> R,
    ) -> Result<R, std::convert::Infallible> {
        Ok(f(&self.0))
    }
}
