//! `nn.Sequential` and the activation modules `nn.ReLU`, `nn.Tanh`,
//! `nn.Sigmoid`. Sequential's forward calls each child through
//! `Module::call` — PyTorch's `module(input)` — so every child's hooks run
//! exactly as they would in PyTorch.

use std::rc::Rc;

use super::{Module, ModuleForward, Value};
use crate::error::{Error, Result};
use crate::ops::unary;
use crate::tensor::Tensor;

struct SequentialForward;

impl ModuleForward for SequentialForward {
    fn forward(&self, module: &Module, args: &[Value], _kwargs: Option<&Value>) -> Result<Value> {
        // PyTorch: `for module in self: input = module(input)` — one input.
        let mut input = match args {
            [one] => one.clone(),
            _ => {
                return Err(Error::type_error(format!(
                    "Sequential.forward() takes 2 positional arguments but {} were given",
                    args.len() + 1
                )))
            }
        };
        for child in module.children() {
            input = child.call(vec![input], None)?;
        }
        Ok(input)
    }
}

/// `nn.Sequential(*modules)`: children named `'0'`, `'1'`, ….
pub fn sequential(children: Vec<Module>) -> Result<Module> {
    let m = Module::new("Sequential", Rc::new(SequentialForward));
    for (i, child) in children.into_iter().enumerate() {
        m.add_module(&i.to_string(), child)?;
    }
    Ok(m)
}

/// Which elementwise activation an activation module applies.
#[derive(Clone, Copy)]
pub enum Activation {
    ReLU,
    /// `nn.ReLU(inplace=True)`: `relu_` on its input.
    ReLUInplace,
    Tanh,
    Sigmoid,
}

impl Activation {
    pub fn name(self) -> &'static str {
        match self {
            Activation::ReLU | Activation::ReLUInplace => "ReLU",
            Activation::Tanh => "Tanh",
            Activation::Sigmoid => "Sigmoid",
        }
    }
    fn apply(self, t: &Tensor) -> Result<Tensor> {
        match self {
            Activation::ReLU => unary::relu(t),
            Activation::ReLUInplace => crate::ops::inplace::relu_(t),
            Activation::Tanh => unary::tanh(t),
            Activation::Sigmoid => unary::sigmoid(t),
        }
    }
}

struct ActivationForward(Activation);

impl ModuleForward for ActivationForward {
    fn forward(&self, _m: &Module, args: &[Value], _kwargs: Option<&Value>) -> Result<Value> {
        let x = args.first().and_then(|a| a.as_tensor()).ok_or_else(|| {
            Error::type_error(format!(
                "{}.forward() expects a Tensor input",
                self.0.name()
            ))
        })?;
        self.0.apply(x).map(Value::Tensor)
    }
}

/// `nn.ReLU()`, `nn.Tanh()`, `nn.Sigmoid()`.
pub fn activation(kind: Activation) -> Module {
    Module::new(kind.name(), Rc::new(ActivationForward(kind)))
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use super::*;
    use crate::testing::*;

    #[test]
    fn sequential_names_children_and_chains_forward() {
        let lin = ok(super::super::linear::linear(2, 2, true, 1));
        let seq = ok(sequential(vec![lin.clone(), activation(Activation::ReLU)]));
        let names: Vec<String> = seq.named_modules().into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, vec!["", "0", "1"]);
        let pnames: Vec<String> = seq.named_parameters().into_iter().map(|(n, _)| n).collect();
        assert_eq!(pnames, vec!["0.weight", "0.bias"]);
        let x = leaf(&[1.0, -1.0, 0.5, 2.0], &[2, 2]);
        let out = ok(seq.call(vec![Value::Tensor(x)], None));
        let t = out.as_tensor().cloned().expect("tensor");
        assert_eq!(t.grad_fn().map(|f| f.name), Some("ReluBackward0"));
        assert!(values(&t).iter().all(|&v| v >= 0.0));
    }
}
