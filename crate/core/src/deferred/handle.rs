//! `Handle`: what the binding keeps per JS handle.

use super::backward::backward;
use super::lazy::Lazy;
use super::op::Op;
use super::record::{record, Arg};
use crate::error::Result;
use crate::ops::Operand;
use crate::tensor::Tensor;

/// What the binding keeps per JS handle: a deferred result or a tensor.
pub enum Handle {
    Lazy(Lazy),
    Tensor(Tensor),
}

/// The other operand of `Handle::op`.
#[derive(Clone, Copy)]
pub enum Other<'a> {
    None,
    Number(f32),
    Handle(&'a Handle),
}

impl Handle {
    /// The tensor (materializing a deferred result).
    pub fn tensor(&self) -> Result<Tensor> {
        match self {
            Handle::Lazy(l) => l.tensor(),
            Handle::Tensor(t) => Ok(t.clone()),
        }
    }

    /// `self op other`: deferred when it can be, else the eager op.
    pub fn op(&self, op: Op, other: Other<'_>) -> Result<Handle> {
        pub(super) fn arg(h: &Handle) -> Arg<'_> {
            match h {
                Handle::Lazy(l) => Arg::Lazy(l),
                Handle::Tensor(t) => Arg::Tensor(t),
            }
        }
        let b = match other {
            Other::None => Arg::Number(0.0),
            Other::Number(v) => Arg::Number(v),
            Other::Handle(h) => arg(h),
        };
        if let Some(l) = record(op, arg(self), b) {
            return Ok(Handle::Lazy(l));
        }
        self.eager(op, other)
    }

    /// `self op other`, always as the eager op (the binding's choice while
    /// a JS hook runs: a handle made there must be a tensor).
    pub fn eager(&self, op: Op, other: Other<'_>) -> Result<Handle> {
        let a = self.tensor()?;
        let b = match other {
            Other::Handle(h) => Operand::Tensor(h.tensor()?),
            Other::Number(v) => Operand::Scalar(v),
            Other::None => Operand::Scalar(0.0),
        };
        op.eager(&a, &b).map(Handle::Tensor)
    }

    /// `item()`.
    pub fn item(&self) -> Result<f32> {
        if let Handle::Lazy(l) = self {
            if let Some(v) = l.deferred_value()? {
                return Ok(v);
            }
        }
        self.tensor()?.item()
    }

    /// `backward()` without arguments, or with `retain_graph` only.
    pub fn backward(&self, retain_graph: bool) -> Result<()> {
        if let Handle::Lazy(l) = self {
            if l.is_deferred() && backward(l, retain_graph)? {
                return Ok(());
            }
        }
        crate::engine::backward(&self.tensor()?, None, retain_graph, None)
    }
}
