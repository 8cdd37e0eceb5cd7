//! PyTorch's `RemovableHandle`: what `register_*` returns, holding only
//! weak references to the list(s) it removes from, so a handle never keeps
//! a tensor, node or module alive.

use std::rc::{Rc, Weak};

use super::HookList;
use crate::ids::HandleId;

/// What a handle can remove itself from.
pub trait RemoveHook {
    fn remove_hook(&self, id: HandleId) -> bool;
}

/// PyTorch's `RemovableHandle`: an id and weak references to the list(s) that
/// hold the hook. `remove()` may be called any number of times.
#[derive(Clone)]
pub struct RemovableHandle {
    pub id: HandleId,
    targets: Targets,
}

/// One list (every `register_*` on a tensor or node: no allocation per
/// registration) or several (a multi-grad hook, module hooks).
#[derive(Clone)]
enum Targets {
    One(Weak<dyn RemoveHook>),
    Many(Vec<Weak<dyn RemoveHook>>),
}

impl Targets {
    fn as_slice(&self) -> &[Weak<dyn RemoveHook>] {
        match self {
            Targets::One(t) => std::slice::from_ref(t),
            Targets::Many(ts) => ts,
        }
    }
}

impl RemovableHandle {
    pub fn new(id: HandleId, targets: Vec<Weak<dyn RemoveHook>>) -> Self {
        RemovableHandle {
            id,
            targets: Targets::Many(targets),
        }
    }

    pub fn for_list<E: 'static>(id: HandleId, list: &Rc<HookList<E>>) -> Self {
        let rc: Rc<dyn RemoveHook> = list.clone();
        let weak = Rc::downgrade(&rc);
        RemovableHandle {
            id,
            targets: Targets::One(weak),
        }
    }

    /// Whether any list this handle removes from still exists (a handle
    /// whose owners are all gone can only be a no-op).
    pub fn is_live(&self) -> bool {
        self.targets.as_slice().iter().any(|t| t.strong_count() > 0)
    }

    pub fn remove(&self) {
        for target in self.targets.as_slice() {
            if let Some(list) = target.upgrade() {
                list.remove_hook(self.id);
            }
        }
    }
}
