//! The backward engine, after PyTorch's `engine.cpp`: count dependencies from
//! the roots, run nodes from a ready queue ordered by `sequence_nr`, buffer
//! and sum incoming gradients per node, and run every node through one
//! `call_node` that fixes the hook order:
//!
//! tensor hooks → retain-grad (PyTorch 2: after all tensor hooks) → node
//! pre-hooks → the node → output validation → node post-hooks.
//! Each step's trace event is recorded as it happens (the `node` event
//! right after the node computed), so the trace order is this order.
//!
//! No engine state lives in a `RefCell` while a hook runs: the graph task is
//! a local value, so hooks may re-enter (`g.mul(2)`, even `backward()`).

use crate::context::{self, GradModeGuard, Semantics};
use crate::error::{Error, Result};
use crate::graph_task::{init_to_execute, GraphTask, HashMap, NodeTable};
use crate::hooks::{FirstInline, TensorHook, TensorHookEntry};
use crate::ids::{HandleId, NodeId, TensorId};
use crate::input_buffer::{add_grad, to_tensors, Grad, Grads, Shares};
use crate::node::{Edge, NodeKind, NodeRef};
use crate::ready_queue::ReadyQueue;
use crate::shape::{fmt_shape, is_expandable_to};
use crate::small::Small;
use crate::tensor::{Array, Tensor, TensorHookList, TensorImpl};
use crate::trace::{self, Event, HookKind, HookTarget, HookValue};
use std::rc::{Rc, Weak};

pub(crate) use crate::graph_task::HashSet;

/// `t.backward(gradient, retain_graph, inputs)`.
pub fn backward(
    root: &Tensor,
    gradient: Option<Tensor>,
    retain_graph: bool,
    inputs: Option<&[Tensor]>,
) -> Result<()> {
    root.backward_ext(gradient, retain_graph, false, inputs)
}

/// `torch.autograd.backward(roots, gradients, retain_graph, create_graph,
/// inputs)`, one pass over every root; with `create_graph` the gradients
/// have their own graph. `t.backward(...)` is one root.
pub fn backward_ext(
    roots: &[Tensor],
    gradients: Vec<Option<Tensor>>,
    retain_graph: bool,
    create_graph: bool,
    inputs: Option<&[Tensor]>,
) -> Result<()> {
    if let Some(inputs) = inputs {
        if inputs.is_empty() {
            return Err(Error::runtime(
                "'inputs' argument to backward() cannot be empty.",
            ));
        }
    }
    if create_graph {
        // PyTorch: engine.cpp, TORCH_WARN_ONCE.
        context::warn_once(CREATE_GRAPH_CYCLE_WARNING);
    }
    // A fault an infallible accessor recorded during backward fails it.
    crate::error::checked(run_backward(
        roots,
        gradients,
        retain_graph,
        create_graph,
        true,
        inputs.unwrap_or(&[]),
        true,
    ))
    .map(|_| ())
}

pub const CREATE_GRAPH_CYCLE_WARNING: &str = "Using backward() with create_graph=True will create a reference cycle between the parameter and its gradient which can cause a memory leak. We recommend using autograd.grad when creating the graph to avoid this. If you have to use this function, make sure to reset the .grad fields of your parameters to None after use to break the cycle and avoid the leak.";

/// `torch.autograd.grad(outputs, inputs, grad_outputs, retain_graph, allow_unused)`.
pub fn grad(
    outputs: &[Tensor],
    inputs: &[Tensor],
    grad_outputs: Vec<Option<Tensor>>,
    retain_graph: bool,
    allow_unused: bool,
) -> Result<Vec<Option<Tensor>>> {
    grad_ext(
        outputs,
        inputs,
        grad_outputs,
        retain_graph,
        false,
        allow_unused,
    )
}

/// `torch.autograd.grad(..., create_graph=...)`.
pub fn grad_ext(
    outputs: &[Tensor],
    inputs: &[Tensor],
    grad_outputs: Vec<Option<Tensor>>,
    retain_graph: bool,
    create_graph: bool,
    allow_unused: bool,
) -> Result<Vec<Option<Tensor>>> {
    if inputs.is_empty() {
        return Err(Error::runtime("grad requires non-empty inputs."));
    }
    crate::error::checked(run_backward(
        outputs,
        grad_outputs,
        retain_graph,
        create_graph,
        false,
        inputs,
        allow_unused,
    ))
}

#[cfg_attr(hookgrad_nightly, optimize(speed))]
fn run_backward(
    outputs: &[Tensor],
    grad_outputs: Vec<Option<Tensor>>,
    keep_graph: bool,
    create_graph: bool,
    accumulate_grad: bool,
    inputs: &[Tensor],
    allow_unused: bool,
) -> Result<Vec<Option<Tensor>>> {
    if grad_outputs.len() != outputs.len() {
        return Err(Error::runtime(format!(
            "grad_outputs must have the same length as outputs (got {} and {})",
            grad_outputs.len(),
            outputs.len()
        )));
    }
    // Root edges and their gradients (PyTorch's `_make_grads`).
    let mut roots: Vec<(Edge, Option<Tensor>)> = Vec::new();
    for (i, (out, given)) in outputs.iter().zip(grad_outputs).enumerate() {
        let edge = out.gradient_edge().ok_or_else(|| {
            Error::runtime(format!(
                "element {i} of tensors does not require grad and does not have a grad_fn"
            ))
        })?;
        let grad = match given {
            Some(g) => {
                if g.shape() != out.shape() {
                    return Err(Error::runtime(format!(
                        "Mismatch in shape: grad_output[{i}] has a shape of torch.Size({}) and output[{i}] has a shape of torch.Size({}).",
                        fmt_shape(&g.shape()),
                        fmt_shape(&out.shape())
                    )));
                }
                g
            }
            None => {
                if out.numel() != 1 {
                    return Err(Error::runtime(
                        "grad can be implicitly created only for scalar outputs",
                    ));
                }
                Tensor::from_array(Array::ones(&out.shape()))
            }
        };
        roots.push((edge, Some(grad)));
    }

    // Edges of the requested inputs.
    let mut input_edges: Vec<Edge> = Vec::new();
    for t in inputs {
        if !t.requires_grad() {
            return Err(Error::runtime(
                "One of the differentiated Tensors does not require grad",
            ));
        }
        if accumulate_grad {
            t.retain_grad()?;
        }
        let edge = t.gradient_edge().ok_or_else(|| {
            Error::runtime("One of the differentiated Tensors does not require grad")
        })?;
        input_edges.push(edge);
    }

    let table = NodeTable::build(&roots);
    let mut task = GraphTask {
        keep_graph,
        needed: HashSet::default(),
        captures: HashMap::default(),
        captured: vec![None; input_edges.len()],
        filtered: !input_edges.is_empty(),
        ran_with_post_hooks: Vec::new(),
        scalar_mode: false,
    };
    if task.filtered {
        init_to_execute(&mut task, &roots, &input_edges, accumulate_grad);
    }
    // Nothing but the engine can look at gradients in flight: 0-d nodes may
    // compute on numbers (see `scalar_backward`).
    task.scalar_mode = !table.any_hooks
        && !create_graph
        && task.captures.is_empty()
        && !trace::is_recording()
        && !crate::node::packs_alive();

    // Backward records a graph of its own computation only with
    // `create_graph` (PyTorch runs the graph task in that grad mode).
    let _grad_mode = GradModeGuard::set(create_graph);
    let _task = crate::graph_task::TaskGuard::enter(if crate::graph_task::watched() {
        // The roots are in the table too.
        let mut set: crate::graph_task::HashSet<NodeId> =
            table.nodes.iter().map(|n| n.id).collect();
        set.retain(|id| task.should_execute(*id));
        set
    } else {
        Default::default()
    });
    // A failing node records its `error` event (with the node) in `execute`.
    let result = execute(&mut task, roots, table);
    // Like saved tensors (released per node as it runs), the hook state of
    // nodes that ran goes at the end of a backward without retain_graph,
    // failed or not: the graph cannot be replayed with it anyway.
    if !task.keep_graph {
        for node in std::mem::take(&mut task.ran_with_post_hooks) {
            for (_, hook) in node.post_hooks.snapshot() {
                hook.release();
            }
        }
    }
    result?;

    if accumulate_grad {
        return Ok(Vec::new());
    }
    if !allow_unused {
        if let Some(i) = task.captured.iter().position(|g| g.is_none()) {
            return Err(Error::runtime(format!(
                "The differentiated Tensor at index {i} appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior."
            )));
        }
    }
    Ok(task.captured)
}

#[cfg_attr(hookgrad_nightly, optimize(speed))]
fn execute(
    task: &mut GraphTask,
    roots: Vec<(Edge, Option<Tensor>)>,
    mut table: NodeTable,
) -> Result<()> {
    // Input buffers by table entry (PyTorch's `not_ready` map), and the
    // ready queue of entries.
    let mut buffers: Vec<Option<Grads>> = vec![None; table.nodes.len()];
    let mut queue: ReadyQueue<usize> = ReadyQueue::default();
    // Holders of the gradients that scalar mode keeps as numbers.
    let mut shares = Shares::default();

    // The roots act as the outputs of PyTorch's GraphRoot.
    route_outputs(
        task,
        roots
            .iter()
            .map(|(e, g)| (Some(e), g.clone().map(Grad::Tensor))),
        &mut table,
        &mut buffers,
        &mut queue,
        &mut shares,
    )?;

    while let Some(i) = queue.pop() {
        let node = table.nodes[i].clone();
        let inputs = buffers[i]
            .take()
            .ok_or_else(|| Error::internal("a ready node has no input buffer"))?;
        let outputs =
            evaluate(task, &mut shares, &node, inputs).inspect_err(|e| record_error(e, &node))?;
        let Some(outputs) = outputs else { continue };
        // Edges by reference: no Vec and no Rc clone per output.
        let routed = node.next.iter().map(Option::as_ref).zip(outputs);
        route_outputs(
            task,
            routed,
            &mut table,
            &mut buffers,
            &mut queue,
            &mut shares,
        )?;
    }
    Ok(())
}

/// Hands each output to its next node's buffer; a node whose dependencies
/// all arrived becomes ready (PyTorch's `evaluate_function` tail).
#[cfg_attr(hookgrad_nightly, optimize(speed))]
fn route_outputs<'e>(
    task: &GraphTask,
    outputs: impl IntoIterator<Item = (Option<&'e Edge>, Option<Grad>)>,
    table: &mut NodeTable,
    buffers: &mut [Option<Grads>],
    queue: &mut ReadyQueue<usize>,
    shares: &mut Shares,
) -> Result<()> {
    // Gradients not stored in a slot (added into one, or with nowhere to
    // go): let go of once every output is routed, as PyTorch's `outputs`
    // holds them (see `add_grad`).
    let mut held: Grads = Small::Zero;
    for (edge, grad) in outputs {
        let Some(edge) = edge else {
            held.push(grad);
            continue;
        };
        let not_found = || Error::runtime(format!("dependency not found for {}", edge.node.name));
        let i = table.index(&edge.node).ok_or_else(not_found)?;
        let (Some(deps), Some(buffer)) = (table.deps.get_mut(i), buffers.get_mut(i)) else {
            return Err(not_found());
        };
        // All of a node's dependencies already arrived: it is not waiting.
        if *deps == 0 {
            return Err(not_found());
        }
        *deps -= 1;
        let ready = *deps == 0;
        if buffer.is_none() {
            if !task.should_execute(edge.node.id) {
                held.push(grad);
                continue;
            }
            *buffer = Some(Small::filled(edge.node.num_inputs(), None));
        }
        if let (Some(slots), Some(grad)) = (buffer, grad) {
            if let Some(added) = add_grad(edge.node.name, slots, edge.input_nr, grad, shares)? {
                held.push(Some(added));
            }
        }
        if ready {
            queue.push(edge.node.sequence_nr, i);
        }
    }
    shares.drop_all(&held);
    Ok(())
}

/// Runs one ready node, honouring `inputs=` filtering and captures. Returns
/// `None` when the node was only captured from, not executed.
#[cfg_attr(hookgrad_nightly, optimize(speed))]
fn evaluate(
    task: &mut GraphTask,
    shares: &mut Shares,
    node: &NodeRef,
    inputs: Grads,
) -> Result<Option<Grads>> {
    if task.filtered {
        let needed = task.needed.contains(&node.id);
        // In scalar mode there are neither hooks nor captures to run here.
        if !task.scalar_mode {
            let mut values = to_tensors(inputs.clone());
            if !needed {
                values = call_tensor_pre_hooks(node, values)?;
            }
            if let Some(caps) = task.captures.get(&node.id) {
                for &(input_nr, slot) in caps {
                    if let Some(v) = values.get(input_nr) {
                        task.captured[slot] = v.clone();
                    }
                }
            }
        }
        if !needed {
            shares.drop_all(&inputs);
            return Ok(None);
        }
    }
    if task.scalar_mode {
        let outputs = crate::scalar_backward::try_run(task, shares, node, &inputs)?;
        // The node's buffer lets go of its gradients (PyTorch's
        // call_function drops its inputs before the outputs are routed);
        // the tensor path takes numbers as tensors of their own.
        shares.drop_all(&inputs);
        if outputs.is_some() {
            return Ok(outputs);
        }
    }
    let outputs = call_node(task, node, to_tensors(inputs))?;
    Ok(Some(
        outputs.into_iter().map(|g| g.map(Grad::Tensor)).collect(),
    ))
}

/// The error of a user hook (`handle`, of `kind`) that raised `e`.
fn hook_error(
    e: Error,
    (handle, kind): (HandleId, HookKind),
    what: &str,
    target: &str,
    name: &str,
) -> Error {
    let quoted = if name.is_empty() {
        String::new()
    } else {
        format!(" '{name}'")
    };
    let message = format!(
        "{what}{quoted} on {target} raised an error: {}",
        e.message()
    );
    // A multi-grad hook runs as a tensor hook under its own handle and kind.
    let kind = e
        .failed_hook()
        .filter(|h| h.handle == handle)
        .map_or(kind, |h| h.kind);
    Error::in_hook(message, handle, kind, name.to_owned())
}

fn check_hook_value(name: &str, before: &Option<Tensor>, after: &Tensor) -> Result<()> {
    if let Some(b) = before {
        if b.shape() != after.shape() {
            return Err(Error::runtime(format!(
                "hook '{}' has changed the size of value",
                if name.is_empty() { "hook" } else { name }
            )));
        }
    }
    Ok(())
}

fn snapshot(values: &[Option<Tensor>]) -> Vec<Option<Array>> {
    trace::copy_values_list(values)
}

/// Runs tensor hooks of every input of `node`, then retain-grad (PyTorch 2)
/// — or both interleaved in registration order (PyTorch 1).
fn call_tensor_pre_hooks(
    node: &NodeRef,
    mut values: Vec<Option<Tensor>>,
) -> Result<Vec<Option<Tensor>>> {
    // The lists there are now (a hook may add one: it runs next time).
    let count = node.tensor_hook_count();
    if count == 0 {
        return Ok(values);
    }
    let interleave = context::semantics() == Semantics::PyTorch1;
    // User hooks (PyTorch 1: retain-grad too, where it was registered). The
    // lists are kept for the retain-grad pass (no allocation for one).
    let mut lists: FirstInline<(usize, TensorId, Rc<TensorHookList>)> = FirstInline::default();
    for i in 0..count {
        let Some((nr, owner, list)) = node.tensor_hook_list(i) else {
            continue;
        };
        for (handle, entry) in list.run_snapshot() {
            match entry {
                TensorHookEntry::User(hook) => {
                    run_tensor_hook(node, &mut values, (nr, owner, handle), &*hook)?
                }
                TensorHookEntry::RetainGrad(weak) if interleave => {
                    run_retain_grad(&values, (nr, owner, handle), &weak)?
                }
                TensorHookEntry::RetainGrad(_) => {}
            }
        }
        lists.push((nr, owner, list));
    }
    if interleave {
        return Ok(values);
    }
    // PyTorch 2: retain-grad after every tensor hook, from a fresh snapshot
    // (a hook may have called retain_grad()); looked for in place first,
    // as most lists have none.
    for (nr, owner, list) in lists {
        if !list.any(|e| matches!(e, TensorHookEntry::RetainGrad(_))) {
            continue;
        }
        for (handle, entry) in list.run_snapshot() {
            if let TensorHookEntry::RetainGrad(weak) = entry {
                run_retain_grad(&values, (nr, owner, handle), &weak)?;
            }
        }
    }
    Ok(values)
}

/// Which gradient a tensor hook list hooks: its input number, the tensor
/// it was registered on, and the entry's handle.
type HookSite = (usize, TensorId, HandleId);

/// One user tensor hook on `values[nr]`: its result (when it returns one)
/// replaces the gradient.
fn run_tensor_hook(
    node: &NodeRef,
    values: &mut [Option<Tensor>],
    (nr, owner, handle): HookSite,
    hook: &dyn TensorHook,
) -> Result<()> {
    let Some(current) = values.get(nr).cloned().flatten() else {
        return Ok(());
    };
    // Copied before the call: a hook may change its argument in place.
    let before = trace::is_recording().then(|| crate::error::snapshot(current.to_array()));
    let result = hook.call(&current).map_err(|e| {
        let site = (handle, HookKind::Tensor);
        hook_error(
            e,
            site,
            "tensor hook",
            &tensor_label(owner, node),
            &hook.name(),
        )
    })?;
    let after = match result {
        Some(new) => {
            // The name only for the error: a JS hook's name is a string
            // conversion per call otherwise.
            if !new.same_shape(&current) {
                check_hook_value(&hook.name(), &Some(current), &new)?;
            }
            new
        }
        None => current,
    };
    trace::record(|| Event::Hook {
        kind: HookKind::Tensor,
        handle,
        name: hook.name(),
        target: HookTarget::Tensor(owner, tensor_name(owner, node)),
        before: HookValue::One(before.flatten()),
        after: HookValue::One(crate::error::snapshot(after.to_array())),
    });
    if let Some(slot) = values.get_mut(nr) {
        *slot = Some(after);
    }
    Ok(())
}

/// The retain-grad entry of a tensor: its `.grad` from `values[nr]`.
fn run_retain_grad(
    values: &[Option<Tensor>],
    (nr, owner, handle): HookSite,
    weak: &Weak<TensorImpl>,
) -> Result<()> {
    let Some(current) = values.get(nr).and_then(Option::as_ref) else {
        return Ok(());
    };
    if let Some(t) = weak.upgrade().map(Tensor) {
        retain(&t, current)?;
        trace::record(|| Event::Hook {
            kind: HookKind::RetainGrad,
            handle,
            name: "retain_grad".into(),
            target: HookTarget::Tensor(owner, t.name()),
            before: HookValue::One(crate::error::snapshot(current.to_array())),
            after: HookValue::One(crate::error::snapshot(current.to_array())),
        });
    }
    Ok(())
}

fn tensor_of(id: TensorId, node: &NodeRef) -> Option<Tensor> {
    node.output_tensors()
        .into_iter()
        .chain(node.variable())
        .find(|t| t.id() == id)
}

fn tensor_label(id: TensorId, node: &NodeRef) -> String {
    tensor_of(id, node)
        .map(|t| t.label())
        .unwrap_or_else(|| format!("tensor #{}", id.0))
}

/// The name a tensor hook's trace event carries.
fn tensor_name(id: TensorId, node: &NodeRef) -> Option<String> {
    tensor_of(id, node).and_then(|t| t.name())
}

fn record_error(e: &Error, node: &NodeRef) {
    trace::record_error(e, Some(node.id));
}

/// The retain-grad hook: a contiguous copy of the first gradient, then
/// `grad + new` (new tensors, differentiable under `create_graph`).
fn retain(t: &Tensor, grad: &Tensor) -> Result<()> {
    let new = match t.grad_raw() {
        None => crate::ops::shape_ops::clone_with(grad, false)?,
        Some(old) => old.add(grad)?,
    };
    t.meta_mut()?.grad = Some(new);
    Ok(())
}

/// Validates a hook's replacement list (PyTorch's `check_result`).
fn check_hook_list(name: &str, before: &[Option<Tensor>], after: &[Option<Tensor>]) -> Result<()> {
    if before.len() != after.len() {
        return Err(Error::runtime(format!(
            "hook '{}' has returned an incorrect number of values (got {}, but expected {})",
            if name.is_empty() { "hook" } else { name },
            after.len(),
            before.len()
        )));
    }
    for (b, a) in before.iter().zip(after) {
        if let Some(a) = a {
            check_hook_value(name, b, a)?;
        }
    }
    Ok(())
}

/// One backward step of `node`, in PyTorch's order (see module docs).
fn call_node(
    task: &mut GraphTask,
    node: &NodeRef,
    inputs: Vec<Option<Tensor>>,
) -> Result<Vec<Option<Tensor>>> {
    let mut inputs = call_tensor_pre_hooks(node, inputs)?;
    // Only built when a hook fails (a format! per node was 1% of backward).
    let target = || format!("node {} (#{})", node.name, node.id.0);

    for (handle, hook) in node.pre_hooks.run_snapshot() {
        // Copied before the call: a hook may change its arguments in place.
        let before = trace::is_recording().then(|| snapshot(&inputs));
        let result = hook.call(&inputs).map_err(|e| {
            hook_error(
                e,
                (handle, hook.kind()),
                "pre-hook",
                &target(),
                &hook.name(),
            )
        })?;
        if let Some(new) = result {
            check_hook_list(&hook.name(), &inputs, &new)?;
            inputs = new;
        }
        trace::record(|| Event::Hook {
            kind: hook.kind(),
            handle,
            name: hook.name(),
            target: HookTarget::Node(node.id),
            before: HookValue::Many(before.unwrap_or_default()),
            after: HookValue::Many(snapshot(&inputs)),
        });
    }

    let mut outputs = match &node.kind {
        NodeKind::AccumulateGrad { variable } => {
            // Its `node` event first: writing `.grad` and the
            // post-accumulate-grad hooks are what this node's apply does
            // (PyTorch: accumulate_grad.h), so they follow it.
            record_node(node, &inputs, &[]);
            accumulate(variable, inputs.first().cloned().flatten())?;
            Vec::new()
        }
        NodeKind::Op { .. } => {
            // Inline for one or two edges (no allocation per node).
            let needs: Small<bool> = Small::map_slice(&node.next, |e| {
                e.as_ref().is_some_and(|e| task.should_execute(e.node.id))
            });
            let raw = if inputs.iter().all(|g| g.is_none()) {
                vec![None; node.next.len()]
            } else {
                node.apply_op(&inputs, &needs)?
            };
            if !task.keep_graph {
                node.release_variables();
            }
            let outputs = validate_outputs(node, raw, &needs)?;
            // The node computed: its event now, before its post-hooks run
            // (PyTorch: engine.cpp call_function), carrying what it returned;
            // a post-hook's change is that hook's own before → after.
            record_node(node, &inputs, &outputs);
            outputs
        }
    };

    // Post-hooks get (grad_inputs, grad_outputs); on AccumulateGrad ([], [grad]).
    let hook_outputs_ref: &[Option<Tensor>] = &inputs;
    if !task.keep_graph && node.post_hooks.get().is_some_and(|l| !l.is_empty()) {
        task.ran_with_post_hooks.push(node.clone());
    }
    for (handle, hook) in node.post_hooks.run_snapshot() {
        let own = hook.records_itself();
        // Copied before the call: a hook may change its arguments in place.
        let before = (!own && trace::is_recording()).then(|| snapshot(&outputs));
        let result = hook.call(&outputs, hook_outputs_ref).map_err(|e| {
            if own {
                e
            } else {
                hook_error(e, (handle, hook.kind()), "hook", &target(), &hook.name())
            }
        })?;
        if let Some(new) = result {
            check_hook_list(&hook.name(), &outputs, &new)?;
            outputs = new;
        }
        if own {
            continue;
        }
        trace::record(|| Event::Hook {
            kind: hook.kind(),
            handle,
            name: hook.name(),
            target: HookTarget::Node(node.id),
            before: HookValue::Many(before.unwrap_or_default()),
            after: HookValue::Many(snapshot(&outputs)),
        });
    }

    Ok(outputs)
}

/// The `node` event: the gradients a node received and the ones it computed.
fn record_node(node: &NodeRef, inputs: &[Option<Tensor>], outputs: &[Option<Tensor>]) {
    trace::record(|| Event::Node {
        node: node.id,
        name: node.name,
        grad_outputs: trace::copy_grads(inputs),
        grad_inputs: trace::copy_grads(outputs),
    });
}

/// PyTorch's `validate_outputs`: right count, and each gradient reduced to
/// (or compatible with) the shape its next node expects.
fn validate_outputs(
    node: &NodeRef,
    mut grads: Vec<Option<Tensor>>,
    needs: &[bool],
) -> Result<Vec<Option<Tensor>>> {
    if grads.len() != node.next.len() {
        return Err(Error::runtime(format!(
            "Function {} returned an invalid number of gradients - expected {}, but got {}",
            node.name,
            node.next.len(),
            grads.len()
        )));
    }
    for (i, slot) in grads.iter_mut().enumerate() {
        let Some(edge) = &node.next[i] else {
            if !node.custom_function.get() {
                *slot = None;
            }
            continue;
        };
        if !needs.get(i).copied().unwrap_or(false) {
            *slot = None;
            continue;
        }
        let Some(g) = slot.as_ref() else { continue };
        let Some(expected) = edge.node.input_shapes.get(edge.input_nr) else {
            return Err(Error::internal(format!(
                "{} has no input shape for input {} (edge from {})",
                edge.node.name, edge.input_nr, node.name
            )));
        };
        let expected: &[usize] = expected.as_slice();
        // Compared in place (no Vec per gradient); copied only on a mismatch.
        let same = g.data().map(|d| d.shape() == expected).unwrap_or(false);
        if !same {
            let got = g.shape();
            let expected = expected.to_vec();
            if !is_expandable_to(&expected, &got) {
                return Err(Error::runtime(format!(
                    "Function {} returned an invalid gradient at index {i} - got {} but expected shape compatible with {}",
                    node.name,
                    fmt_shape(&got),
                    fmt_shape(&expected)
                )));
            }
            *slot = Some(crate::ops::reduce::sum_to(g, &expected)?);
        }
    }
    Ok(grads)
}

/// AccumulateGrad: `.grad = grad` (a copy when the gradient is shared) or
/// `.grad += grad` in place, then post-accumulate-grad hooks.
#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub(crate) fn accumulate(variable: &Tensor, grad: Option<Tensor>) -> Result<()> {
    let Some(grad) = grad else { return Ok(()) };
    if !variable.requires_grad() {
        return Ok(());
    }
    if context::is_grad_enabled() {
        // create_graph: `.grad` becomes a differentiable copy laid out like
        // the variable (`clone_obey_contract`, CopyBackwards), later
        // `.grad + new` — never an in-place update (accumulate_grad.h).
        let new = match variable.grad_raw() {
            None => crate::ops::shape_ops::copy_backwards(&grad, &variable.layout())?,
            Some(existing) => existing.add(&grad)?,
        };
        variable.meta_mut()?.grad = Some(new);
        return after_accumulate(variable);
    }
    match variable.grad_raw() {
        None => {
            // PyTorch (`accumulate_grad.h`): when no one else holds the
            // incoming gradient and it obeys the layout contract (the leaf's
            // strides, `utils::obeys_layout_contract`), `.grad` becomes
            // `new_grad.detach()` — an alias sharing its storage, so a
            // post-accumulate-grad hook's in-place change shows in the node's
            // post hooks. Else a copy laid out like the leaf
            // (`clone_obey_contract`). Expected owners here: `call_node`'s
            // input list and this `grad`. JS handles made inside a hook are
            // not counted (JS cannot tell whether the hook kept them).
            let layout = variable.layout();
            let obeys = crate::layout::obeys_layout_contract(&layout.0, &grad.strides(), &layout.1);
            // A view too (`view::alias`: `.grad` stays a view of its base).
            let steal = grad.owner_count() <= 2 && obeys;
            let stored = if steal {
                crate::view::alias(&grad)?
            } else {
                let copy = Tensor::from_array(grad.to_array()?);
                copy.lay_out_as_grad_copy(&layout)?;
                copy
            };
            variable.meta_mut()?.grad = Some(stored);
        }
        Some(existing) if std::rc::Rc::strong_count(existing.storage()) > 1 => {
            // PyTorch adds in place (`variable_grad += new_grad`). Here the
            // storage is shared with another live tensor: a stolen gradient
            // that a JS hook may have stored (JS cannot tell, see above), or a
            // view of `.grad`. Adding in place would silently change a value
            // the user kept, so `.grad` becomes the sum instead (documented in
            // the README: a kept view of `.grad` is then not updated).
            let sum =
                crate::ops::arith::broadcast_zip(&*existing.data()?, &*grad.data()?, |a, b| a + b)?;
            let stored = Tensor::from_array(sum);
            let (shape, var_strides) = variable.layout();
            if crate::layout::is_non_overlapping_and_dense(&shape, &var_strides) {
                stored.set_strides(var_strides)?;
            }
            variable.meta_mut()?.grad = Some(stored);
        }
        Some(existing) => {
            let sum =
                crate::ops::arith::broadcast_zip(&*existing.data()?, &*grad.data()?, |a, b| a + b)?;
            {
                let mut d = existing
                    .storage()
                    .data
                    .try_borrow_mut()
                    .map_err(|_| Error::internal("grad is busy"))?;
                *d = sum.into();
            }
            existing.storage().bump_version();
            crate::view::sync_if_view(&existing)?;
        }
    }
    after_accumulate(variable)
}

/// The `accumulate` event, then post-accumulate-grad hooks.
#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub(crate) fn after_accumulate(variable: &Tensor) -> Result<()> {
    if trace::is_recording() {
        // Just accumulated: a missing or unreadable .grad is a fault, never
        // an empty gradient in the trace.
        let grad = variable
            .grad_raw()
            .ok_or_else(|| Error::internal("AccumulateGrad left .grad unset"))?
            .to_array()?;
        trace::record(|| Event::Accumulate {
            tensor: variable.id(),
            grad,
        });
    }
    for (handle, hook) in variable.post_accumulate_hook_entries() {
        // Copied before the call: the hook may change `.grad` in place.
        let before = trace::is_recording()
            .then(|| {
                variable
                    .grad_raw()
                    .and_then(|g| crate::error::snapshot(g.to_array()))
            })
            .flatten();
        let returned_a_value = hook.call(variable).map_err(|e| {
            hook_error(
                e,
                (handle, HookKind::PostAccumulate),
                "post-accumulate-grad hook",
                &variable.label(),
                &hook.name(),
            )
        })?;
        if returned_a_value {
            return Err(Error::runtime(
                "Tensor post accumulate grad hooks should return None.",
            ));
        }
        trace::record(|| Event::Hook {
            kind: HookKind::PostAccumulate,
            handle,
            name: hook.name(),
            target: HookTarget::Tensor(variable.id(), variable.name()),
            before: HookValue::One(before),
            after: HookValue::One(
                variable
                    .grad_raw()
                    .and_then(|g| crate::error::snapshot(g.to_array())),
            ),
        });
    }
    Ok(())
}
