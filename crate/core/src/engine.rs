//! The backward engine, after PyTorch's `engine.cpp`: count dependencies from
//! the roots, run nodes from a ready queue ordered by `sequence_nr`, buffer
//! and sum incoming gradients per node, and run every node through one
//! `call_node` (call_node.rs) that fixes the hook order:
//!
//! tensor hooks → retain-grad (PyTorch 2: after all tensor hooks) → node
//! pre-hooks → the node → output validation → node post-hooks.
//! Each step's trace event is recorded as it happens (the `node` event
//! right after the node computed), so the trace order is this order.
//!
//! No engine state lives in a `RefCell` while a hook runs: the graph task is
//! a local value, so hooks may re-enter (`g.mul(2)`, even `backward()`).

use crate::context::{self, GradModeGuard};
use crate::error::{Error, Result};
use crate::graph_source::{GraphSource, LiveGraph, Output, Target};
use crate::graph_task::{init_to_execute, GraphTask, NodeTable};
use crate::ids::NodeId;
use crate::input_buffer::{add_grad, Grad, Grads, InputBuffer, Num, Shares};
use crate::node::Edge;
use crate::ready_queue::Ready;
use crate::shape::fmt_shape;
use crate::small::Small;
use crate::tensor::{Array, Tensor};

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
    let mut task = GraphTask::new(keep_graph);
    task.captured = vec![None; input_edges.len()];
    task.filtered = !input_edges.is_empty();
    if task.filtered {
        init_to_execute(&mut task, &roots, &input_edges, accumulate_grad);
    }
    // Nothing but the engine can look at gradients in flight: 0-d nodes may
    // compute on numbers (see `scalar_backward`).
    task.scalar_mode = crate::graph_task::nothing_observes(
        table.any_hooks,
        create_graph,
        !task.captures.is_empty(),
    );

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
    // A failing node records its `error` event (with the node) in its step.
    let mut graph = LiveGraph(table);
    let mut root_targets: Vec<Output> = Vec::with_capacity(roots.len());
    for (edge, grad) in &roots {
        let entry = graph.0.index(&edge.node).ok_or_else(|| {
            Error::runtime(format!("dependency not found for {}", edge.node.name))
        })?;
        let target = Target::new(entry, edge.input_nr);
        root_targets.push((Some(target), grad.clone().map(Grad::Tensor)));
    }
    // `roots` stays held for the whole pass (PyTorch's root list holds its
    // gradients: AccumulateGrad copies rather than steals them).
    let result = execute(&mut task, &mut graph, root_targets);
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

/// The one scheduler (PyTorch's `engine.cpp` `execute` / `evaluate_function`)
/// over any `GraphSource`: the roots' gradients are routed as the outputs of
/// PyTorch's GraphRoot; then the ready entry with the highest sequence
/// number runs on its summed inputs and its outputs are routed, until no
/// entry is ready. Generic (not `dyn`): a deferred pass is ~10^4 small steps.
#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub(crate) fn execute<S: GraphSource>(
    task: &mut GraphTask,
    source: &mut S,
    roots: impl IntoIterator<Item = (Option<Target>, Option<Grad>)>,
) -> Result<()> {
    let mut deps = source.take_deps();
    // Input buffers by entry (PyTorch's `not_ready` map), and the ready
    // queue of entries.
    let mut buffers: Vec<Option<S::Buffer>> = Vec::new();
    buffers.resize_with(deps.len(), || None);
    let mut queue = source.queue();
    // Holders of the gradients that scalar mode keeps as numbers.
    let mut shares = Shares::default();
    let mut route = Route {
        deps: &mut deps,
        buffers: &mut buffers,
        queue: &mut queue,
        shares: &mut shares,
    };
    route.outputs(task, source, roots)?;

    while let Some(i) = queue.pop() {
        // A queue that knows its order in advance is checked here.
        if deps.get(i) != Some(&0) {
            return Err(Error::internal("a node ran before its consumers"));
        }
        let inputs = buffers
            .get_mut(i)
            .and_then(Option::take)
            .ok_or_else(|| Error::internal("a ready node has no input buffer"))?;
        let out = source.step(task, &mut shares, i, inputs)?;
        let mut route = Route {
            deps: &mut deps,
            buffers: &mut buffers,
            queue: &mut queue,
            shares: &mut shares,
        };
        route.outputs(task, source, out)?;
    }
    Ok(())
}

/// The loop's state that routing changes.
struct Route<'a, Q, B> {
    deps: &'a mut [u32],
    buffers: &'a mut [Option<B>],
    queue: &'a mut Q,
    shares: &'a mut Shares,
}

impl<Q: Ready, B: InputBuffer> Route<'_, Q, B> {
    /// Hands each output to its entry's buffer; an entry whose
    /// dependencies all arrived becomes ready (PyTorch's
    /// `evaluate_function` tail).
    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    #[inline]
    fn outputs<S: GraphSource<Queue = Q, Buffer = B>>(
        &mut self,
        task: &GraphTask,
        source: &S,
        out: impl IntoIterator<Item = Output>,
    ) -> Result<()> {
        // Gradients not stored in a slot (added into one, or with nowhere
        // to go): let go of once every output is routed, as PyTorch's
        // `outputs` holds them (see `add_grad`).
        // (Numbers apart: they need no drop, only a count, on the hot path.)
        let mut held: Grads = Small::Zero;
        let mut held_numbers: Small<Num> = Small::Zero;
        let mut hold = |g: Grad| match g {
            Grad::Value(n) => held_numbers.push(n),
            g => held.push(Some(g)),
        };
        for (target, grad) in out {
            let Some(Target { entry, input_nr }) = target else {
                if let Some(g) = grad {
                    hold(g);
                }
                continue;
            };
            let (j, input_nr) = (entry as usize, input_nr as usize);
            let not_found =
                || Error::runtime(format!("dependency not found for {}", source.name(j)));
            let (Some(deps), Some(buffer)) = (self.deps.get_mut(j), self.buffers.get_mut(j)) else {
                return Err(not_found());
            };
            // All of the entry's dependencies already arrived: it is not waiting.
            if *deps == 0 {
                return Err(not_found());
            }
            *deps -= 1;
            let ready = *deps == 0;
            if buffer.is_none() {
                if !source.wanted(task, j) {
                    if let Some(g) = grad {
                        hold(g);
                    }
                    continue;
                }
                *buffer = Some(B::with_inputs(source.num_inputs(j)));
            }
            if let (Some(slots), Some(grad)) = (buffer, grad) {
                match (slots.slot(input_nr), &grad) {
                    // `add_grad`'s two common cases inline (a call per edge
                    // of a 10^4-row pass): the first gradient is stored as
                    // is; two numbers are summed.
                    (Some(slot @ None), _) => *slot = Some(grad),
                    (Some(Some(Grad::Value(old))), Grad::Value(n)) => {
                        *old = self.shares.sum(*old, n.value);
                        hold(grad);
                    }
                    _ => {
                        let name = source.name(j);
                        if let Some(added) = add_grad(name, slots, input_nr, grad, self.shares)? {
                            hold(added);
                        }
                    }
                }
            }
            if ready {
                self.queue.push(source.sequence_nr(j), j);
            }
        }
        for n in held_numbers.iter() {
            self.shares.leave(n);
        }
        self.shares.drop_all(&held);
        Ok(())
    }
}
