//! A tensor's place in the backward graph: its `.grad` (with PyTorch's
//! non-leaf warning), the edge a gradient enters the graph through, and a
//! leaf's AccumulateGrad node, created on first use and cached weakly.

use std::rc::Rc;

use super::Tensor;
use crate::context;
use crate::error::{fault, fault_default, Error, Result};
use crate::node::{Edge, Node, NodeRef};

impl Tensor {
    /// `.grad` as stored, without PyTorch's non-leaf warning (for `graph()`).
    #[inline]
    pub fn grad_raw(&self) -> Option<Tensor> {
        self.meta()
            .map(|m| m.grad.clone())
            .unwrap_or_else(|_| fault_default("tensor metadata is busy reading .grad"))
    }

    /// `.grad` as user code reads it: warns like PyTorch when a non-leaf that
    /// does not retain grad is read.
    pub fn grad(&self) -> Option<Tensor> {
        if !self.is_leaf() && !self.retains_grad() {
            // A C++ TORCH_WARN under the Python line reading `.grad`.
            context::warn_at_caller(NON_LEAF_GRAD_WARNING);
        }
        self.grad_raw()
    }

    pub fn set_grad(&self, grad: Option<Tensor>) -> Result<()> {
        if let Some(g) = &grad {
            if g.shape() != self.shape() {
                return Err(Error::runtime(format!(
                    "attempting to assign a gradient of size '{}' to a tensor of size '{}'. Please ensure that the gradient and the tensor are the same size",
                    crate::shape::fmt_shape(&g.shape()),
                    crate::shape::fmt_shape(&self.shape())
                )));
            }
            if g.ptr_eq(self) {
                return Err(Error::runtime("can't assign Variable as its own grad"));
            }
        }
        let mut meta = self.meta_mut()?;
        crate::trace::record_grad_set(self, grad.as_ref());
        meta.grad = grad;
        Ok(())
    }

    /// The edge a gradient for this tensor enters the graph through
    /// (PyTorch's `impl::gradient_edge`): its grad_fn, or its leaf's
    /// AccumulateGrad node (created on first use and cached weakly).
    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    #[inline]
    pub fn gradient_edge(&self) -> Option<Edge> {
        // One metadata borrow for the common cases (every op input).
        {
            let Ok(m) = self.meta() else {
                return fault_default("tensor metadata is busy in gradient_edge()");
            };
            if let Some(f) = &m.grad_fn {
                return Some(Edge {
                    node: f.clone(),
                    input_nr: m.output_nr,
                });
            }
            if !m.requires_grad {
                return None;
            }
            if let Some(node) = m.grad_accumulator.upgrade() {
                return Some(Edge { node, input_nr: 0 });
            }
        }
        self.grad_accumulator()
            .map(|node| Edge { node, input_nr: 0 })
    }

    /// The leaf's AccumulateGrad node if one exists (none is created).
    pub(crate) fn existing_grad_accumulator(&self) -> Option<NodeRef> {
        self.meta()
            .map(|m| m.grad_accumulator.upgrade())
            .unwrap_or_else(|_| fault_default("tensor metadata is busy in grad_accumulator()"))
    }

    pub fn grad_accumulator(&self) -> Option<NodeRef> {
        if !self.is_leaf() || !self.requires_grad() {
            return None;
        }
        let cached = self
            .meta()
            .map(|m| m.grad_accumulator.upgrade())
            .unwrap_or_else(|_| fault_default("tensor metadata is busy in grad_accumulator()"));
        if let Some(existing) = cached {
            return Some(existing);
        }
        let node = Node::new_accumulate_grad(self.clone());
        match self.meta_mut() {
            Ok(mut m) => m.grad_accumulator = Rc::downgrade(&node),
            // Two AccumulateGrad nodes for one leaf would split its gradient.
            Err(_) => fault("tensor metadata is busy caching the grad accumulator"),
        }
        Some(node)
    }
}

pub const NON_LEAF_GRAD_WARNING: &str = "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute won't be populated during autograd.backward(). If you indeed want the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See github.com/pytorch/pytorch/pull/30531 for more information.";
