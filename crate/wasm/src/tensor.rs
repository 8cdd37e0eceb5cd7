//! The JS `Tensor` class: each method converts arguments, calls the core
//! and converts the result. All methods take `&self`, so re-entrant calls
//! from hooks never hit wasm-bindgen's "recursive use of an object".

use std::rc::Rc;

use js_sys::Array as JsArray;
use wasm_bindgen::prelude::*;

use crate::convert::*;
use crate::hooks::{Handle, JsHook};
use crate::node::Node;
use hookgrad_core::deferred::{Handle as Held, Op, Other};
use hookgrad_core::ops::{self, reduce};
use hookgrad_core::tensor::Tensor as CoreTensor;

/// One JS handle of a core tensor. Handles are independent: each holds its
/// own reference, so releasing one (`dispose()`, the end of an `hg.tidy`, or
/// the garbage collector) never affects another handle of the same tensor.
///
/// The tensor may still be a deferred 0-d op (`hookgrad_core::deferred`):
/// the elementwise ops, `item()` and `backward()` use it as it is; every
/// other use asks `core()`, which materializes it exactly as the eager op
/// would have made it.
#[wasm_bindgen]
pub struct Tensor {
    held: Held,
    /// Made while a JS hook ran: not an owner for AccumulateGrad's steal.
    hook_ref: bool,
}

impl Tensor {
    pub fn wrap(inner: CoreTensor) -> Tensor {
        Tensor::hold(Held::Tensor(inner))
    }

    pub(crate) fn hold(held: Held) -> Tensor {
        crate::live::handle_created();
        // Never deferred while a JS hook runs (`arith`), so only a tensor.
        let hook_ref = match &held {
            Held::Tensor(t) if crate::live::hook_handle_borrows() => {
                t.add_hook_ref();
                true
            }
            _ => false,
        };
        Tensor { held, hook_ref }
    }

    /// The box for a handle that held its row itself (`handle_code`): the
    /// same JS handle, so not counted again.
    pub(crate) fn from_row(row: hookgrad_core::deferred::Lazy) -> Tensor {
        Tensor {
            held: Held::Lazy(row),
            hook_ref: false,
        }
    }

    pub(crate) fn held(&self) -> &Held {
        &self.held
    }

    /// The core tensor (materializing a deferred op).
    pub(crate) fn core(&self) -> hookgrad_core::Result<CoreTensor> {
        self.held.tensor()
    }

    /// `core()` for a method's result (a JS Error).
    fn tensor(&self) -> JsResult<CoreTensor> {
        self.core().js()
    }

    /// `self op other`, deferred where it can be: not while a JS hook runs,
    /// whose handles must be tensors (see `hold`).
    fn arith(&self, op: Op, other: Other<'_>) -> JsResult<Tensor> {
        arith(&self.held, op, other).map(Tensor::hold).js()
    }
}

/// `a op other`, deferred where it can be: not while a JS hook runs, whose
/// handles must be tensors (see `Tensor::hold`).
#[inline]
#[cfg_attr(hookgrad_nightly, optimize(speed))]
pub(crate) fn arith(a: &Held, op: Op, other: Other<'_>) -> hookgrad_core::Result<Held> {
    if crate::live::in_js_hook() {
        a.eager(op, other)
    } else {
        a.op(op, other)
    }
}

impl Drop for Tensor {
    fn drop(&mut self) {
        crate::live::handle_dropped();
        if let (true, Held::Tensor(t)) = (self.hook_ref, &self.held) {
            t.remove_hook_ref();
        }
    }
}

fn wrap(r: hookgrad_core::error::Result<CoreTensor>) -> JsResult<Tensor> {
    r.map(Tensor::wrap).js()
}

fn opt_dim(v: &JsValue, what: &str) -> JsResult<Option<i64>> {
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    match v.as_f64() {
        Some(n) if n.is_finite() && n.fract() == 0.0 && n.abs() < 1e9 => Ok(Some(n as i64)),
        _ => Err(type_error(format!(
            "{what}(): argument 'dim' must be an integer, not {}",
            type_name(v)
        ))),
    }
}

fn int_arg(v: f64, what: &str) -> JsResult<i64> {
    if v.is_finite() && v.fract() == 0.0 && v.abs() < 1e9 {
        Ok(v as i64)
    } else {
        Err(type_error(format!(
            "{what}: expected an integer, got {}",
            crate::convert::number_text(v)
        )))
    }
}

#[wasm_bindgen]
impl Tensor {
    /// Borrow-only identification used by the binding (see `convert::as_tensor`).
    #[wasm_bindgen(js_name = __hgStash)]
    pub fn hg_stash(&self) -> JsResult<()> {
        let t = self.tensor()?;
        STASH.with(|s| s.replace(Some(t)));
        Ok(())
    }

    #[wasm_bindgen(getter)]
    pub fn id(&self) -> JsResult<u32> {
        Ok(self.tensor()?.id().0)
    }

    /// A plain array of numbers, like `list(t.shape)`.
    #[wasm_bindgen(getter)]
    pub fn shape(&self) -> JsResult<JsValue> {
        Ok(self
            .tensor()?
            .shape()
            .iter()
            .map(|&d| JsValue::from_f64(d as f64))
            .collect::<JsArray>()
            .into())
    }

    pub fn item(&self) -> JsResult<f64> {
        self.held.item().map(|v| v as f64).js()
    }

    #[wasm_bindgen(js_name = toArray)]
    pub fn to_array(&self) -> JsResult<JsValue> {
        Ok(array_to_js(&*self.tensor()?.data().js()?))
    }

    #[wasm_bindgen(js_name = toString)]
    pub fn to_string_js(&self) -> JsResult<String> {
        Ok(self.tensor()?.repr())
    }

    #[wasm_bindgen(getter, js_name = requiresGrad)]
    pub fn requires_grad(&self) -> JsResult<bool> {
        Ok(self.tensor()?.requires_grad())
    }

    #[wasm_bindgen(setter, js_name = requiresGrad)]
    pub fn set_requires_grad(&self, v: JsValue) -> JsResult<()> {
        let b = v.as_bool().ok_or_else(|| {
            type_error(format!(
                "requiresGrad must be a boolean, not {}",
                type_name(&v)
            ))
        })?;
        // A deferred op replays with the edges its inputs' requires_grad
        // gave it then (hookgrad_core::deferred's one rule).
        hookgrad_core::deferred::flush().js()?;
        self.tensor()?.set_requires_grad(b).js()
    }

    #[wasm_bindgen(getter, js_name = isLeaf)]
    pub fn is_leaf(&self) -> JsResult<bool> {
        Ok(self.tensor()?.is_leaf())
    }

    /// A `Node`, or `null` on leaves (the contract says null, not undefined).
    #[wasm_bindgen(getter, js_name = gradFn)]
    pub fn grad_fn(&self) -> JsResult<JsValue> {
        Ok(self
            .tensor()?
            .grad_fn()
            .map(|n| Node::wrap(n).into())
            .unwrap_or(JsValue::NULL))
    }

    #[wasm_bindgen(getter)]
    pub fn grad(&self) -> JsResult<JsValue> {
        Ok(self
            .tensor()?
            .grad()
            .map(|g| Tensor::wrap(g).into())
            .unwrap_or(JsValue::NULL))
    }

    #[wasm_bindgen(setter)]
    pub fn set_grad(&self, v: JsValue) -> JsResult<()> {
        if v.is_null() || v.is_undefined() {
            return self.tensor()?.set_grad(None).js();
        }
        let g = expect_tensor(&v, "grad")?;
        self.tensor()?.set_grad(Some(g)).js()
    }

    #[wasm_bindgen(getter)]
    pub fn name(&self) -> JsResult<JsValue> {
        Ok(self
            .tensor()?
            .name()
            .map(JsValue::from)
            .unwrap_or(JsValue::NULL))
    }

    #[wasm_bindgen(setter)]
    pub fn set_name(&self, v: JsValue) -> JsResult<()> {
        if v.is_null() || v.is_undefined() {
            return self.tensor()?.set_name(None).js();
        }
        let s = v
            .as_string()
            .ok_or_else(|| type_error(format!("name must be a string, not {}", type_name(&v))))?;
        self.tensor()?.set_name(Some(s)).js()
    }

    #[wasm_bindgen(getter, js_name = retainsGrad)]
    pub fn retains_grad(&self) -> JsResult<bool> {
        Ok(self.tensor()?.retains_grad())
    }

    /// `t.stride()`: PyTorch's strides, in elements.
    pub fn stride(&self) -> JsResult<JsValue> {
        Ok(self
            .tensor()?
            .strides()
            .iter()
            .map(|&d| JsValue::from_f64(d as f64))
            .collect::<JsArray>()
            .into())
    }

    /// `t.isContiguous()`, as PyTorch's `is_contiguous()`.
    #[wasm_bindgen(js_name = isContiguous)]
    pub fn is_contiguous(&self) -> JsResult<bool> {
        Ok(self.tensor()?.is_contiguous())
    }

    #[wasm_bindgen(getter)]
    pub fn version(&self) -> JsResult<u32> {
        Ok(self.tensor()?.version())
    }

    // ----- ops -------------------------------------------------------------

    pub fn add(&self, other: JsValue) -> JsResult<Tensor> {
        wrap(ops::arith::add(&self.tensor()?, &operand(&other, "add")?))
    }
    pub fn sub(&self, other: JsValue) -> JsResult<Tensor> {
        wrap(ops::arith::sub(&self.tensor()?, &operand(&other, "sub")?))
    }
    pub fn mul(&self, other: JsValue) -> JsResult<Tensor> {
        wrap(ops::arith::mul(&self.tensor()?, &operand(&other, "mul")?))
    }
    pub fn div(&self, other: JsValue) -> JsResult<Tensor> {
        wrap(ops::arith::div(&self.tensor()?, &operand(&other, "div")?))
    }
    pub fn neg(&self) -> JsResult<Tensor> {
        self.arith(Op::Neg, Other::None)
    }
    /// `pow(exponent)`: a number or a Tensor (crate::tensor_ops::pow).
    pub fn pow(&self, exponent: JsValue) -> JsResult<Tensor> {
        if let Some(e) = exponent.as_f64() {
            return self.arith(Op::Pow, Other::Number(e as f32));
        }
        crate::tensor_ops::pow(&self.tensor()?, &exponent)
    }
    pub fn exp(&self) -> JsResult<Tensor> {
        self.arith(Op::Exp, Other::None)
    }
    pub fn log(&self) -> JsResult<Tensor> {
        self.arith(Op::Log, Other::None)
    }
    pub fn sin(&self) -> JsResult<Tensor> {
        self.arith(Op::Sin, Other::None)
    }
    pub fn cos(&self) -> JsResult<Tensor> {
        self.arith(Op::Cos, Other::None)
    }
    pub fn tanh(&self) -> JsResult<Tensor> {
        self.arith(Op::Tanh, Other::None)
    }
    pub fn sigmoid(&self) -> JsResult<Tensor> {
        self.arith(Op::Sigmoid, Other::None)
    }
    pub fn relu(&self) -> JsResult<Tensor> {
        self.arith(Op::Relu, Other::None)
    }
    pub fn abs(&self) -> JsResult<Tensor> {
        self.arith(Op::Abs, Other::None)
    }
    pub fn sqrt(&self) -> JsResult<Tensor> {
        self.arith(Op::Sqrt, Other::None)
    }
    pub fn softmax(&self, dim: JsValue) -> JsResult<Tensor> {
        let d = opt_dim(&dim, "softmax")?.ok_or_else(|| {
            type_error("softmax(): argument 'dim' (position 1) must be an integer")
        })?;
        wrap(self.tensor()?.softmax(d))
    }
    #[wasm_bindgen(js_name = logSoftmax)]
    pub fn log_softmax(&self, dim: JsValue) -> JsResult<Tensor> {
        let d = opt_dim(&dim, "logSoftmax")?.ok_or_else(|| {
            type_error("logSoftmax(): argument 'dim' (position 1) must be an integer")
        })?;
        wrap(self.tensor()?.log_softmax(d))
    }
    pub fn unsqueeze(&self, dim: JsValue) -> JsResult<Tensor> {
        let d = opt_dim(&dim, "unsqueeze")?.ok_or_else(|| {
            type_error("unsqueeze(): argument 'dim' (position 1) must be an integer")
        })?;
        wrap(self.tensor()?.unsqueeze(d))
    }
    pub fn squeeze(&self, dim: JsValue) -> JsResult<Tensor> {
        wrap(self.tensor()?.squeeze(opt_dim(&dim, "squeeze")?))
    }
    /// `expand(shape)` (an array; `-1` keeps a size).
    pub fn expand(&self, shape: JsValue) -> JsResult<Tensor> {
        wrap(self.tensor()?.expand(&parse_signed_shape(&shape)?))
    }
    pub fn matmul(&self, other: JsValue) -> JsResult<Tensor> {
        let o = expect_tensor(&other, "matmul(): argument 'other' (position 1)")?;
        wrap(self.tensor()?.matmul(&o))
    }
    pub fn sum(&self, dim: JsValue, keepdim: JsValue) -> JsResult<Tensor> {
        let keep = keepdim.as_bool().unwrap_or(false);
        match opt_dim(&dim, "sum")? {
            None => wrap(reduce::sum(&self.tensor()?)),
            Some(d) => wrap(reduce::sum_dim(&self.tensor()?, d, keep)),
        }
    }
    pub fn mean(&self, dim: JsValue, keepdim: JsValue) -> JsResult<Tensor> {
        let keep = keepdim.as_bool().unwrap_or(false);
        match opt_dim(&dim, "mean")? {
            None => wrap(reduce::mean(&self.tensor()?)),
            Some(d) => wrap(reduce::mean_dim(&self.tensor()?, d, keep)),
        }
    }
    pub fn reshape(&self, shape: JsValue) -> JsResult<Tensor> {
        wrap(self.tensor()?.reshape(&parse_signed_shape(&shape)?))
    }
    pub fn transpose(&self, d0: f64, d1: f64) -> JsResult<Tensor> {
        wrap(
            self.tensor()?
                .transpose(int_arg(d0, "transpose")?, int_arg(d1, "transpose")?),
        )
    }
    pub fn t(&self) -> JsResult<Tensor> {
        wrap(self.tensor()?.t())
    }
    #[wasm_bindgen(js_name = clone)]
    pub fn clone_js(&self) -> JsResult<Tensor> {
        wrap(self.tensor()?.clone_op())
    }
    pub fn detach(&self) -> JsResult<Tensor> {
        wrap(hookgrad_core::view::detached(&self.tensor()?, true))
    }
    pub fn add_(&self, other: JsValue) -> JsResult<Tensor> {
        wrap(ops::inplace::add_(
            &self.tensor()?,
            &operand(&other, "add_")?,
        ))
    }
    pub fn sub_(&self, other: JsValue) -> JsResult<Tensor> {
        wrap(ops::inplace::sub_(
            &self.tensor()?,
            &operand(&other, "sub_")?,
        ))
    }
    pub fn mul_(&self, other: JsValue) -> JsResult<Tensor> {
        wrap(ops::inplace::mul_(
            &self.tensor()?,
            &operand(&other, "mul_")?,
        ))
    }
    pub fn div_(&self, other: JsValue) -> JsResult<Tensor> {
        wrap(ops::inplace::div_(
            &self.tensor()?,
            &operand(&other, "div_")?,
        ))
    }
    pub fn zero_(&self) -> JsResult<Tensor> {
        wrap(ops::inplace::zero_(&self.tensor()?))
    }

    // ----- autograd ----------------------------------------------------------

    /// `backward(gradient?, {retainGraph?, inputs?})`.
    pub fn backward(&self, gradient: JsValue, opts: JsValue) -> JsResult<()> {
        check_opts(&opts, "backward()")?;
        let grad = if gradient.is_undefined() || gradient.is_null() {
            None
        } else if let Some(t) = tensor_arg(&gradient)? {
            Some(t)
        } else if gradient.as_f64().is_none() && !js_sys::Array::is_array(&gradient) {
            // PyTorch's words, plus a hint for the common slip of passing the
            // options object first.
            let hint = if gradient.is_object() {
                " (options go second: backward(undefined, {retainGraph: true}))"
            } else {
                ""
            };
            return Err(type_error(format!(
                "gradients can be either Tensors or None, but got {}{hint}",
                type_name(&gradient)
            )));
        } else {
            let (shape, values) = parse_data(&gradient, None)?;
            Some(CoreTensor::from_vec(&shape, values, &Default::default()).js()?)
        };
        // PyTorch: retain_graph defaults to create_graph.
        let o: crate::options::BackwardOptions = crate::options::read(&opts, "backward()")?;
        let create = o.create_graph.unwrap_or(false);
        let retain = o.retain_graph.unwrap_or(create);
        let inputs = crate::options::given(&o.inputs)
            .map(|v| tensors_from_js(v, "backward(): inputs"))
            .transpose()?;
        if grad.is_none() && !create && inputs.is_none() {
            // On a deferred root: on numbers where nothing can observe it.
            return self.held.backward(retain).js();
        }
        let t = self.tensor()?;
        t.backward_ext(grad, retain, create, inputs.as_deref()).js()
    }

    #[wasm_bindgen(js_name = registerHook)]
    pub fn register_hook(&self, f: JsValue) -> JsResult<Handle> {
        let f = crate::hooks::hook_fn(f, "registerHook(): hook")?;
        let h = self.tensor()?.register_hook(Rc::new(JsHook::new(f))).js()?;
        Ok(Handle::wrap(h))
    }

    /// `registerHook(fn)` for the facade, which has checked `fn` is a
    /// function: the handle as `slot · 2^32 + id` (its JS side is a plain
    /// object, see `hooks::keep_by_id`), or 0 when nothing was registered
    /// (an error, or no room to keep the handle by id): the facade then
    /// takes the generic path, which registers the hook or throws. A number,
    /// not a `Result`: no array per call for the multi-value return.
    #[wasm_bindgen(js_name = __registerHookId)]
    pub fn register_hook_id(&self, f: js_sys::Function) -> f64 {
        if !crate::hooks::can_keep_by_id() {
            return 0.0;
        }
        let Ok(t) = self.core() else { return 0.0 };
        let hook = Rc::new(JsHook::new(f));
        match t.register_hook(hook.clone()) {
            Ok(h) => crate::hooks::keep_by_id(&hook, h),
            Err(_) => 0.0,
        }
    }

    #[wasm_bindgen(js_name = retainGrad)]
    pub fn retain_grad(&self) -> JsResult<()> {
        self.tensor()?.retain_grad().js()
    }

    #[wasm_bindgen(js_name = registerPostAccumulateGradHook)]
    pub fn register_post_accumulate_grad_hook(&self, f: JsValue) -> JsResult<Handle> {
        let f = crate::hooks::hook_fn(f, "registerPostAccumulateGradHook(): hook")?;
        let h = self
            .tensor()?
            .register_post_accumulate_grad_hook(Rc::new(JsHook::new(f)))
            .js()?;
        Ok(Handle::wrap(h))
    }
}

/// Used by `graph()` inputs and `grad()` results.
pub fn tensors_to_js(ts: Vec<Option<CoreTensor>>) -> JsValue {
    ts.into_iter()
        .map(|t| {
            t.map(|t| JsValue::from(Tensor::wrap(t)))
                .unwrap_or(JsValue::NULL)
        })
        .collect::<JsArray>()
        .into()
}
