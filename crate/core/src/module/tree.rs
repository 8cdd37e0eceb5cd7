//! A module's parameters and children: registration with PyTorch's name
//! checks, and the depth-first, deduplicated walks `named_modules()` and
//! `named_parameters()` that `parameters()`, `zero_grad()` and optimizers use.

use super::Module;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

impl Module {
    pub fn register_parameter(&self, name: &str, t: Tensor) -> Result<()> {
        if name.is_empty() || name.contains('.') {
            return Err(Error::type_error(format!(
                "parameter name can't be empty or contain \".\", got: \"{name}\""
            )));
        }
        if t.grad_fn().is_some() {
            return Err(Error::Type(format!(
                "Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be created explicitly. To express '{name}' as a function of another Tensor, compute the value in the forward() method."
            )));
        }
        let mut p = self
            .0
            .parameters
            .try_borrow_mut()
            .map_err(|_| Error::internal("parameters busy"))?;
        match p.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = t,
            None => p.push((name.to_string(), t)),
        }
        Ok(())
    }
    pub fn get_parameter(&self, name: &str) -> Option<Tensor> {
        self.named_parameters()
            .into_iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t)
    }
    pub fn add_module(&self, name: &str, child: Module) -> Result<()> {
        if name.is_empty() || name.contains('.') {
            return Err(Error::type_error(format!(
                "module name can't be empty or contain \".\", got: {name}"
            )));
        }
        let mut c = self
            .0
            .children
            .try_borrow_mut()
            .map_err(|_| Error::internal("children busy"))?;
        match c.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = child,
            None => c.push((name.to_string(), child)),
        }
        Ok(())
    }
    /// Direct children in registration order (`children()`).
    pub fn children(&self) -> Vec<Module> {
        self.0
            .children
            .try_borrow()
            .map(|c| c.iter().map(|(_, m)| m.clone()).collect())
            .unwrap_or_else(|_| crate::error::fault_default("a module's children are busy"))
    }
    /// `named_modules()`: itself as `''`, then children depth-first.
    pub fn named_modules(&self) -> Vec<(String, Module)> {
        let mut out = vec![(String::new(), self.clone())];
        let children = self
            .0
            .children
            .try_borrow()
            .map(|c| c.clone())
            .unwrap_or_else(|_| crate::error::fault_default("a module's children are busy"));
        for (name, child) in children {
            if out.iter().any(|(_, m)| m.ptr_eq(&child)) {
                continue;
            }
            for (sub, m) in child.named_modules() {
                let q = if sub.is_empty() {
                    name.clone()
                } else {
                    format!("{name}.{sub}")
                };
                out.push((q, m));
            }
        }
        out
    }
    /// `named_parameters()`: own first, then children's with qualified names.
    pub fn named_parameters(&self) -> Vec<(String, Tensor)> {
        let mut out: Vec<(String, Tensor)> = Vec::new();
        for (prefix, m) in self.named_modules() {
            let params = m
                .0
                .parameters
                .try_borrow()
                .map(|p| p.clone())
                .unwrap_or_else(|_| crate::error::fault_default("a module's parameters are busy"));
            for (n, t) in params {
                if out.iter().any(|(_, x)| x.ptr_eq(&t)) {
                    continue;
                }
                let q = if prefix.is_empty() {
                    n
                } else {
                    format!("{prefix}.{n}")
                };
                out.push((q, t));
            }
        }
        out
    }
    pub fn parameters(&self) -> Vec<Tensor> {
        self.named_parameters()
            .into_iter()
            .map(|(_, t)| t)
            .collect()
    }
    /// `zero_grad()`: PyTorch's default `set_to_none=True`.
    pub fn zero_grad(&self) -> Result<()> {
        for p in self.parameters() {
            p.set_grad(None)?;
        }
        Ok(())
    }
}
