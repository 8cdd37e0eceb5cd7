//! `nn.Linear(in, out, bias)`: parameters `weight` [out, in] and `bias`
//! [out]; forward as `F.linear`: a 2-D input goes through one `addmm` over
//! `weight.t()` (so its legacy hook sees AddmmBackward0's three gradients),
//! other inputs through `matmul` then `add`.
//! Initialization is U(-1/√in, 1/√in) from hookgrad's seeded generator
//! (PyTorch's bounds, not its random stream).

use std::rc::Rc;

use super::{Module, ModuleForward, Value};
use crate::error::{Error, Result};
use crate::ops::random::{uniform, SplitMix64};
use crate::tensor::{Tensor, TensorOptions};

struct LinearForward;

impl ModuleForward for LinearForward {
    fn forward(&self, module: &Module, args: &[Value], _kwargs: Option<&Value>) -> Result<Value> {
        let x = args
            .first()
            .and_then(|a| a.as_tensor())
            .ok_or_else(|| Error::type_error("Linear.forward() expects a Tensor input"))?;
        let weight = module
            .get_parameter("weight")
            .ok_or_else(|| Error::runtime("Linear has no parameter 'weight'"))?;
        let bias = module.get_parameter("bias");
        let out = crate::ops::linear::linear(x, &weight, bias.as_ref())?;
        Ok(Value::Tensor(out))
    }
}

pub fn linear(in_features: usize, out_features: usize, bias: bool, seed: u64) -> Result<Module> {
    let m = Module::new("Linear", Rc::new(LinearForward));
    let mut rng = SplitMix64::new(seed);
    let bound = if in_features > 0 {
        1.0 / (in_features as f32).sqrt()
    } else {
        0.0
    };
    let opts = TensorOptions {
        requires_grad: true,
        name: None,
    };
    let w = Tensor::from_array_opts(
        uniform(&[out_features, in_features], -bound, bound, &mut rng)?,
        &opts,
    );
    w.set_name(Some("weight".into()))?;
    m.register_parameter("weight", w)?;
    if bias {
        let b = Tensor::from_array_opts(uniform(&[out_features], -bound, bound, &mut rng)?, &opts);
        b.set_name(Some("bias".into()))?;
        m.register_parameter("bias", b)?;
    }
    Ok(m)
}
