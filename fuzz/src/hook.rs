//! The harness's hooks: one `Hook` value plays every kind of hook (tensor,
//! node pre/post, post-accumulate-grad), its byte choosing what it does —
//! scale, pass, replace with a wrong shape, raise, re-enter backward,
//! inspect the graph mid-pass.

use std::cell::Cell;
use std::rc::Rc;

use hookgrad_core::context::GradModeGuard;
use hookgrad_core::error::{Error, Result};
use hookgrad_core::hooks::{NodePostHook, NodePreHook, PostAccumulateGradHook, TensorHook};
use hookgrad_core::{graph, trace, Tensor, TensorOptions};

use crate::check_tensor;

pub(crate) struct Hook {
    pub(crate) kind: u8,
    c: f32,
    calls: Rc<Cell<u32>>,
}

impl Hook {
    pub(crate) fn new(kind: u8, c: f32) -> Rc<Self> {
        Rc::new(Hook {
            kind,
            c,
            calls: Rc::new(Cell::new(0)),
        })
    }
    /// Re-entrant backward on a graph built inside the hook (grad mode on).
    fn reenter(&self) -> Result<()> {
        let _g = GradModeGuard::set(true);
        let a = Tensor::from_vec(
            &[2],
            vec![1.0, 2.0],
            &TensorOptions {
                requires_grad: true,
                name: None,
            },
        )?;
        a.mul(3.0f32)?.sum()?.backward()?;
        assert_eq!(a.grad().map(|g| g.shape()), Some(vec![2]));
        Ok(())
    }
    fn one(&self, grad: &Tensor) -> Result<Option<Tensor>> {
        self.calls.set(self.calls.get() + 1);
        if self.calls.get() > 64 {
            return Ok(None);
        }
        match self.kind % 8 {
            0 => Ok(Some(grad.mul(self.c)?)),
            1 => Ok(None),
            2 => Ok(Some(grad.clone())),
            3 => Ok(Some(Tensor::from_vec(
                &[7],
                vec![1.0; 7],
                &TensorOptions::default(),
            )?)),
            4 => Err(Error::runtime("fuzz hook error")),
            5 => self.reenter().map(|_| None),
            6 => {
                let (_, events) = trace::trace(|| graph::graph(std::slice::from_ref(grad)));
                let _ = events.len();
                Ok(None)
            }
            _ => {
                let d = grad.detach();
                let _ = d.set_requires_grad(true);
                Ok(Some(d))
            }
        }
    }
    fn many(&self, grads: &[Option<Tensor>]) -> Result<Option<Vec<Option<Tensor>>>> {
        self.calls.set(self.calls.get() + 1);
        match self.kind % 6 {
            0 => Ok(None),
            1 => grads
                .iter()
                .map(|g| g.as_ref().map(|g| g.mul(self.c)).transpose())
                .collect::<Result<Vec<_>>>()
                .map(Some),
            2 => {
                let mut v = grads.to_vec();
                v.push(None);
                Ok(Some(v))
            }
            3 => Ok(Some(vec![None; grads.len()])),
            4 => Err(Error::runtime("fuzz node hook error")),
            _ => self.reenter().map(|_| None),
        }
    }
}

impl TensorHook for Hook {
    fn call(&self, grad: &Tensor) -> Result<Option<Tensor>> {
        check_tensor(grad);
        self.one(grad)
    }
}
impl NodePreHook for Hook {
    fn call(&self, grad_outputs: &[Option<Tensor>]) -> Result<Option<Vec<Option<Tensor>>>> {
        self.many(grad_outputs)
    }
}
impl NodePostHook for Hook {
    fn call(
        &self,
        grad_inputs: &[Option<Tensor>],
        _grad_outputs: &[Option<Tensor>],
    ) -> Result<Option<Vec<Option<Tensor>>>> {
        self.many(grad_inputs)
    }
}
impl PostAccumulateGradHook for Hook {
    fn call(&self, tensor: &Tensor) -> Result<bool> {
        if let Some(g) = tensor.grad() {
            assert_eq!(
                g.shape(),
                tensor.shape(),
                "post-accumulate hook: .grad shape != tensor shape"
            );
        }
        match self.kind % 3 {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(Error::runtime("fuzz post-accumulate error")),
        }
    }
}
