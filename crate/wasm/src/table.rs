//! The one table of everything a JS object names: tensors (a deferred op's
//! row or a tensor), graph nodes, modules and hook handles. A JS `Tensor`,
//! `Node`, `Module` or `RemovableHandle` (crate/js) holds a plain id into
//! it; every export takes ids. An id is the entry's index + 1 (0 names
//! nothing: a released JS handle holds 0). A released handle is the
//! table's empty slot, reused by the next handle made.
//!
//! Who frees an entry:
//! - a tensor, node or module entry: its JS object — `dispose()`, the end
//!   of an `hg.tidy`, or the garbage collector's callback (`release`). The
//!   facade zeroes the object's id first, so no JS can name the slot again.
//! - a hook handle's entry: the hook itself, when it goes (removed, or its
//!   list dropped with a finished graph; `JsHook`'s drop). Its JS object
//!   owns no wasm memory: nothing for `hg.tidy` or the collector to free —
//!   a W3-like loop registers a hook per op. `remove()` finds the entry by
//!   slot and checks the handle's id (a slot is reused once the hook goes).
//!
//! Values leave the table by clone before anything runs on them: no borrow
//! of the table is held across a call into the core, which may call JS
//! hooks that make and free handles (and may drop hooks, which free theirs).

use std::mem::ManuallyDrop;

use hookgrad_core::deferred::{self, Handle as Held, Lazy};
use hookgrad_core::hooks::RemovableHandle;
use hookgrad_core::module::Module;
use hookgrad_core::node::NodeRef;
use hookgrad_core::tensor::Tensor;
use hookgrad_core::{Error, Result};

enum Entry {
    Empty,
    /// A deferred op's row (`hookgrad_core::deferred`), held by this entry
    /// (`Lazy::into_row`): a W1 step makes ~10^4, and a row is a number.
    Row(u32),
    /// A tensor; `true` when made while a JS hook ran (`crate::live`): not
    /// an owner for AccumulateGrad's steal.
    Tensor(Tensor, bool),
    Node(NodeRef),
    Module(Module),
    /// A hook's handle, by its id (`HandleId`).
    Hook(u32, RemovableHandle),
}

struct Table {
    entries: Vec<Entry>,
    /// Indices of empty entries.
    free: Vec<u32>,
    /// Tensor and node entries (`hg.memory().handles`).
    handles: usize,
}

hookgrad_core::thread_refcell!(
    /// Read by every export: a plain static in the wasm (per_thread.rs).
    static TABLE: Table = Table {
        entries: Vec::new(),
        free: Vec::new(),
        handles: 0,
    };
);

/// A new entry's id (0 only if the table is busy or full: an internal fault).
#[inline]
#[cfg_attr(hookgrad_nightly, optimize(speed))]
fn put(e: Entry) -> u32 {
    let counted = matches!(e, Entry::Row(_) | Entry::Tensor(..) | Entry::Node(_));
    let id = TABLE.with(|t| {
        let mut t = t.try_borrow_mut().ok()?;
        if counted {
            t.handles += 1;
        }
        if let Some(i) = t.free.pop() {
            *t.entries.get_mut(i as usize)? = e;
            return Some(i + 1);
        }
        let id = u32::try_from(t.entries.len() + 1).ok()?;
        t.entries.push(e);
        Some(id)
    });
    id.unwrap_or_else(|| {
        hookgrad_core::error::fault("the handle table is busy or full");
        0
    })
}

/// A new tensor handle (a deferred result keeps its row).
#[inline]
#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub fn put_held(held: Held) -> u32 {
    match held {
        Held::Lazy(l) => put(Entry::Row(l.into_row())),
        Held::Tensor(t) => put_tensor(t),
    }
}

/// A new tensor handle.
pub fn put_tensor(t: Tensor) -> u32 {
    // Deferred ops never run while a JS hook runs (`arith`), so a handle
    // made there is always a tensor.
    let hook_ref = crate::live::hook_handle_borrows();
    if hook_ref {
        t.add_hook_ref();
    }
    put(Entry::Tensor(t, hook_ref))
}

pub fn put_node(n: NodeRef) -> u32 {
    put(Entry::Node(n))
}

pub fn put_module(m: Module) -> u32 {
    put(Entry::Module(m))
}

/// Keeps a hook's handle; its slot, for `take_hook`.
pub fn put_hook(h: RemovableHandle) -> u32 {
    let id = h.id.0;
    put(Entry::Hook(id, h))
}

/// A tensor entry as it can be used outside the table's borrow.
enum Peeked {
    Row(u32),
    Tensor(Tensor),
}

fn peek(id: u32) -> Option<Peeked> {
    TABLE.with(|t| {
        let t = t.try_borrow().ok()?;
        match t.entries.get((id as usize).wrapping_sub(1))? {
            Entry::Row(r) => Some(Peeked::Row(*r)),
            Entry::Tensor(x, _) => Some(Peeked::Tensor(x.clone())),
            _ => None,
        }
    })
}

/// `f` on the tensor handle `id`; `None` when `id` names no tensor.
#[inline]
#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub fn with_held<R>(id: u32, f: impl FnOnce(&Held) -> R) -> Option<R> {
    match peek(id)? {
        // Borrowed, not taken: the entry keeps its hold on the row. A row
        // that is no longer live is the core's internal error, never
        // another row's value.
        Peeked::Row(r) => Some(f(&ManuallyDrop::new(Held::Lazy(Lazy::from_row(r))))),
        Peeked::Tensor(t) => Some(f(&Held::Tensor(t))),
    }
}

/// The tensor handle `id` names (a deferred op materialized); `None` when
/// `id` names no tensor.
pub fn tensor(id: u32) -> Option<Result<Tensor>> {
    match peek(id)? {
        Peeked::Tensor(t) => Some(Ok(t)),
        Peeked::Row(r) => Some(ManuallyDrop::new(Lazy::from_row(r)).tensor()),
    }
}

pub fn node(id: u32) -> Option<NodeRef> {
    TABLE.with(|t| {
        match t
            .try_borrow()
            .ok()?
            .entries
            .get((id as usize).wrapping_sub(1))?
        {
            Entry::Node(n) => Some(n.clone()),
            _ => None,
        }
    })
}

pub fn module(id: u32) -> Option<Module> {
    TABLE.with(|t| {
        match t
            .try_borrow()
            .ok()?
            .entries
            .get((id as usize).wrapping_sub(1))?
        {
            Entry::Module(m) => Some(m.clone()),
            _ => None,
        }
    })
}

/// Releases the tensor, node and module handles `ids` (a `dispose()`, a
/// collected object, or the end of an `hg.tidy` with ~10^4 at once): the
/// rows in one borrow of the core's table, everything else dropped after
/// this table's borrow ends (a dropped tensor may drop hooks, which free
/// their own entries). Ids that name no such handle are ignored.
#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub fn release(ids: &[u32]) {
    // Sized once: a step's scope releases ~10^4 at a time.
    let mut rows = Vec::with_capacity(ids.len());
    let mut garbage = Vec::with_capacity(ids.len());
    TABLE.with(|t| {
        let Ok(mut t) = t.try_borrow_mut() else {
            hookgrad_core::error::fault("the handle table is busy");
            return;
        };
        let t = &mut *t;
        for &id in ids {
            let i = (id as usize).wrapping_sub(1);
            let Some(e) = t.entries.get_mut(i) else {
                continue;
            };
            match std::mem::replace(e, Entry::Empty) {
                Entry::Row(r) => rows.push(r),
                e @ (Entry::Tensor(..) | Entry::Node(_) | Entry::Module(_)) => {
                    if !matches!(e, Entry::Module(_)) {
                        t.handles = t.handles.saturating_sub(1);
                    }
                    garbage.push(e);
                }
                other => {
                    // Not a handle a JS object owns (or empty): left as it was.
                    *e = other;
                    continue;
                }
            }
            t.free.push(id - 1);
        }
        t.handles = t.handles.saturating_sub(rows.len());
    });
    if !rows.is_empty() {
        deferred::drop_rows(&rows);
    }
    for e in garbage {
        if let Entry::Tensor(t, true) = &e {
            t.remove_hook_ref();
        }
        drop(e);
    }
}

/// The handle in `slot` if it still is hook handle `id`, taken out (its
/// slot freed).
pub fn take_hook(slot: u32, id: u32) -> Option<RemovableHandle> {
    TABLE.with(|t| {
        let mut t = t.try_borrow_mut().ok()?;
        let e = t.entries.get_mut((slot as usize).wrapping_sub(1))?;
        if !matches!(e, Entry::Hook(i, _) if *i == id) {
            return None;
        }
        let Entry::Hook(_, h) = std::mem::replace(e, Entry::Empty) else {
            return None;
        };
        t.free.push(slot - 1);
        Some(h)
    })
}

/// Live tensor and node handles (`hg.memory().handles`).
pub fn live_handles() -> usize {
    TABLE.with(|t| t.try_borrow().map(|t| t.handles).unwrap_or(0))
}

/// A released or foreign id's error (the facade checks its own handles
/// first; this is what an id that names nothing of the kind meets).
pub fn released(what: &str) -> Error {
    Error::runtime(format!(
        "this {what} handle was released (hg.tidy or dispose()); keep it with hg.keep() or return it from tidy"
    ))
}
