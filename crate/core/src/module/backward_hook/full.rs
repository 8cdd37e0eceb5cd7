//! Full module backward hooks (`register_full_backward_hook`,
//! `register_full_backward_pre_hook`), as `torch/utils/hooks.py`'s
//! `BackwardHook`: the module call's tensors go through identity nodes whose
//! post-hooks see grad_output (output node) and grad_input (input node).
//! Apart from legacy.rs because the two kinds share nothing but the call of
//! one user hook (mod.rs).

use std::cell::RefCell;
use std::rc::Rc;

use super::{call_user_hook, user_rows, Grads, Site};
use crate::context;
use crate::error::{Error, Result};
use crate::hooks::NodePostHook;
use crate::ids::{HandleId, NodeId};
use crate::module::{Module, ModuleBackwardHook, ModuleBackwardPreHook, Value};
use crate::node::{Node, NodeRef};
use crate::protocol::HookInfo;
use crate::tensor::Tensor;
use crate::trace::{self, HookKind};
use crate::view::CreationMeta;

/// `BackwardHookFunction.apply(*tensors)`: identity outputs sharing storage,
/// with one `BackwardHookFunctionBackward` node. Outputs whose input does not
/// require grad are non-differentiable (no grad_fn), as `mark_non_differentiable`.
pub fn backward_hook_function(tensors: &[Tensor]) -> (Vec<Tensor>, NodeRef) {
    let next = tensors.iter().map(|t| t.gradient_edge()).collect();
    let shapes: Vec<Vec<usize>> = tensors.iter().map(|t| t.shape()).collect();
    let zero_shapes = shapes.clone();
    let node = Node::new_op(
        "BackwardHookFunctionBackward",
        next,
        shapes,
        Vec::new(),
        // Identity; like any custom Function it materializes missing grads
        // as zeros (so a full hook sees 0 for an input needing no grad).
        Box::new(move |ctx| {
            Ok(ctx
                .grads
                .iter()
                .zip(&zero_shapes)
                .map(|(g, s)| {
                    g.clone()
                        .or_else(|| Some(Tensor::from_array(crate::tensor::Array::zeros(s))))
                })
                .collect())
        }),
    );
    node.custom_function.set(true);
    // PyTorch (custom_function.cpp `_process_backward_mode_ad`): an input
    // returned as-is comes out a view of it that refuses in-place ops, so
    // `nn.ReLU(inplace=True)` after a hooked module raises at the ReLU.
    // With several differentiable outputs, each is a multi-output view.
    let differentiable = tensors.iter().filter(|t| t.requires_grad()).count();
    let creation = if differentiable > 1 {
        CreationMeta::MultiOutputNode
    } else {
        CreationMeta::InCustomFunction
    };
    let outputs: Vec<Tensor> = tensors
        .iter()
        .enumerate()
        .map(|(i, t)| {
            if t.requires_grad() {
                let out = Tensor::with_storage(t.storage().clone(), Some(node.clone()), i, false);
                let strides = t.stored_strides();
                if let Ok(mut m) = out.meta_mut() {
                    m.name = t.name();
                    // An identity keeps the layout (as PyTorch's outputs do).
                    m.strides = strides;
                    m.creation = creation;
                }
                node.add_output(&out);
                out
            } else {
                t.detach()
            }
        })
        .collect();
    for (t, out) in tensors.iter().zip(&outputs) {
        if out.grad_fn().is_some() {
            trace::record_op(node.id, node.name, &[t], out);
        }
    }
    (outputs, node)
}

struct State {
    /// `None` once released: after a backward without retain_graph the
    /// module, its forward and the copied hooks are dropped (see `release`).
    module: Option<Module>,
    user_hooks: Vec<(HandleId, Rc<dyn ModuleBackwardHook>)>,
    user_pre_hooks: Vec<(HandleId, Rc<dyn ModuleBackwardPreHook>)>,
    grad_outputs: Option<Vec<Option<Tensor>>>,
    n_inputs: usize,
    input_tensors_index: Option<Vec<usize>>,
    n_outputs: usize,
    output_tensors_index: Option<Vec<usize>>,
    /// The hook rows as plain data, kept when the hooks themselves are
    /// released, so `graph()` after a backward still shows which hooks sat
    /// here (PyTorch keeps them on the node; we keep only their description).
    released_rows: Option<ReleasedRows>,
}

/// `(pre-hook rows, full-hook rows)` of a released module call.
type ReleasedRows = (Vec<HookInfo>, Vec<HookInfo>);

/// One per module call that has full backward (pre-)hooks.
pub struct BackwardHook {
    state: Rc<RefCell<State>>,
}

fn pack_with_none(
    indices: &[usize],
    values: &[Option<Tensor>],
    size: usize,
) -> Vec<Option<Tensor>> {
    let mut res = vec![None; size];
    for (idx, v) in indices.iter().zip(values) {
        if let Some(slot) = res.get_mut(*idx) {
            *slot = v.clone();
        }
    }
    res
}

fn busy() -> Error {
    Error::internal("module backward hook state is busy")
}

/// Drops what a finished backward no longer needs: the module (and through
/// it its forward), the hooks copied at call time and any captured
/// grad_output. PyTorch leaves this to its cycle collector; JS has none that
/// sees through wasm memory, and a JS hook reaching the graph's output would
/// otherwise keep the whole graph alive. The identity nodes stay (so the
/// graph's shape and PyTorch's "second time" error are unchanged); a second
/// backward through them — possible in PyTorch only when no node on the way
/// saved a tensor — passes gradients through without calling the hooks again.
fn release_state(state: &RefCell<State>) {
    // Taken out first, dropped after the borrow ends: dropping a JS hook may
    // run arbitrary drop code, never under a borrow.
    let dropped = match state.try_borrow_mut() {
        Ok(mut s) => {
            if let Some(module) = &s.module {
                let pre = user_rows(module, HookKind::ModuleFullBackwardPre, &s.user_pre_hooks);
                let full = user_rows(module, HookKind::ModuleFullBackward, &s.user_hooks);
                s.released_rows = Some((pre, full));
            }
            Some((
                s.module.take(),
                std::mem::take(&mut s.user_hooks),
                std::mem::take(&mut s.user_pre_hooks),
                s.grad_outputs.take(),
            ))
        }
        Err(_) => None,
    };
    drop(dropped);
}

impl BackwardHook {
    pub fn new(
        module: Module,
        user_hooks: Vec<(HandleId, Rc<dyn ModuleBackwardHook>)>,
        user_pre_hooks: Vec<(HandleId, Rc<dyn ModuleBackwardPreHook>)>,
    ) -> Self {
        BackwardHook {
            state: Rc::new(RefCell::new(State {
                module: Some(module),
                user_hooks,
                user_pre_hooks,
                grad_outputs: None,
                n_inputs: 0,
                input_tensors_index: None,
                n_outputs: 0,
                output_tensors_index: None,
                released_rows: None,
            })),
        }
    }

    /// `_apply_on_tensors`: wraps the tensors among `args` if any requires grad.
    fn apply_on_tensors(args: Vec<Value>) -> (Vec<Value>, Option<(Vec<usize>, NodeRef)>) {
        let mut idx = Vec::new();
        let mut tensors = Vec::new();
        for (i, a) in args.iter().enumerate() {
            if let Value::Tensor(t) = a {
                idx.push(i);
                tensors.push(t.clone());
            }
        }
        let requires_grad = tensors.iter().any(|t| t.requires_grad());
        if !(requires_grad && context::is_grad_enabled()) {
            return (args, None);
        }
        let (new_tensors, node) = backward_hook_function(&tensors);
        let mut out = args;
        for (i, t) in idx.iter().zip(new_tensors) {
            out[*i] = Value::Tensor(t);
        }
        (out, Some((idx, node)))
    }

    pub fn setup_input_hook(&self, args: Vec<Value>) -> Result<Vec<Value>> {
        let n = args.len();
        let (res, wrapped) = Self::apply_on_tensors(args);
        {
            let mut s = self.state.try_borrow_mut().map_err(|_| busy())?;
            s.n_inputs = n;
            s.input_tensors_index = wrapped.as_ref().map(|(i, _)| i.clone());
        }
        if let Some((_, node)) = wrapped {
            node.register_hook(Rc::new(InputHook {
                state: self.state.clone(),
                node: node.id,
            }));
        }
        Ok(res)
    }

    pub fn setup_output_hook(&self, result: Value) -> Result<Value> {
        let is_tuple = matches!(result, Value::Tuple(_));
        let items = result.tuple_items();
        let n = items.len();
        let (res, wrapped) = Self::apply_on_tensors(items);
        {
            let mut s = self.state.try_borrow_mut().map_err(|_| busy())?;
            s.n_outputs = n;
            s.output_tensors_index = wrapped.as_ref().map(|(i, _)| i.clone());
        }
        if let Some((_, node)) = wrapped {
            node.register_hook(Rc::new(OutputHook {
                state: self.state.clone(),
                node: node.id,
            }));
        }
        Ok(if is_tuple {
            Value::Tuple(res)
        } else {
            res.into_iter().next().unwrap_or(Value::None)
        })
    }
}

/// On the output identity node: captures grad_output, runs the full backward
/// pre-hooks, and calls the user hooks directly when no input needs grad.
struct OutputHook {
    state: Rc<RefCell<State>>,
    node: NodeId,
}

impl NodePostHook for OutputHook {
    fn call(
        &self,
        _grad_inputs: &[Option<Tensor>],
        grad_outputs: &[Option<Tensor>],
    ) -> Result<Option<Vec<Option<Tensor>>>> {
        let (module, pre_hooks, hooks, out_idx, n_outputs, in_idx, n_inputs) = {
            let s = self.state.try_borrow().map_err(|_| busy())?;
            let Some(module) = s.module.clone() else {
                return Ok(None); // released: identity
            };
            (
                module,
                s.user_pre_hooks.clone(),
                s.user_hooks.clone(),
                s.output_tensors_index.clone().unwrap_or_default(),
                s.n_outputs,
                s.input_tensors_index.clone(),
                s.n_inputs,
            )
        };
        let site = Site {
            module: &module,
            node: self.node,
        };
        let mut grad_outputs = pack_with_none(&out_idx, grad_outputs, n_outputs);
        let expected = grad_outputs.len();
        for (handle, hook) in pre_hooks {
            let replaced = call_user_hook(
                &site,
                HookKind::ModuleFullBackwardPre,
                handle,
                || hook.name(),
                &grad_outputs,
                |g| hook.call(&module, g),
                |new| {
                    if new.len() != expected {
                        return Err(Error::runtime(format!(
                            "Backward pre hook returned an invalid number of grad_output, got {}, but expected {expected}",
                            new.len()
                        )));
                    }
                    Ok(Some(new))
                },
            )?;
            if let Some(new) = replaced {
                grad_outputs = new;
            }
        }
        let local = grad_outputs.clone();
        self.state
            .try_borrow_mut()
            .map_err(|_| busy())?
            .grad_outputs = Some(grad_outputs.clone());

        if in_idx.is_none() {
            // PyTorch warns only when there are full hooks to call here.
            if !hooks.is_empty() {
                // torch/utils/hooks.py warns with stacklevel=5: the user's backward() line.
                context::warn_at_caller(NO_INPUT_REQUIRES_GRAD_WARNING);
            }
            let grad_inputs: Grads = vec![None; n_inputs];
            for (handle, hook) in hooks {
                // Nothing to replace: the hook may only return no gradients.
                call_user_hook(
                    &site,
                    HookKind::ModuleFullBackward,
                    handle,
                    || hook.name(),
                    &grad_inputs,
                    |g| hook.call(&module, g, &grad_outputs),
                    |r| {
                        if r.iter().any(|x| x.is_some()) {
                            return Err(Error::runtime(
                                "Backward hook for Modules where no input requires gradient should always return None or None for all gradients.",
                            ));
                        }
                        Ok(None)
                    },
                )?;
            }
            self.state
                .try_borrow_mut()
                .map_err(|_| busy())?
                .grad_outputs = None;
        }
        Ok(Some(
            out_idx
                .iter()
                .map(|&i| local.get(i).cloned().flatten())
                .collect(),
        ))
    }
    fn kind(&self) -> HookKind {
        HookKind::ModuleFullBackwardPre
    }
    fn records_itself(&self) -> bool {
        true
    }
    fn rows(&self, _handle: HandleId) -> Vec<HookInfo> {
        let Ok(s) = self.state.try_borrow() else {
            return Vec::new();
        };
        // Released at the end of a backward: the node no longer holds hooks.
        let Some(module) = &s.module else {
            return Vec::new();
        };
        let mut rows = user_rows(module, HookKind::ModuleFullBackwardPre, &s.user_pre_hooks);
        // With no input needing grad, the full hooks run here too.
        if s.input_tensors_index.is_none() {
            rows.extend(user_rows(
                module,
                HookKind::ModuleFullBackward,
                &s.user_hooks,
            ));
        }
        rows
    }
    fn name(&self) -> String {
        "BackwardHook.setup_output_hook".into()
    }
    fn release(&self) {
        release_state(&self.state);
    }
}

/// On the input identity node: has grad_input; calls the user's full hooks.
struct InputHook {
    state: Rc<RefCell<State>>,
    node: NodeId,
}

impl NodePostHook for InputHook {
    fn call(
        &self,
        grad_inputs: &[Option<Tensor>],
        _grad_outputs: &[Option<Tensor>],
    ) -> Result<Option<Vec<Option<Tensor>>>> {
        let (module, hooks, grad_outputs, in_idx, n_inputs) = {
            let s = self.state.try_borrow().map_err(|_| busy())?;
            let Some(module) = s.module.clone() else {
                return Ok(None); // released: identity
            };
            (
                module,
                s.user_hooks.clone(),
                s.grad_outputs.clone(),
                s.input_tensors_index.clone().unwrap_or_default(),
                s.n_inputs,
            )
        };
        // Gradient reached the inputs without passing through the outputs.
        let Some(grad_outputs) = grad_outputs else {
            return Ok(None);
        };
        let site = Site {
            module: &module,
            node: self.node,
        };
        let mut res = pack_with_none(&in_idx, grad_inputs, n_inputs);
        for (handle, hook) in hooks {
            let expected = res.len();
            let replaced = call_user_hook(
                &site,
                HookKind::ModuleFullBackward,
                handle,
                || hook.name(),
                &res,
                |g| hook.call(&module, g, &grad_outputs),
                |out| {
                    if out.len() != expected {
                        return Err(Error::runtime(format!(
                            "Backward hook returned an invalid number of grad_input, got {}, but expected {expected}",
                            out.len(),
                        )));
                    }
                    Ok(Some(out))
                },
            )?;
            if let Some(out) = replaced {
                res = out;
            }
        }
        self.state
            .try_borrow_mut()
            .map_err(|_| busy())?
            .grad_outputs = None;
        Ok(Some(
            in_idx
                .iter()
                .map(|&i| res.get(i).cloned().flatten())
                .collect(),
        ))
    }
    fn kind(&self) -> HookKind {
        HookKind::ModuleFullBackward
    }
    fn records_itself(&self) -> bool {
        true
    }
    fn rows(&self, _handle: HandleId) -> Vec<HookInfo> {
        let Ok(s) = self.state.try_borrow() else {
            return Vec::new();
        };
        match (&s.module, &s.released_rows) {
            (Some(module), _) => user_rows(module, HookKind::ModuleFullBackward, &s.user_hooks),
            // Released at the end of a backward: what the hooks were, as data.
            (None, Some((_, full))) => full.clone(),
            (None, None) => Vec::new(),
        }
    }
    fn name(&self) -> String {
        "BackwardHook._set_user_hook".into()
    }
    fn release(&self) {
        release_state(&self.state);
    }
}

pub const NO_INPUT_REQUIRES_GRAD_WARNING: &str = "Full backward hook is firing when gradients are computed with respect to module outputs since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details.";
