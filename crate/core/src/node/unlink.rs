//! Dropping a node without recursion. Kept apart from node.rs because it is
//! the one place that reasons about `Rc` counts of a whole chain: the naive
//! drop (each `Rc<Node>` dropping the next) recursed once per node.

use std::rc::Rc;

use super::{Edges, Node, NodeRef};

/// Dropping the last handle to a long chain of nodes would recurse once per
/// node (each `Rc<Node>` drops the next) and overflow wasm's 1 MB stack — a
/// trap. The node dropped first unlinks the chain iteratively instead: each
/// node it holds the last reference to gives up its edges before it goes (in
/// place, no copy of the node). The stack is allocated only when there is
/// such a node: a node whose inputs live on (a tensor freed while its graph
/// is still used) allocates nothing.
impl Drop for Node {
    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    fn drop(&mut self) {
        crate::live::node_dropped();
        if self.next.is_empty() {
            return;
        }
        let mut stack: Vec<NodeRef> = Vec::new();
        unlink(&mut self.next, &mut stack);
        while let Some(mut node) = stack.pop() {
            if let Some(owned) = Rc::get_mut(&mut node) {
                unlink(&mut owned.next, &mut stack);
            } else if let Ok(mut owned) = Rc::try_unwrap(node) {
                // The last owner, but weakly referenced: moved out to unlink.
                unlink(&mut owned.next, &mut stack);
                continue;
            } else {
                continue;
            }
            // Its own drop now finds no edges.
            drop(node);
        }
    }
}

/// Takes `next`'s edges: the nodes held by no one else go on `stack` (to be
/// unlinked in turn), the others are only released.
#[cfg_attr(hookgrad_nightly, optimize(speed))]
#[inline]
fn unlink(next: &mut Edges, stack: &mut Vec<NodeRef>) {
    // Not `.flatten()`: that adapter was calls and drop glue per node in the
    // size-optimized wasm.
    for edge in std::mem::take(next) {
        let Some(edge) = edge else { continue };
        if Rc::strong_count(&edge.node) == 1 {
            stack.push(edge.node);
        }
    }
}
