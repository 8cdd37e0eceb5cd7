//! The record of a run: `hg.trace(fn)` collects the ordered events `fn`
//! caused, with copies of every value, so the playground can replay the run
//! without touching the engine. Events are emitted where things happen (ops
//! in `ops::record`, backward steps in `engine::call_node`), so the trace
//! order *is* the execution order. The event types live in `protocol`.
//!
//! The program's console output is recorded here too (`log` events), so the
//! playground replays one timeline. A line printed inside a user hook is
//! held until that hook's own event is recorded (hooks are recorded after
//! they return, with their result) and then follows it, naming its handle.

use std::rc::{Rc, Weak};

pub use crate::protocol::{
    Event, GradList, HookKind, HookTarget, HookValue, LogLevel, ModulePhase,
};

use crate::ids::{HandleId, NodeId};
use crate::tensor::{Array, Data, Tensor, TensorImpl};

#[derive(Default)]
struct Recorder {
    events: Vec<Event>,
    /// How many user hook calls were in progress when this trace began: a
    /// trace started inside a hook (a hook calling `hg.trace`) owns only the
    /// hook calls opened after it, never the enclosing hook's lines.
    hook_depth: usize,
    /// Every tensor an op of the run consumed or produced (weakly), so a
    /// caller can ask for the graph of the run (`trace_with_tensors`).
    tensors: Vec<Weak<TensorImpl>>,
}

struct State {
    /// One recorder per active `trace()` call (they nest).
    recorders: Vec<Recorder>,
    /// Log lines of each user hook call in progress (innermost last).
    hook_logs: Vec<Vec<(LogLevel, String)>>,
    /// Lines of a hook call that returned, waiting for its hook event.
    awaiting: Vec<(LogLevel, String)>,
}

crate::thread_refcell!(
    /// Every event of a traced run goes through it: a plain static in the
    /// wasm (per_thread.rs).
    static STATE: State = State {
        recorders: Vec::new(),
        hook_logs: Vec::new(),
        awaiting: Vec::new(),
    };
);
crate::thread_cell!(
    /// How many `trace()` calls are active (= `STATE.recorders.len()`):
    /// asked by every op and hook call, so a plain cell, not a borrow.
    static RECORDING: usize = 0;
);

fn with_state<R>(f: impl FnOnce(&mut State) -> R) -> Option<R> {
    STATE.with(|s| match s.try_borrow_mut() {
        Ok(mut s) => Some(f(&mut s)),
        // Never a silently incomplete trace.
        Err(_) => crate::error::fault_default("the trace state is busy"),
    })
}

/// No op is recorded while it lives (deferred.rs replays ops that happened
/// before the trace began).
pub(crate) struct PauseRecording(usize);

impl PauseRecording {
    pub(crate) fn new() -> Self {
        PauseRecording(RECORDING.with(|r| r.replace(0)))
    }
}

impl Drop for PauseRecording {
    fn drop(&mut self) {
        RECORDING.with(|r| r.set(self.0));
    }
}

#[inline]
pub fn is_recording() -> bool {
    RECORDING.with(|r| r.get() > 0)
}

fn push(s: &mut State, event: Event) {
    let hook = match &event {
        Event::Hook { handle, .. } => Some(*handle),
        _ => None,
    };
    let Some(top) = s.recorders.last_mut() else {
        return;
    };
    // The usual case (no hook's lines waiting): no take/extend per event.
    if s.awaiting.is_empty() {
        top.events.push(event);
        return;
    }
    // Lines of a hook that returned follow its event; if another event comes
    // first (the hook failed), they go before it, unattributed.
    let awaiting = std::mem::take(&mut s.awaiting);
    let logs = awaiting
        .into_iter()
        .map(|(level, text)| Event::Log { level, text, hook });
    if hook.is_some() {
        top.events.push(event);
        top.events.extend(logs);
    } else {
        top.events.extend(logs);
        top.events.push(event);
    }
}

/// Records an event if a trace is active; `make` runs only then, so values
/// are copied only when someone is watching.
pub fn record(make: impl FnOnce() -> Event) {
    if !is_recording() {
        return;
    }
    let event = make();
    with_state(|s| push(s, event));
}

/// A copy of a tensor's values for an event (`Tensor::to_array`: one
/// borrow). A failed borrow is a fault (the event must not read "no gradient").
pub fn copy_values(t: &Tensor) -> Option<Array> {
    crate::error::snapshot(t.to_array())
}

/// [`copy_values`] of each gradient (`None` stays `None`).
pub fn copy_values_list(values: &[Option<Tensor>]) -> Vec<Option<Array>> {
    values
        .iter()
        .map(|v| v.as_ref().and_then(copy_values))
        .collect()
}

/// A node's gradients for its `node` event, in one [`GradList`] (each
/// value read in one borrow; a failed borrow is a fault and a `None`).
#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub fn copy_grads(values: &[Option<Tensor>]) -> GradList {
    let busy = "tensor data is busy copying values for a trace";
    let elements = values
        .iter()
        .flatten()
        .map(|t| t.0.storage.data.try_borrow().map_or(0, |d| d.len()))
        .sum();
    let mut list = GradList::with_capacity(elements);
    for v in values {
        match v.as_ref().map(|t| t.0.storage.data.try_borrow()) {
            None => list.push_none(),
            Some(Ok(d)) => match &*d {
                Data::Scalar(x) => list.push_values(&[], &[*x]),
                Data::Array(a) => list.push_values(a.shape(), a.as_slice()),
            },
            Some(Err(_)) => {
                crate::error::fault(busy);
                list.push_none();
            }
        }
    }
    list
}

/// An `error` event for `e`: the backward node that was running, and the
/// user hook whose exception it was (`Error::in_hook`).
pub fn record_error(e: &crate::error::Error, node: Option<NodeId>) {
    record(|| Event::Error {
        message: e.to_string(),
        node,
        hook: e.failed_hook().cloned(),
    });
}

/// A `grad-set` event: the program assigned `t.grad` (now `grad`).
pub fn record_grad_set(t: &Tensor, grad: Option<&Tensor>) {
    record(|| Event::GradSet {
        tensor: t.id(),
        grad: grad.and_then(copy_values),
    });
}

/// Records that `output` was built from `inputs` by `node` (an `op` event),
/// and remembers the tensors for `trace_with_tensors`.
pub fn record_op(node: NodeId, name: &'static str, inputs: &[&Tensor], output: &Tensor) {
    if !is_recording() {
        return;
    }
    let event = Event::Op {
        node,
        name,
        inputs: inputs.iter().map(|t| t.id()).collect(),
        output: output.id(),
    };
    with_state(|s| {
        push(s, event);
        if let Some(top) = s.recorders.last_mut() {
            top.tensors
                .extend(inputs.iter().map(|t| Rc::downgrade(&t.0)));
            top.tensors.push(Rc::downgrade(&output.0));
        }
    });
}

/// Remembers a tensor the run created without an op (a leaf from
/// `hg.tensor()`), so `trace_with_tensors` lists it even if no op uses it.
pub fn note_tensor(t: &Tensor) {
    if !is_recording() {
        return;
    }
    with_state(|s| {
        if let Some(top) = s.recorders.last_mut() {
            top.tensors.push(Rc::downgrade(&t.0));
        }
    });
}

/// A console line of the program: a `log` event in the active trace (none
/// if no trace is active). Inside a user hook it waits for the hook's event.
pub fn record_log(level: LogLevel, text: String) {
    if !is_recording() {
        return;
    }
    with_state(|s| {
        // A hook call of this trace holds the line until its event; a line
        // of a trace started inside a hook is this trace's own.
        let depth = s.recorders.last().map_or(0, |r| r.hook_depth);
        match s.hook_logs.get_mut(depth..).and_then(<[_]>::last_mut) {
            Some(lines) => lines.push((level, text)),
            None => push(
                s,
                Event::Log {
                    level,
                    text,
                    hook: None,
                },
            ),
        }
    });
}

/// Marks a call into a user hook (the binding wraps each JS hook call), so
/// its console lines can be attributed to its event. Ends when dropped.
pub struct HookCall {
    active: bool,
}

impl HookCall {
    pub fn begin() -> HookCall {
        let active = is_recording() && with_state(|s| s.hook_logs.push(Vec::new())).is_some();
        HookCall { active }
    }
}

impl Drop for HookCall {
    fn drop(&mut self) {
        if self.active {
            with_state(|s| {
                let lines = s.hook_logs.pop().unwrap_or_else(|| {
                    crate::error::fault_default("a hook call's log was already taken")
                });
                s.awaiting.extend(lines);
            });
        }
    }
}

/// Runs `f` while recording; returns its result and the events. Events of a
/// nested trace are also kept by the enclosing one.
pub fn trace<T>(f: impl FnOnce() -> T) -> (T, Vec<Event>) {
    let (result, events, _) = trace_with_tensors(f);
    (result, events)
}

/// `trace`, plus every tensor an op of the run consumed or produced that is
/// still alive (the roots for `graph()` of the whole run).
pub fn trace_with_tensors<T>(f: impl FnOnce() -> T) -> (T, Vec<Event>, Vec<Tensor>) {
    with_state(|s| {
        s.recorders.push(Recorder {
            hook_depth: s.hook_logs.len(),
            ..Recorder::default()
        });
        RECORDING.with(|r| r.set(s.recorders.len()));
    });
    let result = f();
    let rec = with_state(|s| {
        let depth = s.recorders.last().map_or(0, |r| r.hook_depth);
        // Lines whose hook never got an event (it failed) still belong here;
        // the hook calls in progress before this trace began are an
        // enclosing trace's, and stay (their `HookCall`s end them).
        let pending: Vec<_> = s
            .hook_logs
            .drain(depth.min(s.hook_logs.len())..)
            .flatten()
            .chain(std::mem::take(&mut s.awaiting))
            .collect();
        let mut rec = s
            .recorders
            .pop()
            .unwrap_or_else(|| crate::error::fault_default("a trace's recorder was already taken"));
        RECORDING.with(|r| r.set(s.recorders.len()));
        rec.events
            .extend(pending.into_iter().map(|(level, text)| Event::Log {
                level,
                text,
                hook: None::<HandleId>,
            }));
        if let Some(parent) = s.recorders.last_mut() {
            parent.tensors.extend(rec.tensors.iter().cloned());
            // Inside a hook of the enclosing trace, this trace's own lines
            // are that hook's lines there (they follow its event).
            let enclosing_hook = depth.checked_sub(1).filter(|&d| d >= parent.hook_depth);
            for e in &rec.events {
                match (e, enclosing_hook.and_then(|d| s.hook_logs.get_mut(d))) {
                    (
                        Event::Log {
                            level,
                            text,
                            hook: None,
                        },
                        Some(lines),
                    ) => lines.push((*level, text.clone())),
                    _ => parent.events.push(e.clone()),
                }
            }
        }
        rec
    })
    .unwrap_or_default();
    let tensors = rec
        .tensors
        .iter()
        .filter_map(|w| w.upgrade().map(Tensor))
        .collect();
    (result, rec.events, tensors)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(events: &[Event]) -> Vec<String> {
        events
            .iter()
            .map(|e| match e {
                Event::Log { text, hook, .. } => format!("log {text} {hook:?}"),
                Event::Hook { handle, .. } => format!("hook {}", handle.0),
                Event::Warning { message } => format!("warning {message}"),
                _ => "other".into(),
            })
            .collect()
    }

    fn hook_event(h: u32) -> Event {
        Event::Hook {
            kind: HookKind::Tensor,
            handle: HandleId(h),
            name: String::new(),
            target: HookTarget::Tensor(crate::ids::TensorId(1), None),
            before: HookValue::One(None),
            after: HookValue::One(None),
        }
    }

    #[test]
    fn a_hook_s_lines_follow_its_event_and_name_it() {
        let ((), events) = trace(|| {
            record_log(LogLevel::Log, "before".into());
            {
                let _call = HookCall::begin();
                record_log(LogLevel::Log, "in hook".into());
                {
                    // A nested hook call (a hook that runs a backward).
                    let _inner = HookCall::begin();
                    record_log(LogLevel::Warn, "inner".into());
                }
                record(|| hook_event(2));
            }
            record(|| hook_event(1));
            {
                // A hook that failed: no event of its own.
                let _call = HookCall::begin();
                record_log(LogLevel::Error, "failing".into());
            }
            record(|| Event::Warning {
                message: "w".into(),
            });
        });
        assert_eq!(
            texts(&events),
            [
                "log before None",
                "hook 2",
                "log inner Some(HandleId(2))",
                "hook 1",
                "log in hook Some(HandleId(1))",
                "log failing None",
                "warning w",
            ]
        );
    }

    /// A hook as the binding calls one: inside a `HookCall`, printing a line.
    fn hook_calling(
        f: impl Fn(&Tensor) -> crate::error::Result<Option<Tensor>> + 'static,
    ) -> std::rc::Rc<dyn crate::hooks::TensorHook> {
        std::rc::Rc::new(move |g: &Tensor| {
            let _call = HookCall::begin();
            record_log(LogLevel::Log, "in hook".into());
            f(g)
        })
    }

    #[test]
    fn a_hook_that_traces_inside_a_traced_backward_lets_it_complete() {
        use crate::testing::{grad_values, leaf, ok};
        // a=2, b=3, c=a*b, y=c*4; c's hook runs `hg.trace(() => g.mul(2))`
        // and returns nothing. PyTorch: a.grad = 4·b = 12, b.grad = 4·a = 8.
        let (a, b) = (leaf(&[2.0], &[]), leaf(&[3.0], &[]));
        let c = ok(a.mul(&b));
        let y = ok(c.mul(4.0));
        let inner = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let seen = inner.clone();
        let handle = ok(c.register_hook(hook_calling(move |g| {
            let (r, events) = trace(|| {
                record_log(LogLevel::Log, "in inner trace".into());
                g.mul(2.0)
            });
            r?;
            seen.borrow_mut().extend(texts(&events));
            Ok(None)
        })));
        let (r, events) = trace(|| y.backward());
        assert_eq!(r, Ok(()));
        assert_eq!(crate::error::take_fault(), None);
        assert_eq!(grad_values(&a), [12.0]);
        assert_eq!(grad_values(&b), [8.0]);
        // The inner trace recorded its own run (backward runs hooks without
        // grad mode, so `g.mul(2)` builds no node: no op event, as PyTorch).
        assert_eq!(*inner.borrow(), ["log in inner trace None"]);
        // The outer one kept recording: the hook's event, then the hook's
        // lines (the inner trace's among them) naming it.
        let hook = handle.id;
        let outer = texts(&events);
        let at = outer.iter().position(|e| *e == format!("hook {}", hook.0));
        let after: Vec<&str> = outer[at.map_or(0, |i| i + 1)..]
            .iter()
            .take(2)
            .map(String::as_str)
            .collect();
        assert!(at.is_some(), "{outer:?}");
        assert_eq!(
            after,
            [
                format!("log in hook Some({hook:?})"),
                format!("log in inner trace Some({hook:?})")
            ]
        );
        assert!(!outer.iter().any(|e| e.contains("None")), "{outer:?}");
        // Nothing is left behind for the next trace.
        let ((), next) = trace(|| record_log(LogLevel::Log, "next".into()));
        assert_eq!(texts(&next), ["log next None"]);
    }

    #[test]
    fn lines_outside_a_trace_go_nowhere() {
        record_log(LogLevel::Log, "lost".into());
        let ((), events) = trace(|| {});
        assert!(events.is_empty());
    }
}
