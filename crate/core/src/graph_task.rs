//! The backward pass in progress (PyTorch's current `GraphTask`), for hooks
//! that need to know about it: `register_multi_grad_hook` counts how many of
//! its tensors will get a gradient in this pass
//! (`torch._C._will_engine_execute_node`) and keeps its state per pass
//! (`torch._C._current_graph_task_id`).

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::rc::Rc;

use crate::ids::NodeId;

pub struct TaskInfo {
    pub id: u64,
    /// Nodes this pass runs or captures from; filled only while a
    /// multi-grad hook is registered (see `watch`).
    will_execute: HashSet<NodeId>,
}

impl TaskInfo {
    pub fn will_execute(&self, node: NodeId) -> bool {
        self.will_execute.contains(&node)
    }
}

thread_local! {
    static TASKS: RefCell<Vec<Rc<TaskInfo>>> = const { RefCell::new(Vec::new()) };
    static NEXT_ID: Cell<u64> = const { Cell::new(0) };
    static WATCHERS: Cell<usize> = const { Cell::new(0) };
}

/// Whether any multi-grad hook exists (only then is `will_execute` built).
pub fn watched() -> bool {
    WATCHERS.with(|w| w.get() > 0)
}

/// Counts a live multi-grad hook registration while the value lives.
pub struct Watch(());

impl Watch {
    pub fn new() -> Self {
        WATCHERS.with(|w| w.set(w.get() + 1));
        Watch(())
    }
}

impl Default for Watch {
    fn default() -> Self {
        Watch::new()
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        WATCHERS.with(|w| w.set(w.get().saturating_sub(1)));
    }
}

/// The innermost backward pass running now.
pub fn current() -> Option<Rc<TaskInfo>> {
    TASKS.with(|t| match t.try_borrow() {
        Ok(t) => t.last().cloned(),
        Err(_) => crate::error::fault_default("the backward task stack is busy"),
    })
}

/// Marks a backward pass as running until dropped.
pub struct TaskGuard(());

impl TaskGuard {
    pub fn enter(will_execute: HashSet<NodeId>) -> Self {
        let id = NEXT_ID.with(|n| {
            let id = n.get() + 1;
            n.set(id);
            id
        });
        TASKS.with(|t| match t.try_borrow_mut() {
            Ok(mut t) => t.push(Rc::new(TaskInfo { id, will_execute })),
            Err(_) => crate::error::fault("the backward task stack is busy"),
        });
        TaskGuard(())
    }
}

impl Drop for TaskGuard {
    fn drop(&mut self) {
        TASKS.with(|t| match t.try_borrow_mut() {
            Ok(mut t) => drop(t.pop()),
            Err(_) => crate::error::fault("the backward task stack is busy"),
        });
    }
}
