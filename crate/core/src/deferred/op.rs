//! The deferred ops: what each computes, which gradients it hands on
//! unchanged, its number formula and its eager op.

use crate::error::Result;
use crate::ops::{arith, unary, Operand};
use crate::tensor::Tensor;

/// The deferred ops.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Tanh,
}

impl Op {
    /// The eager node's edges (a number operand has a `None` edge).
    pub(super) fn arity(self) -> usize {
        if self == Op::Tanh {
            1
        } else {
            2
        }
    }

    /// The eager op (`b` is unused by tanh).
    pub(super) fn eager(self, a: &Tensor, b: &Operand) -> Result<Tensor> {
        match self {
            Op::Add => arith::add(a, b),
            Op::Sub => arith::sub(a, b),
            Op::Mul => arith::mul(a, b),
            Op::Tanh => unary::tanh(a),
        }
    }

    /// `scalar_backward::passes_through` of the op's node, matched on the
    /// op instead of its node's name (no string compare per backward step;
    /// a core test checks the two agree).
    #[inline]
    pub(crate) fn passes(self) -> u8 {
        match self {
            Op::Add => 0b11,
            Op::Sub => 0b01,
            Op::Mul | Op::Tanh => 0,
        }
    }

    /// The op's formula on numbers (the eager node's, shared with it).
    pub(super) fn rule(self, number: bool) -> fn(f32, &[f32], f32) -> [f32; 2] {
        match self {
            Op::Add => arith::add_rule,
            Op::Sub => arith::sub_rule,
            Op::Mul if number => arith::mul_number_rule,
            Op::Mul => arith::mul_rule,
            Op::Tanh => unary::tanh_rule,
        }
    }
}
