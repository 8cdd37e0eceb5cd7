//! The deferred ops: what each computes, what its eager node saves, which
//! gradients it hands on unchanged, its number formula and its eager op.
//! Every elementwise op of the contract on 0-d tensors is one: a graph's
//! speed must not depend on which of them it contains (issue 31).

use crate::error::Result;
use crate::ops::{arith, pow, unary, Operand};
use crate::tensor::Tensor;

/// The deferred ops. `Pow` is `pow` with a number exponent (a tensor
/// exponent is the eager `PowBackward1`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    Neg,
    Exp,
    Log,
    Sin,
    Cos,
    Tanh,
    Sigmoid,
    Relu,
    Abs,
    Sqrt,
}

/// What the eager node saves, as the number formula reads it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Saves {
    Nothing,
    /// `[other, self]` (PyTorch's order for mul and div by a tensor).
    OtherSelf,
    /// `[exponent, self, result]` (pow's `PowBackward1`, a tensor exponent).
    ExponentSelfResult,
    /// `[self]`.
    Input,
    /// `[result]`.
    Result,
}

impl Op {
    /// Every op, for tests and the fuzzer.
    pub const ALL: [Op; 15] = [
        Op::Add,
        Op::Sub,
        Op::Mul,
        Op::Div,
        Op::Pow,
        Op::Neg,
        Op::Exp,
        Op::Log,
        Op::Sin,
        Op::Cos,
        Op::Tanh,
        Op::Sigmoid,
        Op::Relu,
        Op::Abs,
        Op::Sqrt,
    ];

    /// Takes one tensor (`b` is unused), or a tensor and a number (`Pow`).
    #[inline]
    pub fn is_unary(self) -> bool {
        !matches!(self, Op::Add | Op::Sub | Op::Mul | Op::Div | Op::Pow)
    }

    /// The result on numbers, with the eager kernel's arithmetic
    /// (`zip_operand`, `Data::map` with the same functions).
    #[inline]
    pub(super) fn forward(self, x: f32, y: f32) -> f32 {
        match self {
            // The eager kernel's own functions (see `arith::add_values`).
            Op::Add => arith::add_values(x, y),
            Op::Sub => x - y,
            Op::Mul => arith::mul_values(x, y),
            Op::Div => x / y,
            Op::Pow => x.powf(y),
            Op::Neg => -x,
            Op::Exp => unary::exp_value(x),
            Op::Log => f32::ln(x),
            Op::Sin => f32::sin(x),
            Op::Cos => f32::cos(x),
            Op::Tanh => unary::tanh_value(x),
            Op::Sigmoid => unary::sigmoid_value(x),
            Op::Relu => unary::relu_value(x),
            Op::Abs => f32::abs(x),
            Op::Sqrt => f32::sqrt(x),
        }
    }

    /// The eager op (`b` is unused by a unary op; a number `b` is pow's
    /// exponent).
    pub(super) fn eager(self, a: &Tensor, b: &Operand) -> Result<Tensor> {
        match self {
            Op::Add => arith::add(a, b),
            Op::Sub => arith::sub(a, b),
            Op::Mul => arith::mul(a, b),
            Op::Div => arith::div(a, b),
            Op::Pow => match b {
                Operand::Scalar(e) => arith::pow(a, *e),
                Operand::Tensor(e) => pow::pow_tensor(a, e),
            },
            Op::Neg => arith::neg(a),
            Op::Exp => unary::exp(a),
            Op::Log => unary::log(a),
            Op::Sin => unary::sin(a),
            Op::Cos => unary::cos(a),
            Op::Tanh => unary::tanh(a),
            Op::Sigmoid => unary::sigmoid(a),
            Op::Relu => unary::relu(a),
            Op::Abs => unary::abs(a),
            Op::Sqrt => unary::sqrt(a),
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
            _ => 0,
        }
    }

    /// What the eager node saves that its number formula reads (`number`:
    /// the second operand is a number).
    #[inline]
    pub(super) fn saves(self, number: bool) -> Saves {
        match self {
            Op::Add | Op::Sub | Op::Neg => Saves::Nothing,
            Op::Mul | Op::Div if number => Saves::Nothing,
            Op::Mul | Op::Div => Saves::OtherSelf,
            Op::Pow if !number => Saves::ExponentSelfResult,
            Op::Pow | Op::Log | Op::Sin | Op::Cos | Op::Abs => Saves::Input,
            Op::Exp | Op::Tanh | Op::Sigmoid | Op::Relu | Op::Sqrt => Saves::Result,
        }
    }

    /// The op's formula on numbers (the eager node's, shared with it).
    pub(super) fn rule(self, number: bool) -> fn(f32, &[f32], f32) -> [f32; 2] {
        match self {
            Op::Add => arith::add_rule,
            Op::Sub => arith::sub_rule,
            Op::Mul if number => arith::mul_number_rule,
            Op::Mul => arith::mul_rule,
            Op::Div if number => arith::div_number_rule,
            Op::Div => arith::div_rule,
            Op::Pow if number => arith::pow_rule,
            Op::Pow => pow::pow_tensor_rule,
            Op::Neg => arith::neg_rule,
            Op::Exp => unary::exp_rule,
            Op::Log => unary::log_rule,
            Op::Sin => unary::sin_rule,
            Op::Cos => unary::cos_rule,
            Op::Tanh => unary::tanh_rule,
            Op::Sigmoid => unary::sigmoid_rule,
            Op::Relu => unary::relu_rule,
            Op::Abs => unary::abs_rule,
            Op::Sqrt => unary::sqrt_rule,
        }
    }
}
