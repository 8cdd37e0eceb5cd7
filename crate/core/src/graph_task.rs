//! The backward pass in progress (PyTorch's current `GraphTask`), for hooks
//! that need to know about it: `register_multi_grad_hook` counts how many of
//! its tensors will get a gradient in this pass
//! (`torch._C._will_engine_execute_node`) and keeps its state per pass
//! (`torch._C._current_graph_task_id`). Also the engine's own per-pass
//! state (`GraphTask`) and the walk that counts each node's dependencies.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap as StdHashMap, HashSet as StdHashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::rc::Rc;

use crate::ids::NodeId;
use crate::node::{Edge, NodeRef};
use crate::tensor::Tensor;

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
}
crate::thread_cell!(
    static WATCHERS: usize = 0;
);
crate::thread_cell!(
    /// `TASKS`' length, read by every deferred op (deferred.rs).
    static RUNNING: usize = 0;
);

/// Whether a backward pass is running (hooks and formulas run inside one).
#[inline]
pub(crate) fn running() -> bool {
    RUNNING.with(|r| r.get() > 0)
}

/// The one answer to "can anything but the executor observe a gradient in
/// flight during this pass?": when nothing can, a 0-d node may compute on
/// numbers (the engine's `scalar_mode`, a deferred root's backward over
/// rows) and give exactly what the tensor path gives. The observers: hooks
/// on the pass's graph (`graph_hooks`; the deferred walk finds a leaf's as
/// it goes), `create_graph` (the gradients get a graph), tensors captured by
/// `autograd.grad` (`captures`), a trace recording, saved-tensor pack hooks
/// (their unpack runs in the pass), a multi-grad hook, an outer pass (this
/// one runs inside its hook) and a fault waiting to be raised.
#[inline]
pub(crate) fn nothing_observes(graph_hooks: bool, create_graph: bool, captures: bool) -> bool {
    !graph_hooks
        && !create_graph
        && !captures
        && !crate::trace::is_recording()
        && !crate::node::packs_alive()
        && !watched()
        && !running()
        && !crate::error::fault_pending()
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
    pub(crate) fn enter(will_execute: HashSet<NodeId>) -> Self {
        let id = NEXT_ID.with(|n| {
            let id = n.get() + 1;
            n.set(id);
            id
        });
        TASKS.with(|t| match t.try_borrow_mut() {
            Ok(mut t) => {
                t.push(Rc::new(TaskInfo { id, will_execute }));
                RUNNING.with(|r| r.set(t.len()));
            }
            Err(_) => crate::error::fault("the backward task stack is busy"),
        });
        TaskGuard(())
    }
}

impl Drop for TaskGuard {
    fn drop(&mut self) {
        TASKS.with(|t| match t.try_borrow_mut() {
            Ok(mut t) => {
                drop(t.pop());
                RUNNING.with(|r| r.set(t.len()));
            }
            Err(_) => crate::error::fault("the backward task stack is busy"),
        });
    }
}

/// Node ids are small sequential integers: a multiplicative hash is enough
/// and much cheaper than SipHash (6% of backward time before).
#[derive(Default)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(*b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.0 = u64::from(n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

pub(crate) type HashMap<K, V> = StdHashMap<K, V, BuildHasherDefault<IdHasher>>;
pub(crate) type HashSet<K> = StdHashSet<K, BuildHasherDefault<IdHasher>>;

/// The engine's state for one backward pass (PyTorch's `GraphTask`).
pub(crate) struct GraphTask {
    pub keep_graph: bool,
    /// Empty for a plain `backward()`; else which nodes must run.
    pub needed: HashSet<NodeId>,
    /// Nodes whose input `input_nr` is captured into result slot `slot`.
    pub captures: HashMap<NodeId, Vec<(usize, usize)>>,
    pub captured: Vec<Option<Tensor>>,
    pub filtered: bool,
    /// Nodes that ran and have post hooks: their hook state is released when
    /// the backward ends without `keep_graph` (see `NodePostHook::release`).
    pub ran_with_post_hooks: Vec<NodeRef>,
    /// No user code can run during this pass (no hooks in the graph, no
    /// unpack hooks, no trace, no create_graph, nothing captured): 0-d nodes
    /// then compute on plain numbers (see `scalar_backward`).
    pub scalar_mode: bool,
}

impl GraphTask {
    /// A pass that runs every node it reaches, with nothing captured.
    pub fn new(keep_graph: bool) -> GraphTask {
        GraphTask {
            keep_graph,
            needed: HashSet::default(),
            captures: HashMap::default(),
            captured: Vec::new(),
            filtered: false,
            ran_with_post_hooks: Vec::new(),
            scalar_mode: false,
        }
    }

    #[inline(always)]
    pub fn should_execute(&self, id: NodeId) -> bool {
        !self.filtered || self.needed.contains(&id) || self.captures.contains_key(&id)
    }
}

/// Visits every edge reachable from the roots once per (parent, edge):
/// `f(None, root_edge)` for the roots, `f(Some(parent), edge)` below.
/// Iterative, so long chains cannot overflow wasm's stack.
pub(crate) fn for_each_edge(
    roots: &[(Edge, Option<Tensor>)],
    mut f: impl FnMut(Option<&NodeRef>, &Edge),
) {
    let mut seen: HashSet<NodeId> = HashSet::default();
    let mut stack: Vec<NodeRef> = Vec::new();
    for (edge, _) in roots {
        f(None, edge);
        if seen.insert(edge.node.id) {
            stack.push(edge.node.clone());
        }
    }
    while let Some(node) = stack.pop() {
        for edge in node.next.iter().flatten() {
            f(Some(&node), edge);
            if seen.insert(edge.node.id) {
                stack.push(edge.node.clone());
            }
        }
    }
}

/// The nodes one backward pass reaches, as a dense table: node `i`, its
/// count of incoming edges, and (in `engine::execute`) its input buffer are
/// entry `i` of plain vectors. Each node is stamped with `(pass, i)`, so the
/// engine finds a node's entry without hashing its id.
pub(crate) struct NodeTable {
    pass: u64,
    pub nodes: Vec<NodeRef>,
    /// Incoming edges not yet delivered, per node.
    pub deps: Vec<u32>,
    /// Whether any of the nodes has a hook.
    pub any_hooks: bool,
    /// By id, built only when a nested pass (a hook calling `backward()`)
    /// restamped some of this pass's nodes.
    restamped: Option<HashMap<NodeId, usize>>,
}

crate::thread_cell!(
    static NEXT_PASS: u64 = 0;
);

/// A new pass number (marks the nodes a walk reached: `Node::engine_slot`).
#[inline]
pub(crate) fn next_pass() -> u64 {
    NEXT_PASS.with(|n| {
        n.set(n.get() + 1);
        n.get()
    })
}

impl NodeTable {
    /// Walks everything reachable from the roots (iteratively: long chains
    /// cannot overflow wasm's stack), counting each node's incoming edges.
    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    pub fn build(roots: &[(Edge, Option<Tensor>)]) -> NodeTable {
        let pass = next_pass();
        let mut table = NodeTable {
            pass,
            nodes: Vec::new(),
            deps: Vec::new(),
            any_hooks: false,
            restamped: None,
        };
        let mut stack: Vec<usize> = Vec::new();
        for (edge, _) in roots {
            let i = table.visit(&edge.node, &mut stack);
            table.deps[i] += 1;
        }
        while let Some(i) = stack.pop() {
            let node = table.nodes[i].clone();
            for edge in node.next.iter() {
                let Some(edge) = edge else { continue };
                let j = table.visit(&edge.node, &mut stack);
                table.deps[j] += 1;
            }
        }
        table
    }

    /// The node's entry, adding it (and stacking it for the walk) if new.
    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    #[inline]
    fn visit(&mut self, node: &NodeRef, stack: &mut Vec<usize>) -> usize {
        let (pass, i) = node.engine_slot.get();
        if pass == self.pass {
            return i as usize;
        }
        let i = self.nodes.len();
        node.engine_slot.set((self.pass, i as u32));
        self.any_hooks = self.any_hooks || node.has_hooks();
        self.nodes.push(node.clone());
        self.deps.push(0);
        stack.push(i);
        i
    }

    /// The entry of a node this pass reached (`None`: not reached).
    #[inline(always)]
    pub fn index(&mut self, node: &NodeRef) -> Option<usize> {
        let (pass, i) = node.engine_slot.get();
        if pass == self.pass {
            return Some(i as usize);
        }
        self.index_restamped(node)
    }

    #[cold]
    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    fn index_restamped(&mut self, node: &NodeRef) -> Option<usize> {
        let nodes = &self.nodes;
        self.restamped
            .get_or_insert_with(|| nodes.iter().enumerate().map(|(i, n)| (n.id, i)).collect())
            .get(&node.id)
            .copied()
    }
}

/// PyTorch's `init_to_execute`: a node is needed when it leads to an input.
/// With `accumulate_grad` the input nodes run (AccumulateGrad writes .grad);
/// otherwise their incoming gradient is captured.
pub(crate) fn init_to_execute(
    task: &mut GraphTask,
    roots: &[(Edge, Option<Tensor>)],
    inputs: &[Edge],
    accumulate_grad: bool,
) {
    let targets: HashSet<NodeId> = inputs.iter().map(|e| e.node.id).collect();
    for (slot, edge) in inputs.iter().enumerate() {
        if accumulate_grad {
            task.needed.insert(edge.node.id);
        } else {
            task.captures
                .entry(edge.node.id)
                .or_default()
                .push((edge.input_nr, slot));
        }
    }
    // needed(n) ⇔ n reaches an input node: record each node's parents, then
    // walk upward from the inputs.
    let mut parents: HashMap<NodeId, Vec<NodeRef>> = HashMap::default();
    for_each_edge(roots, |parent, edge| {
        if let Some(p) = parent {
            parents.entry(edge.node.id).or_default().push(p.clone());
        }
    });
    let mut up: Vec<NodeId> = targets.iter().copied().collect();
    let mut visited: HashSet<NodeId> = HashSet::default();
    while let Some(id) = up.pop() {
        if !visited.insert(id) {
            continue;
        }
        for p in parents.get(&id).map(|v| v.as_slice()).unwrap_or(&[]) {
            task.needed.insert(p.id);
            up.push(p.id);
        }
    }
}
