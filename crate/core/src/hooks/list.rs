//! The ordered hook lists every owner keeps (`HookList`, allocated on
//! first registration through `LazyHooks`), the snapshot a pass runs from,
//! and `FirstInline`, the one-inline-entry list they are built on. Apart
//! from the hook traits (hooks.rs) because this is storage tuned for speed
//! (see each type), not what a hook is.

use std::cell::RefCell;
use std::rc::Rc;

use super::RemoveHook;
use crate::error::{fault, fault_default};
use crate::ids::HandleId;

/// An ordered list whose first element lives inline: nearly every hook list
/// (and a node's list of tensor hook lists) holds one, so there is no
/// allocation for it and no pointer to chase when the engine runs it. Kept
/// so that `first` is `None` only when the list is empty. (Not `Small`: its
/// per-type code for seven entry types was ~10 KB of wasm.)
#[derive(Clone)]
pub struct FirstInline<T> {
    first: Option<T>,
    rest: Vec<T>,
}

impl<T> Default for FirstInline<T> {
    fn default() -> Self {
        FirstInline {
            first: None,
            rest: Vec::new(),
        }
    }
}

impl<T> FirstInline<T> {
    pub fn push(&mut self, item: T) {
        match self.first {
            None => self.first = Some(item),
            Some(_) => self.rest.push(item),
        }
    }

    fn insert_first(&mut self, item: T) {
        if let Some(old) = self.first.replace(item) {
            self.rest.insert(0, old);
        }
    }

    /// Removes element `i` (if there is one), keeping the order.
    fn remove(&mut self, i: usize) {
        if i > 0 {
            if i <= self.rest.len() {
                self.rest.remove(i - 1);
            }
        } else if self.first.is_some() {
            self.first = (!self.rest.is_empty()).then(|| self.rest.remove(0));
        }
    }

    pub fn get(&self, i: usize) -> Option<&T> {
        match i {
            0 => self.first.as_ref(),
            _ => self.rest.get(i - 1),
        }
    }

    pub fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.rest.len()
    }

    pub fn is_empty(&self) -> bool {
        self.first.is_none()
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.first.iter().chain(&self.rest)
    }

    /// `iter().any(f)`, answered at once for an empty list (what nearly
    /// every node has: the engine asks once per node and backward).
    pub fn any(&self, mut f: impl FnMut(&T) -> bool) -> bool {
        match &self.first {
            None => false,
            Some(first) => f(first) || self.rest.iter().any(f),
        }
    }
}

impl<T: Clone> FirstInline<T> {
    fn to_vec(&self) -> Vec<T> {
        // A clone and an insert: code every entry type has anyway.
        let mut v = self.rest.clone();
        if let Some(first) = &self.first {
            v.insert(0, first.clone());
        }
        v
    }
}

impl<T> IntoIterator for FirstInline<T> {
    type Item = T;
    type IntoIter = std::iter::Chain<std::option::IntoIter<T>, std::vec::IntoIter<T>>;
    fn into_iter(self) -> Self::IntoIter {
        self.first.into_iter().chain(self.rest)
    }
}

/// An ordered `(HandleId, entry)` list with interior mutability; an entry is
/// usually an `Rc<dyn …Hook>`. Borrows are never held across a hook call:
/// callers take a `snapshot()`.
pub struct HookList<E> {
    pub(crate) entries: RefCell<FirstInline<(HandleId, E)>>,
}

impl<E> Default for HookList<E> {
    fn default() -> Self {
        HookList {
            entries: RefCell::new(FirstInline::default()),
        }
    }
}

impl<E: Clone> HookList<E> {
    pub fn new() -> Rc<Self> {
        Rc::new(Self::default())
    }

    pub fn add(&self, hook: E, prepend: bool) -> HandleId {
        let id = HandleId::next();
        match self.entries.try_borrow_mut() {
            Ok(mut entries) if prepend => entries.insert_first((id, hook)),
            Ok(mut entries) => entries.push((id, hook)),
            // Never a registration silently dropped.
            Err(_) => crate::error::fault("a hook list is busy while registering a hook"),
        }
        id
    }

    /// Adds a hook under a handle id chosen by the caller (one handle
    /// removing entries from several lists: a multi-grad hook).
    pub fn add_with_id(&self, id: HandleId, hook: E) {
        match self.entries.try_borrow_mut() {
            Ok(mut entries) => entries.push((id, hook)),
            Err(_) => fault("a hook list is busy while registering a hook"),
        }
    }

    pub fn snapshot(&self) -> Vec<(HandleId, E)> {
        self.entries
            .try_borrow()
            .map(|e| e.to_vec())
            .unwrap_or_else(|_| fault_default("a hook list is busy while reading its hooks"))
    }

    /// `snapshot()` for running the hooks: no allocation for a list of one
    /// (the usual case, once per backward step of a hooked tensor).
    pub fn run_snapshot(&self) -> Snapshot<E> {
        match self.entries.try_borrow() {
            Ok(e) => Snapshot(e.clone()),
            Err(_) => {
                fault("a hook list is busy while reading its hooks");
                Snapshot(FirstInline::default())
            }
        }
    }

    /// Whether any entry satisfies `f`, read in place (no snapshot).
    pub fn any(&self, f: impl Fn(&E) -> bool) -> bool {
        self.entries
            .try_borrow()
            .map(|e| e.any(|(_, h)| f(h)))
            .unwrap_or_else(|_| fault_default("a hook list is busy while reading its hooks"))
    }

    pub fn is_empty(&self) -> bool {
        self.entries
            .try_borrow()
            .map(|e| e.is_empty())
            .unwrap_or_else(|_| {
                fault("a hook list is busy while reading its hooks");
                true
            })
    }

    pub fn len(&self) -> usize {
        self.entries
            .try_borrow()
            .map(|e| e.len())
            .unwrap_or_else(|_| fault_default("a hook list is busy while reading its hooks"))
    }

    pub fn ids(&self) -> Vec<HandleId> {
        self.snapshot().into_iter().map(|(id, _)| id).collect()
    }

    pub fn contains(&self, id: HandleId) -> bool {
        self.entries
            .try_borrow()
            .map(|e| e.any(|(h, _)| *h == id))
            .unwrap_or_else(|_| fault_default("a hook list is busy while reading its hooks"))
    }
}

/// A copy of a hook list taken before running it (see `HookList`), its
/// first entry inline. Iterates by value, like the `Vec` of `snapshot()`.
pub struct Snapshot<E>(FirstInline<(HandleId, E)>);

impl<E> IntoIterator for Snapshot<E> {
    type Item = (HandleId, E);
    type IntoIter = <FirstInline<(HandleId, E)> as IntoIterator>::IntoIter;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

// Handles (handle.rs) remove by id through this.
impl<E> RemoveHook for HookList<E> {
    fn remove_hook(&self, id: HandleId) -> bool {
        match self.entries.try_borrow_mut() {
            Ok(mut entries) => {
                // Ids are unique within a list.
                let Some(i) = entries.iter().position(|(h, _)| *h == id) else {
                    return false;
                };
                entries.remove(i);
                true
            }
            Err(_) => fault_default("a hook list is busy while removing a hook"),
        }
    }
}

/// A hook list allocated on first registration: most tensors and nodes never
/// get a hook, and four allocations per op were a third of its cost.
pub struct LazyHooks<E> {
    cell: std::cell::OnceCell<Rc<HookList<E>>>,
}

impl<E> Default for LazyHooks<E> {
    fn default() -> Self {
        LazyHooks {
            cell: std::cell::OnceCell::new(),
        }
    }
}

impl<E: Clone> LazyHooks<E> {
    pub fn get(&self) -> Option<&Rc<HookList<E>>> {
        self.cell.get()
    }
    pub fn get_or_create(&self) -> Rc<HookList<E>> {
        self.cell.get_or_init(HookList::new).clone()
    }
    pub fn snapshot(&self) -> Vec<(HandleId, E)> {
        // Benign default: no list yet means no hooks registered.
        self.cell.get().map(|l| l.snapshot()).unwrap_or_default()
    }
    /// `HookList::run_snapshot`, empty when no list was made yet.
    pub fn run_snapshot(&self) -> Snapshot<E> {
        self.cell
            .get()
            .map(|l| l.run_snapshot())
            .unwrap_or_else(|| Snapshot(FirstInline::default()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::RemovableHandle;

    fn ids<E: Clone>(l: &HookList<E>) -> Vec<u32> {
        l.ids().into_iter().map(|h| h.0).collect()
    }

    #[test]
    fn a_list_keeps_registration_order_through_prepends_and_removals() {
        let list: Rc<HookList<Rc<&'static str>>> = HookList::new();
        assert!(list.is_empty() && list.run_snapshot().into_iter().next().is_none());
        let a = list.add(Rc::new("a"), false);
        let b = list.add(Rc::new("b"), false);
        let p = list.add(Rc::new("p"), true); // prepend: before a
        let c = list.add(Rc::new("c"), false);
        let names = |l: &HookList<Rc<&'static str>>| -> Vec<&'static str> {
            l.run_snapshot().into_iter().map(|(_, h)| *h).collect()
        };
        assert_eq!(names(&list), ["p", "a", "b", "c"]);
        assert_eq!(ids(&list), [p.0, a.0, b.0, c.0]);
        // The first (inline) entry, one in the middle, the last.
        for (id, left) in [
            (p, vec!["a", "b", "c"]),
            (b, vec!["a", "c"]),
            (c, vec!["a"]),
        ] {
            assert!(list.remove_hook(id));
            assert!(!list.remove_hook(id), "removing twice is a no-op");
            assert_eq!(names(&list), left);
            assert_eq!(list.len(), left.len());
            assert!(!list.contains(id));
        }
        let d = list.add(Rc::new("d"), false);
        assert_eq!(names(&list), ["a", "d"]);
        assert!(list.remove_hook(a));
        assert_eq!(names(&list), ["d"]);
        assert!(list.remove_hook(d));
        assert!(list.is_empty());
        let e = list.add(Rc::new("e"), true);
        assert_eq!(names(&list), ["e"]);
        assert_eq!(list.snapshot().len(), 1);
        assert!(list.any(|h| **h == "e") && !list.any(|h| **h == "a"));
        let handle = RemovableHandle::for_list(e, &list);
        handle.remove();
        handle.remove();
        assert!(list.is_empty() && handle.is_live());
        drop(list);
        assert!(!handle.is_live());
        handle.remove(); // its list is gone: a no-op
    }
}
