//! `thread_cell!`: a `Cell` per thread for the engine's flags and counters
//! (grad mode, semantics, the recorded fault, whether a trace records, the id
//! counters), read on every op.
//!
//! Natively it is a `thread_local!` (the tests run on many threads, each with
//! its own engine state). The wasm build has one thread, and at opt-level "z"
//! every `thread_local!` access was an indirect call through its `LocalKey`:
//! there it is a plain static, read and written with single loads and stores.
//! Call sites are the same on both: `FLAG.with(|c| c.get())`. The binding
//! crate uses it too (`hookgrad_core::thread_cell!`). `thread_refcell!` is the
//! same for a `RefCell` (deferred.rs's table).

/// A `Cell` per thread: `FLAG.with(|c| c.get())`.
#[macro_export]
macro_rules! thread_cell {
    ($(#[$m:meta])* static $name:ident: $t:ty = $init:expr;) => {
        $crate::one_per_thread!($(#[$m])* static $name: std::cell::Cell<$t> = std::cell::Cell::new($init););
    };
}

/// A `RefCell` per thread: `TABLE.with(|t| t.try_borrow_mut())`.
#[macro_export]
macro_rules! thread_refcell {
    ($(#[$m:meta])* static $name:ident: $t:ty = $init:expr;) => {
        $crate::one_per_thread!($(#[$m])* static $name: std::cell::RefCell<$t> = std::cell::RefCell::new($init););
    };
}

#[cfg(not(all(target_arch = "wasm32", not(target_feature = "atomics"))))]
#[doc(hidden)]
#[macro_export]
macro_rules! one_per_thread {
    ($(#[$m:meta])* static $name:ident: $t:ty = $init:expr;) => {
        thread_local! {
            $(#[$m])* static $name: $t = const { $init };
        }
    };
}

#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[doc(hidden)]
#[macro_export]
macro_rules! one_per_thread {
    ($(#[$m:meta])* static $name:ident: $t:ty = $init:expr;) => {
        $(#[$m])* static $name: $crate::per_thread::OneThread<$t> = $crate::per_thread::OneThread($init);
    };
}

/// A cell in a static, for a target without threads.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
pub struct OneThread<C>(pub C);

// SAFETY: wasm32 without the atomics target feature runs exactly one thread,
// so the cell is never shared between threads.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
unsafe impl<C> Sync for OneThread<C> {}

#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
impl<C> OneThread<C> {
    /// As `LocalKey::with`.
    #[inline]
    pub fn with<R>(&'static self, f: impl FnOnce(&C) -> R) -> R {
        f(&self.0)
    }
    /// As `LocalKey::try_with` (a static is never destroyed).
    #[inline]
    pub fn try_with<R>(
        &'static self,
        f: impl FnOnce(&C) -> R,
    ) -> Result<R, std::convert::Infallible> {
        Ok(f(&self.0))
    }
}
