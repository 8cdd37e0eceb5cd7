//! What the engine's one loop (`engine::execute`) runs over. PyTorch's
//! `engine.cpp` has one scheduler; hookgrad has two kinds of graph for it:
//! the live node graph (`LiveGraph`, below) and the deferred rows of a
//! scalar program that never became nodes (`deferred::backward`'s plan).
//! Both are a dense table of entries `0..len`; the loop owns everything
//! that decides *when* an entry runs (dependency counts, input buffers,
//! the ready queue by sequence number, summing gradients that meet), and a
//! source only says what an entry is and computes one step. So the order,
//! the sums and the holders of every gradient (`.grad` and its version)
//! are the same code for both, which is what the differential tests pin.
//!
//! The loop is generic over the source (monomorphised, no `dyn`): the
//! deferred pass runs ~10^4 tiny steps per W1 backward, where a virtual
//! call per step would show.

use crate::call_node::{call_node, call_tensor_pre_hooks};
use crate::error::{Error, Result};
use crate::graph_task::{GraphTask, NodeTable};
use crate::input_buffer::{to_tensors, Grad, Grads, InputBuffer, Shares};
use crate::node::NodeRef;
use crate::ready_queue::{Ready, ReadyQueue};
use crate::small::Small;
use crate::trace;

/// Where a gradient goes: input `input_nr` of entry `entry` of the pass
/// (u32s: an output is moved once per edge of a 10^4-row pass).
#[derive(Clone, Copy)]
pub(crate) struct Target {
    pub entry: u32,
    pub input_nr: u32,
}

impl Target {
    #[inline]
    pub fn new(entry: usize, input_nr: usize) -> Target {
        Target {
            entry: entry as u32,
            input_nr: input_nr as u32,
        }
    }
}

/// One output of a step: where it goes (`None`: no edge) and the gradient
/// (`None`: undefined). A step gives them in the order of its next edges
/// (PyTorch routes them in that order, which decides which buffer sums
/// first).
pub(crate) type Output = (Option<Target>, Option<Grad>);

/// A live node's outputs (inline for one or two: no allocation per node).
pub(crate) type Outputs = Small<Output>;

/// A graph the engine's loop can run.
pub(crate) trait GraphSource {
    /// The ready queue the loop uses for this source.
    type Queue: Ready;
    /// An entry's input buffer.
    type Buffer: InputBuffer;
    /// A step's outputs.
    type Out: IntoIterator<Item = Output>;
    /// A new, empty ready queue for one pass.
    fn queue(&mut self) -> Self::Queue;
    /// Incoming edges per entry (the loop counts them down).
    fn take_deps(&mut self) -> Vec<u32>;
    /// The entry's `sequence_nr` (the ready queue's priority).
    fn sequence_nr(&self, i: usize) -> u64;
    /// How many input slots the entry's buffer has.
    fn num_inputs(&self, i: usize) -> usize;
    /// Whether the entry runs in this pass (`inputs=` filtering).
    fn wanted(&self, task: &GraphTask, i: usize) -> bool;
    /// The entry's name, for the loop's errors.
    fn name(&self, i: usize) -> &'static str;
    /// Runs entry `i` on its summed inputs and gives its outputs (none
    /// when it only captured). The entry lets go of its inputs here
    /// (`shares`), before its outputs are routed, as PyTorch's
    /// `call_function` drops its inputs first.
    fn step(
        &mut self,
        task: &mut GraphTask,
        shares: &mut Shares,
        i: usize,
        inputs: Self::Buffer,
    ) -> Result<Self::Out>;
}

/// The live node graph of one pass: its `NodeTable`.
pub(crate) struct LiveGraph(pub NodeTable);

impl GraphSource for LiveGraph {
    type Queue = ReadyQueue<usize>;
    type Buffer = Grads;
    type Out = Outputs;

    fn queue(&mut self) -> Self::Queue {
        ReadyQueue::default()
    }

    fn take_deps(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.0.deps)
    }

    #[inline]
    fn sequence_nr(&self, i: usize) -> u64 {
        self.0.nodes.get(i).map_or(0, |n| n.sequence_nr)
    }

    #[inline]
    fn num_inputs(&self, i: usize) -> usize {
        self.0.nodes.get(i).map_or(0, |n| n.num_inputs())
    }

    #[inline]
    fn wanted(&self, task: &GraphTask, i: usize) -> bool {
        self.0
            .nodes
            .get(i)
            .is_some_and(|n| task.should_execute(n.id))
    }

    fn name(&self, i: usize) -> &'static str {
        self.0.nodes.get(i).map_or("a node", |n| n.name)
    }

    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    fn step(
        &mut self,
        task: &mut GraphTask,
        shares: &mut Shares,
        i: usize,
        inputs: Grads,
    ) -> Result<Outputs> {
        let node = self
            .0
            .nodes
            .get(i)
            .cloned()
            .ok_or_else(|| Error::internal("a ready node is not in the pass"))?;
        let outputs = evaluate(task, shares, &node, inputs)
            .inspect_err(|e| trace::record_error(e, Some(node.id)))?;
        let Some(outputs) = outputs else {
            return Ok(Small::Zero);
        };
        let mut out = Small::Zero;
        for (edge, grad) in node.next.iter().zip(outputs) {
            let target = match edge {
                None => None,
                Some(e) => Some(Target::new(
                    self.0.index(&e.node).ok_or_else(|| {
                        Error::runtime(format!("dependency not found for {}", e.node.name))
                    })?,
                    e.input_nr,
                )),
            };
            out.push((target, grad));
        }
        Ok(out)
    }
}

/// Runs one ready node, honouring `inputs=` filtering and captures. Returns
/// `None` when the node was only captured from, not executed. The choice
/// between numbers and tensors is made here, per node.
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
