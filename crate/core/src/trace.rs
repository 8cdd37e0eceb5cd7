//! The record of a run: `hg.trace(fn)` collects the ordered events `fn`
//! caused, with copies of every value, so the playground can replay the run
//! without touching the engine. Events are emitted where things happen (ops
//! in `ops::record`, backward steps in `engine::call_node`), so the trace
//! order *is* the execution order.

use std::cell::RefCell;

use crate::ids::{HandleId, ModuleId, NodeId, TensorId};
use crate::tensor::Array;

#[derive(Clone, Debug)]
pub enum HookValue {
    One(Option<Array>),
    Many(Vec<Option<Array>>),
}

#[derive(Clone, Debug)]
pub enum HookTarget {
    Tensor(TensorId),
    Node(NodeId),
    /// A module's hook; `node` is the backward node it ran on, if any.
    Module(ModuleId, String, Option<NodeId>),
    /// A saved-tensor hook (pack / unpack): the saved tensor and the node
    /// that saved it.
    Saved(TensorId, NodeId),
    /// A multi-grad hook: the tensors it watches.
    Tensors(Vec<TensorId>),
}

#[derive(Clone, Debug)]
pub enum Event {
    Op {
        node: NodeId,
        name: &'static str,
        inputs: Vec<TensorId>,
        output: TensorId,
    },
    Module {
        module: String,
        module_id: ModuleId,
        phase: &'static str,
    },
    Node {
        node: NodeId,
        name: &'static str,
        grad_outputs: Vec<Option<Array>>,
        grad_inputs: Vec<Option<Array>>,
    },
    Hook {
        kind: &'static str,
        handle: HandleId,
        target: HookTarget,
        before: HookValue,
        after: HookValue,
    },
    Accumulate {
        tensor: TensorId,
        grad: Array,
    },
    Warning {
        message: String,
    },
    Error {
        message: String,
        node: Option<NodeId>,
    },
}

thread_local! {
    /// One buffer per active `trace()` call (they nest).
    static RECORDERS: RefCell<Vec<Vec<Event>>> = const { RefCell::new(Vec::new()) };
}

pub fn is_recording() -> bool {
    RECORDERS.with(|r| r.try_borrow().map(|r| !r.is_empty()).unwrap_or(false))
}

/// Records an event if a trace is active; `make` runs only then, so values
/// are copied only when someone is watching.
pub fn record(make: impl FnOnce() -> Event) {
    if !is_recording() {
        return;
    }
    let event = make();
    RECORDERS.with(|r| {
        if let Ok(mut r) = r.try_borrow_mut() {
            if let Some(top) = r.last_mut() {
                top.push(event);
            }
        }
    });
}

/// Runs `f` while recording; returns its result and the events. Events of a
/// nested trace are also kept by the enclosing one.
pub fn trace<T>(f: impl FnOnce() -> T) -> (T, Vec<Event>) {
    RECORDERS.with(|r| {
        if let Ok(mut r) = r.try_borrow_mut() {
            r.push(Vec::new());
        }
    });
    let result = f();
    let events = RECORDERS.with(|r| match r.try_borrow_mut() {
        Ok(mut r) => {
            let events = r.pop().unwrap_or_default();
            if let Some(parent) = r.last_mut() {
                parent.extend(events.iter().cloned());
            }
            events
        }
        Err(_) => Vec::new(),
    });
    (result, events)
}
