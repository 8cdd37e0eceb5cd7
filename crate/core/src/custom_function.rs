//! `torch.autograd.Function` (a custom Function): the host ran the user's
//! `forward` under no_grad; `custom_function` gives its tensor outputs one
//! new node, `<Name>Backward`, whose backward calls back into the host
//! (`CustomBackward`: the user's `backward`, which computes the gradient
//! with engine ops). To the engine it is one more node: its hooks, tensor
//! hooks and place in the ready queue are any node's. What PyTorch's
//! `PyNode::apply` checks of the returned gradients (their count, None for
//! non-tensor arguments) is checked here, in its words; shapes are then
//! checked by `validate_outputs`, as for every node.

use std::cell::RefCell;
use std::rc::Rc;

use crate::context;
use crate::error::{Error, Result};
use crate::node::{Node, NodeRef, SavedTensor};
use crate::tensor::{Array, Tensor};
use crate::trace;
use crate::view::CreationMeta;

/// The user's `backward(ctx, *grad_outputs)`, in the host.
pub trait CustomBackward {
    /// `grad_outputs`: one per forward output (None where undefined, unless
    /// grads are materialized); `saved`: the tensors saved for backward,
    /// unpacked. Returns the values the user returned, one per entry (a lone
    /// value as a list of one).
    fn call(&self, grad_outputs: &[Option<Tensor>], saved: &[Tensor]) -> Result<Vec<Returned>>;
}

/// One value a custom backward returned.
pub enum Returned {
    None,
    Tensor(Tensor),
    /// Anything else, by its type's name (PyTorch's "expected Variable or
    /// None (got str)").
    Other(String),
}

impl From<Option<Tensor>> for Returned {
    fn from(t: Option<Tensor>) -> Self {
        t.map_or(Returned::None, Returned::Tensor)
    }
}

/// What the forward produced, as `Function.apply` hands it over.
pub struct CustomCall<'a> {
    /// The Function's class name (the node is `<name>Backward`).
    pub name: &'a str,
    /// One per forward argument: the tensor, or None for a non-tensor.
    pub args: &'a [Option<Tensor>],
    /// The tensors the forward returned, in order.
    pub outputs: &'a [Tensor],
    /// `ctx.save_for_backward(...)`: inputs, outputs or other tensors.
    pub saved: &'a [Tensor],
    /// Indices into `outputs` of `ctx.mark_non_differentiable(...)`.
    pub non_differentiable: &'a [usize],
    /// `ctx.set_materialize_grads` (true unless set to False).
    pub materialize_grads: bool,
}

thread_local! {
    /// Node names are `&'static str` (nodes stay small); a custom Function's
    /// name is made once per class name and kept, so the leak is bounded by
    /// the number of distinct Function classes a program defines. A list,
    /// not a HashMap: a program has a few, and a hasher costs wasm size.
    static NAMES: RefCell<Vec<&'static str>> = const { RefCell::new(Vec::new()) };
}

fn node_name(class: &str) -> &'static str {
    let full = format!("{class}Backward");
    NAMES.with(|n| match n.try_borrow_mut() {
        Ok(mut n) => match n.iter().find(|s| **s == full) {
            Some(s) => *s,
            None => {
                let s: &'static str = Box::leak(full.into_boxed_str());
                n.push(s);
                s
            }
        },
        Err(_) => "CustomFunctionBackward",
    })
}

/// PyTorch's `PyNode::apply` checks of what backward returned: extra
/// trailing Nones are dropped, then one value per forward argument, None
/// for each non-tensor one. Returns one gradient per tensor argument.
fn check_returned(
    name: &str,
    is_tensor: &[bool],
    mut returned: Vec<Returned>,
) -> Result<Vec<Option<Tensor>>> {
    let n = is_tensor.len();
    if returned.len() > n && returned[n..].iter().all(|r| matches!(r, Returned::None)) {
        returned.truncate(n);
    }
    if returned.len() != n {
        return Err(Error::runtime(format!(
            "function {name} returned an incorrect number of gradients (expected {n}, got {})",
            returned.len()
        )));
    }
    let mut grads = Vec::with_capacity(n);
    for (i, (g, t)) in returned.into_iter().zip(is_tensor).enumerate() {
        if *t {
            grads.push(match g {
                Returned::None => None,
                Returned::Tensor(t) => Some(t),
                Returned::Other(ty) => {
                    return Err(Error::runtime(format!(
                        "expected Variable or None (got {ty})"
                    )))
                }
            });
        } else if !matches!(g, Returned::None) {
            return Err(Error::runtime(format!(
                "function {name} returned a gradient different than None at position {}, but the corresponding forward input was not a Variable",
                i + 1
            )));
        }
    }
    Ok(grads)
}

/// Gives `call.outputs` their history: new tensors sharing each output's
/// storage, with `<Name>Backward` as grad_fn when grad mode is on and an
/// argument requires grad (else detached). Returns them and the node.
pub fn custom_function(
    call: &CustomCall,
    backward: Rc<dyn CustomBackward>,
) -> Result<(Vec<Tensor>, Option<NodeRef>)> {
    let tensor_args: Vec<&Tensor> = call.args.iter().flatten().collect();
    let differentiable =
        context::is_grad_enabled() && tensor_args.iter().any(|t| t.requires_grad());
    if !differentiable {
        return Ok((call.outputs.iter().map(Tensor::detach).collect(), None));
    }
    let name = node_name(call.name);
    let is_tensor: Vec<bool> = call.args.iter().map(Option::is_some).collect();
    let shapes: Vec<Vec<usize>> = call.outputs.iter().map(Tensor::shape).collect();
    let zero_shapes = shapes.clone();
    let materialize = call.materialize_grads;
    let next = tensor_args.iter().map(|t| t.gradient_edge()).collect();
    let node = Node::new_op(
        name,
        next,
        shapes,
        Vec::new(),
        Box::new(move |ctx| {
            let grads: Vec<Option<Tensor>> = if materialize {
                ctx.grads
                    .iter()
                    .zip(&zero_shapes)
                    .map(|(g, s)| {
                        g.clone()
                            .or_else(|| Some(Tensor::from_array(Array::zeros(s))))
                    })
                    .collect()
            } else {
                ctx.grads.to_vec()
            };
            let returned = backward.call(&grads, ctx.saved)?;
            check_returned(name, &is_tensor, returned)
        }),
    );
    node.custom_function.set(true);
    let n_diff = call
        .outputs
        .iter()
        .enumerate()
        .filter(|(i, _)| !call.non_differentiable.contains(i))
        .count();
    let mut outputs = Vec::with_capacity(call.outputs.len());
    for (i, o) in call.outputs.iter().enumerate() {
        if call.non_differentiable.contains(&i) {
            outputs.push(o.detach());
            continue;
        }
        let out = Tensor::with_storage(o.storage().clone(), Some(node.clone()), i, false);
        let is_input = tensor_args.iter().any(|t| t.id() == o.id());
        let strides = o.stored_strides();
        if let Ok(mut m) = out.meta_mut() {
            m.name = o.name();
            m.strides = strides;
            // PyTorch: an input returned as-is comes out a view of it
            // (custom_function.cpp `_process_backward_mode_ad`).
            if is_input {
                m.creation = if n_diff > 1 {
                    CreationMeta::MultiOutputNode
                } else {
                    CreationMeta::InCustomFunction
                };
            }
        }
        node.add_output(&out);
        trace::record_op(node.id, node.name, &tensor_args, &out);
        outputs.push(out);
    }
    // Saved after the outputs have their history, in `save_for_backward`'s
    // order (PyTorch's `_save_variables`, where pack hooks run): an output
    // as an output (no node → output → node cycle).
    for t in call.saved {
        let st = match call.outputs.iter().position(|o| o.id() == t.id()) {
            Some(j) if !call.non_differentiable.contains(&j) => match outputs.get(j) {
                Some(out) => SavedTensor::save_output(out),
                None => SavedTensor::save(t),
            },
            Some(j) => SavedTensor::save(outputs.get(j).unwrap_or(t)),
            None => SavedTensor::save(t),
        };
        node.add_saved(st)?;
    }
    Ok((outputs, Some(node)))
}

/// A closure as a custom backward (native tests): its gradients as returned.
impl<F> CustomBackward for F
where
    F: Fn(&[Option<Tensor>], &[Tensor]) -> Result<Vec<Option<Tensor>>>,
{
    fn call(&self, g: &[Option<Tensor>], saved: &[Tensor]) -> Result<Vec<Returned>> {
        Ok(self(g, saved)?.into_iter().map(Returned::from).collect())
    }
}
