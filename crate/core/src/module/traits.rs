//! The user code a module runs: its forward and its four kinds of hooks, as
//! traits the binding implements for JS (and Python) functions. Closures
//! implement them too, so native code and tests can write hooks in Rust.
//! Apart from mod.rs so the module's data and its call read without them.

use super::{Module, Value};
use crate::error::Result;
use crate::tensor::Tensor;

/// The module's forward (a JS function, or Rust for `nn.Linear`).
pub trait ModuleForward {
    fn forward(&self, module: &Module, args: &[Value], kwargs: Option<&Value>) -> Result<Value>;
}

/// `fn(module, args[, kwargs]) → args?` (with kwargs: `[args, kwargs]?`).
pub trait ForwardPreHook {
    fn call(
        &self,
        module: &Module,
        args: &[Value],
        kwargs: Option<&Value>,
    ) -> Result<Option<Value>>;
    fn name(&self) -> String {
        String::new()
    }
}

/// `fn(module, args[, kwargs], output) → output?`.
pub trait ForwardHook {
    fn call(
        &self,
        module: &Module,
        args: &[Value],
        kwargs: Option<&Value>,
        output: &Value,
    ) -> Result<Option<Value>>;
    fn name(&self) -> String {
        String::new()
    }
}

/// `fn(module, grad_input, grad_output) → grad_input?` (legacy and full).
pub trait ModuleBackwardHook {
    fn call(
        &self,
        module: &Module,
        grad_input: &[Option<Tensor>],
        grad_output: &[Option<Tensor>],
    ) -> Result<Option<Vec<Option<Tensor>>>>;
    fn name(&self) -> String {
        String::new()
    }
    /// Where the user registered it (shown in `graph()`), when known.
    fn source(&self) -> Option<crate::protocol::SourceLoc> {
        None
    }
}

/// `fn(module, grad_output) → grad_output?`.
pub trait ModuleBackwardPreHook {
    fn call(
        &self,
        module: &Module,
        grad_output: &[Option<Tensor>],
    ) -> Result<Option<Vec<Option<Tensor>>>>;
    fn name(&self) -> String {
        String::new()
    }
    /// Where the user registered it (shown in `graph()`), when known.
    fn source(&self) -> Option<crate::protocol::SourceLoc> {
        None
    }
}

// Closures implement the module traits, so native code and tests can use them.
impl<F: Fn(&[Value], Option<&Value>) -> Result<Value>> ModuleForward for F {
    fn forward(&self, _m: &Module, args: &[Value], kwargs: Option<&Value>) -> Result<Value> {
        self(args, kwargs)
    }
}
impl<F: Fn(&[Value], Option<&Value>) -> Result<Option<Value>>> ForwardPreHook for F {
    fn call(&self, _m: &Module, args: &[Value], kwargs: Option<&Value>) -> Result<Option<Value>> {
        self(args, kwargs)
    }
}
impl<F: Fn(&[Value], Option<&Value>, &Value) -> Result<Option<Value>>> ForwardHook for F {
    fn call(
        &self,
        _m: &Module,
        args: &[Value],
        kwargs: Option<&Value>,
        output: &Value,
    ) -> Result<Option<Value>> {
        self(args, kwargs, output)
    }
}
impl<F> ModuleBackwardHook for F
where
    F: Fn(&[Option<Tensor>], &[Option<Tensor>]) -> Result<Option<Vec<Option<Tensor>>>>,
{
    fn call(
        &self,
        _m: &Module,
        gi: &[Option<Tensor>],
        go: &[Option<Tensor>],
    ) -> Result<Option<Vec<Option<Tensor>>>> {
        self(gi, go)
    }
}
impl<F: Fn(&[Option<Tensor>]) -> Result<Option<Vec<Option<Tensor>>>>> ModuleBackwardPreHook for F {
    fn call(&self, _m: &Module, go: &[Option<Tensor>]) -> Result<Option<Vec<Option<Tensor>>>> {
        self(go)
    }
}
