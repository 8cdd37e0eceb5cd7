//! `torch.autograd.graph.register_multi_grad_hook(tensors, fn, mode=...)`,
//! built the way PyTorch builds it (torch/autograd/graph.py): a tensor hook
//! on each tensor, with state per backward pass.
//!
//! - `'all'`: on the first of its tensors' hooks in a pass, count how many
//!   of the tensors will get a gradient in it; when the last one arrives,
//!   call `fn(grads)` with `None` for those not computed.
//! - `'any'`: call `fn(grad)` for the first gradient of a pass only.

use std::cell::RefCell;
use std::rc::Rc;

use crate::error::{Error, Result};
use crate::graph_task::{self, Watch};
use crate::hooks::{RemovableHandle, TensorHook, TensorHookEntry};
use crate::ids::{HandleId, TensorId};
use crate::tensor::Tensor;
use crate::trace::{self, Event, HookKind, HookTarget, HookValue};

/// The user's function: `fn(grads)` ('all') or `fn([grad])` ('any').
pub trait MultiGradHook {
    fn call(&self, grads: &[Option<Tensor>]) -> Result<()>;
    fn name(&self) -> String {
        String::new()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    All,
    Any,
}

impl Mode {
    pub fn parse(s: &str) -> Result<Mode> {
        match s {
            "all" => Ok(Mode::All),
            "any" => Ok(Mode::Any),
            other => Err(Error::type_error(format!(
                "Expects mode to be one of ('all', 'any') but got {other}"
            ))),
        }
    }
}

/// `(pass id, calls so far, expected calls, gradients so far)`.
type PassState = (u64, usize, usize, Vec<Option<Tensor>>);

struct Shared {
    handle: HandleId,
    mode: Mode,
    hook: Rc<dyn MultiGradHook>,
    tensors: Vec<TensorId>,
    /// The tensors, weakly (a leaf holds this hook: a strong reference would
    /// be a cycle); their gradient edges are looked up when a pass starts.
    refs: Vec<std::rc::Weak<crate::tensor::TensorImpl>>,
    /// `(pass id, calls so far, expected calls, buffer)` of the current pass.
    state: RefCell<Option<PassState>>,
    _watch: Watch,
}

struct Inner {
    shared: Rc<Shared>,
    index: usize,
}

impl TensorHook for Inner {
    fn call(&self, grad: &Tensor) -> Result<Option<Tensor>> {
        let s = &self.shared;
        let Some(task) = graph_task::current() else {
            return Err(Error::runtime(
                "expected this hook to be called inside a backward call",
            ));
        };
        let ready = {
            let mut st = s
                .state
                .try_borrow_mut()
                .map_err(|_| Error::internal("multi-grad hook state is busy"))?;
            let fresh = !matches!(&*st, Some((id, ..)) if *id == task.id);
            if fresh {
                if s.mode == Mode::Any {
                    *st = Some((task.id, 1, 1, Vec::new()));
                    drop(st);
                    return run(s, &[Some(grad.clone())]).map(|_| None);
                }
                let expected = s
                    .refs
                    .iter()
                    .filter_map(|w| w.upgrade().map(Tensor))
                    .filter_map(|t| t.gradient_edge())
                    .filter(|e| task.will_execute(e.node.id))
                    .count();
                *st = Some((task.id, 0, expected, vec![None; s.tensors.len()]));
            } else if s.mode == Mode::Any {
                return Ok(None);
            }
            let Some((_, calls, expected, buffer)) = st.as_mut() else {
                return Ok(None);
            };
            if let Some(slot) = buffer.get_mut(self.index) {
                *slot = Some(grad.clone());
            }
            *calls += 1;
            if *calls >= *expected {
                let grads = std::mem::take(buffer);
                *st = None;
                Some(grads)
            } else {
                None
            }
        };
        if let Some(grads) = ready {
            run(s, &grads)?;
        }
        Ok(None)
    }
    fn name(&self) -> String {
        self.shared.hook.name()
    }
}

fn run(s: &Shared, grads: &[Option<Tensor>]) -> Result<()> {
    s.hook.call(grads).map_err(|e| {
        let name = s.hook.name();
        let quoted = if name.is_empty() {
            String::new()
        } else {
            format!(" '{name}'")
        };
        let message = format!("multi-grad hook{quoted} raised an error: {}", e.message());
        Error::in_hook(message, s.handle, HookKind::MultiGrad, name)
    })?;

    trace::record(|| {
        let values = grads
            .iter()
            .map(|g| {
                g.as_ref()
                    .and_then(|t| crate::error::snapshot(t.to_array()))
            })
            .collect::<Vec<_>>();
        Event::Hook {
            kind: crate::protocol::HookKind::MultiGrad,
            handle: s.handle,
            name: s.hook.name(),
            target: HookTarget::Tensors(s.tensors.clone()),
            before: HookValue::Many(values.clone()),
            after: HookValue::Many(values),
        }
    });
    Ok(())
}

/// Registers the hook; the handle removes it from every tensor.
pub fn register_multi_grad_hook(
    tensors: &[Tensor],
    hook: Rc<dyn MultiGradHook>,
    mode: Mode,
) -> Result<RemovableHandle> {
    // PyTorch 'any' hooks only the tensors that require grad; 'all' hooks
    // every tensor (and so fails like register_hook on one that does not).
    let watched: Vec<(usize, &Tensor)> = tensors
        .iter()
        .enumerate()
        .filter(|(_, t)| mode == Mode::All || t.requires_grad())
        .collect();
    let handle = HandleId::next();
    let shared = Rc::new(Shared {
        handle,
        mode,
        hook,
        tensors: tensors.iter().map(|t| t.id()).collect(),
        refs: tensors.iter().map(|t| Rc::downgrade(&t.0)).collect(),
        state: RefCell::new(None),
        _watch: Watch::new(),
    });
    let mut targets = Vec::new();
    for (index, t) in watched {
        let inner: Rc<dyn TensorHook> = Rc::new(Inner {
            shared: shared.clone(),
            index,
        });
        let list = t.hooks_list_for_registration_pub()?;
        if !t.requires_grad() {
            return Err(Error::runtime(
                "cannot register a hook on a tensor that doesn't require gradient",
            ));
        }
        list.add_with_id(handle, TensorHookEntry::User(inner));
        let rc: Rc<dyn crate::hooks::RemoveHook> = list;
        targets.push(Rc::downgrade(&rc));
    }
    Ok(RemovableHandle::new(handle, targets))
}
