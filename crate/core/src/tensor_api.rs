//! Method-style API on `Tensor`, mirroring the JS surface (`a.mul(b)`,
//! `t.backward()`), so tests and the binding read like PyTorch code.

use crate::engine;
use crate::error::Result;
use crate::ops::{arith, inplace, matmul, reduce, shape_ops, unary, Operand};
use crate::tensor::Tensor;

impl Tensor {
    pub fn add(&self, o: impl Into<Operand>) -> Result<Tensor> {
        arith::add(self, &o.into())
    }
    pub fn sub(&self, o: impl Into<Operand>) -> Result<Tensor> {
        arith::sub(self, &o.into())
    }
    pub fn mul(&self, o: impl Into<Operand>) -> Result<Tensor> {
        arith::mul(self, &o.into())
    }
    pub fn div(&self, o: impl Into<Operand>) -> Result<Tensor> {
        arith::div(self, &o.into())
    }
    pub fn rsub(&self, s: f32) -> Result<Tensor> {
        arith::rsub(self, s)
    }
    pub fn reciprocal(&self) -> Result<Tensor> {
        unary::reciprocal(self)
    }
    pub fn neg(&self) -> Result<Tensor> {
        arith::neg(self)
    }
    pub fn pow(&self, e: f32) -> Result<Tensor> {
        arith::pow(self, e)
    }
    pub fn exp(&self) -> Result<Tensor> {
        unary::exp(self)
    }
    pub fn log(&self) -> Result<Tensor> {
        unary::log(self)
    }
    pub fn sin(&self) -> Result<Tensor> {
        unary::sin(self)
    }
    pub fn cos(&self) -> Result<Tensor> {
        unary::cos(self)
    }
    pub fn tanh(&self) -> Result<Tensor> {
        unary::tanh(self)
    }
    pub fn sigmoid(&self) -> Result<Tensor> {
        unary::sigmoid(self)
    }
    pub fn relu(&self) -> Result<Tensor> {
        unary::relu(self)
    }
    pub fn abs(&self) -> Result<Tensor> {
        unary::abs(self)
    }
    pub fn sqrt(&self) -> Result<Tensor> {
        unary::sqrt(self)
    }
    pub fn softmax(&self, dim: i64) -> Result<Tensor> {
        crate::ops::softmax::softmax(self, dim)
    }
    pub fn log_softmax(&self, dim: i64) -> Result<Tensor> {
        crate::ops::softmax::log_softmax(self, dim)
    }
    pub fn unsqueeze(&self, dim: i64) -> Result<Tensor> {
        shape_ops::unsqueeze_at(self, dim)
    }
    pub fn squeeze(&self, dim: Option<i64>) -> Result<Tensor> {
        shape_ops::squeeze(self, dim)
    }
    pub fn expand(&self, sizes: &[i64]) -> Result<Tensor> {
        shape_ops::expand(self, sizes)
    }
    pub fn matmul(&self, o: &Tensor) -> Result<Tensor> {
        matmul::matmul(self, o)
    }
    pub fn sum(&self) -> Result<Tensor> {
        reduce::sum(self)
    }
    pub fn sum_dim(&self, dim: i64, keepdim: bool) -> Result<Tensor> {
        reduce::sum_dim(self, dim, keepdim)
    }
    pub fn mean(&self) -> Result<Tensor> {
        reduce::mean(self)
    }
    pub fn mean_dim(&self, dim: i64, keepdim: bool) -> Result<Tensor> {
        reduce::mean_dim(self, dim, keepdim)
    }
    pub fn reshape(&self, shape: &[i64]) -> Result<Tensor> {
        shape_ops::reshape(self, shape)
    }
    pub fn transpose(&self, d0: i64, d1: i64) -> Result<Tensor> {
        shape_ops::transpose(self, d0, d1)
    }
    pub fn t(&self) -> Result<Tensor> {
        shape_ops::t(self)
    }
    pub fn select(&self, dim: i64, index: i64) -> Result<Tensor> {
        crate::ops::index::select(self, dim, index)
    }
    pub fn slice(
        &self,
        dim: i64,
        start: Option<i64>,
        end: Option<i64>,
        step: i64,
    ) -> Result<Tensor> {
        crate::ops::index::slice(self, dim, start, end, step)
    }
    pub fn view(&self, shape: &[i64]) -> Result<Tensor> {
        shape_ops::view(self, shape)
    }
    pub fn contiguous(&self) -> Result<Tensor> {
        shape_ops::contiguous(self)
    }
    pub fn max(&self) -> Result<Tensor> {
        crate::ops::minmax::extreme(self, true)
    }
    pub fn min(&self) -> Result<Tensor> {
        crate::ops::minmax::extreme(self, false)
    }
    pub fn clone_op(&self) -> Result<Tensor> {
        shape_ops::clone(self)
    }
    pub fn add_(&self, o: impl Into<Operand>) -> Result<Tensor> {
        inplace::add_(self, &o.into())
    }
    pub fn sub_(&self, o: impl Into<Operand>) -> Result<Tensor> {
        inplace::sub_(self, &o.into())
    }
    pub fn mul_(&self, o: impl Into<Operand>) -> Result<Tensor> {
        inplace::mul_(self, &o.into())
    }
    pub fn div_(&self, o: impl Into<Operand>) -> Result<Tensor> {
        inplace::div_(self, &o.into())
    }
    pub fn zero_(&self) -> Result<Tensor> {
        inplace::zero_(self)
    }
    pub fn relu_(&self) -> Result<Tensor> {
        inplace::relu_(self)
    }
    /// `t.backward()` with the implicit gradient of 1.
    pub fn backward(&self) -> Result<()> {
        engine::backward(self, None, false, None)
    }
    pub fn backward_with(
        &self,
        gradient: Option<Tensor>,
        retain_graph: bool,
        inputs: Option<&[Tensor]>,
    ) -> Result<()> {
        engine::backward(self, gradient, retain_graph, inputs)
    }
    /// `t.backward(gradient, retain_graph, create_graph, inputs)`.
    pub fn backward_ext(
        &self,
        gradient: Option<Tensor>,
        retain_graph: bool,
        create_graph: bool,
        inputs: Option<&[Tensor]>,
    ) -> Result<()> {
        engine::backward_ext(
            std::slice::from_ref(self),
            vec![gradient],
            retain_graph,
            create_graph,
            inputs,
        )
    }
    pub fn repr(&self) -> String {
        crate::repr::tensor_repr(self)
    }
}
