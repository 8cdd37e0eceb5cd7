//! What flows through a module call: tensors, tuples (JS arrays), dicts
//! (plain JS objects, e.g. kwargs) and opaque values the engine never looks
//! into (numbers, strings, functions — held by the binding).

use std::any::Any;
use std::rc::Rc;

use crate::tensor::Tensor;

#[derive(Clone)]
pub enum Value {
    Tensor(Tensor),
    Tuple(Vec<Value>),
    Dict(Vec<(String, Value)>),
    None,
    Opaque(Rc<dyn Any>),
}

impl Value {
    pub fn as_tensor(&self) -> Option<&Tensor> {
        match self {
            Value::Tensor(t) => Some(t),
            _ => None,
        }
    }

    /// A hook result taken as positional args: a tuple as is, anything else
    /// wrapped in a 1-tuple (PyTorch: `if not isinstance(r, tuple): r = (r,)`).
    pub fn into_args(self) -> Vec<Value> {
        match self {
            Value::Tuple(items) => items,
            other => vec![other],
        }
    }

    /// The tensors of an output seen as a tuple (a lone tensor is a 1-tuple).
    pub fn tuple_items(&self) -> Vec<Value> {
        match self {
            Value::Tuple(items) => items.clone(),
            other => vec![other.clone()],
        }
    }

    /// PyTorch's legacy-hook search: `while not Tensor: dict → first tensor
    /// value, else var[0]`.
    pub fn first_tensor_for_legacy_hook(&self) -> Option<Tensor> {
        match self {
            Value::Tensor(t) => Some(t.clone()),
            Value::Dict(entries) => entries.iter().find_map(|(_, v)| v.as_tensor().cloned()),
            Value::Tuple(items) => items.first().and_then(|v| v.first_tensor_for_legacy_hook()),
            _ => None,
        }
    }

    pub fn describe(&self) -> &'static str {
        match self {
            Value::Tensor(_) => "Tensor",
            Value::Tuple(_) => "tuple",
            Value::Dict(_) => "dict",
            Value::None => "None",
            Value::Opaque(_) => "object",
        }
    }
}

/// Array values of the tensors in a list (None elsewhere), for trace events.
pub fn snapshot_values(values: &[Value]) -> Vec<Option<crate::tensor::Array>> {
    values
        .iter()
        .map(|v| {
            v.as_tensor()
                .and_then(|t| crate::error::snapshot(t.to_array()))
        })
        .collect()
}
