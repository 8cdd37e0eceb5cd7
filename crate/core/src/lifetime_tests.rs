//! What a backward releases (PyTorch `engine.cpp` `release_variables`, plus
//! the module-call state hookgrad drops there, see
//! `module::backward_hook::full::release_state`), and AccumulateGrad's steal.
//! Expected values are hand calculations.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::cell::Cell;
use std::rc::{Rc, Weak};

use crate::module::{Module, ModuleBackwardHook, ModuleBackwardPreHook, ModuleForward, Value};
use crate::node::FREED_GRAPH_ERROR;
use crate::tensor::Tensor;
use crate::testing::*;

/// A module `a.tanh()` with a full backward hook and pre-hook counting calls;
/// returns the module, the counters, and weak references to the hooks.
#[allow(clippy::type_complexity)]
fn hooked_tanh() -> (
    Module,
    Rc<Cell<u32>>,
    Weak<dyn ModuleBackwardHook>,
    Weak<dyn ModuleBackwardPreHook>,
    Weak<dyn ModuleForward>,
) {
    let forward: Rc<dyn ModuleForward> = Rc::new(
        |args: &[Value], _kw: Option<&Value>| -> crate::Result<Value> {
            Ok(Value::Tensor(args[0].as_tensor().unwrap().tanh()?))
        },
    );
    let weak_forward = Rc::downgrade(&forward);
    let m = Module::new("Block", forward);
    let calls = Rc::new(Cell::new(0));
    let c = calls.clone();
    let hook: Rc<dyn ModuleBackwardHook> = Rc::new(
        move |_gi: &[Option<Tensor>], _go: &[Option<Tensor>]| -> crate::Result<_> {
            c.set(c.get() + 1);
            Ok(None)
        },
    );
    let c = calls.clone();
    let pre: Rc<dyn ModuleBackwardPreHook> =
        Rc::new(move |_go: &[Option<Tensor>]| -> crate::Result<_> {
            c.set(c.get() + 100);
            Ok(None)
        });
    let (wh, wp) = (Rc::downgrade(&hook), Rc::downgrade(&pre));
    ok(m.register_full_backward_hook(hook, false));
    m.register_full_backward_pre_hook(pre, false);
    (m, calls, wh, wp, weak_forward)
}

#[test]
fn backward_releases_a_module_calls_hooks_and_module() {
    let (m, calls, wh, wp, wf) = hooked_tanh();
    let x = leaf(&[0.5, -1.0], &[2]);
    let out = ok(m.call(vec![Value::Tensor(x.clone())], None));
    let y = ok(out.as_tensor().unwrap().sum());
    // The hooks are removed from the module and the module dropped; the
    // graph (held by y) still holds them until backward has run.
    for (id, _) in m.hooks().backward.snapshot() {
        crate::hooks::RemoveHook::remove_hook(&*m.hooks().backward, id);
    }
    for (id, _) in m.hooks().backward_pre.snapshot() {
        crate::hooks::RemoveHook::remove_hook(&*m.hooks().backward_pre, id);
    }
    drop(m);
    assert!(wh.upgrade().is_some() && wp.upgrade().is_some() && wf.upgrade().is_some());
    ok(crate::engine::backward(&y, None, false, None));
    // PyTorch: hooks removed after forward still run in that graph's backward.
    assert_eq!(calls.get(), 101);
    // Released at the end of backward, while y (and so the graph) lives on.
    assert!(wh.upgrade().is_none(), "full backward hook still held");
    assert!(wp.upgrade().is_none(), "full backward pre-hook still held");
    assert!(wf.upgrade().is_none(), "module forward still held");
    // The second backward fails exactly where PyTorch's does (TanhBackward0
    // saved its result), with PyTorch's message.
    let e = crate::engine::backward(&y, None, false, None).unwrap_err();
    assert_eq!(e.message(), FREED_GRAPH_ERROR);
}

#[test]
fn retain_graph_keeps_a_module_calls_hooks() {
    let (m, calls, wh, _, _) = hooked_tanh();
    let x = leaf(&[0.5, -1.0], &[2]);
    let out = ok(m.call(vec![Value::Tensor(x.clone())], None));
    let y = ok(out.as_tensor().unwrap().sum());
    ok(crate::engine::backward(&y, None, true, None));
    ok(crate::engine::backward(&y, None, true, None));
    assert_eq!(calls.get(), 202);
    ok(crate::engine::backward(&y, None, false, None));
    assert_eq!(calls.get(), 303);
    drop(m);
    assert!(wh.upgrade().is_none());
    // x.grad: 3 × (1 - tanh²): hand values tanh(0.5)=0.462117, tanh(-1)=-0.761594.
    let g = grad_values(&x);
    assert!((g[0] - 3.0 * (1.0 - 0.462117f32.powi(2))).abs() < 1e-5);
    assert!((g[1] - 3.0 * (1.0 - 0.761594f32.powi(2))).abs() < 1e-5);
}

#[test]
fn a_failed_backward_releases_too() {
    let (m, _calls, wh, _, _) = hooked_tanh();
    let x = leaf(&[0.5], &[1]);
    let out = ok(m.call(vec![Value::Tensor(x.clone())], None));
    let y = ok(out.as_tensor().unwrap().sum());
    ok(
        x.register_hook(Rc::new(|_g: &Tensor| -> crate::Result<Option<Tensor>> {
            Err(crate::Error::runtime("boom"))
        })),
    );
    assert!(crate::engine::backward(&y, None, false, None).is_err());
    drop(m);
    assert!(wh.upgrade().is_none());
}

/// `x.register_post_accumulate_grad_hook(t => t.grad.mul_(10))` and a post
/// hook on x's AccumulateGrad, for y = (x*3).sum(). PyTorch (checked with
/// torch 2.x, fixture `steal_*` in tests/fixtures/pyfixtures/memory.py):
/// `.grad` is the stolen gradient, so the post hook sees [30, 30]; when a
/// tensor hook stored the gradient, `.grad` is a copy and it sees [3, 3].
fn steal_case(store_in_tensor_hook: bool) -> (Vec<f32>, Vec<f32>, Vec<Vec<f32>>) {
    let x = leaf(&[1.0, 2.0], &[2]);
    let y = ok(ok(x.mul(3.0)).sum());
    let stored: Rc<std::cell::RefCell<Vec<Tensor>>> = Rc::default();
    let s = stored.clone();
    ok(x.register_hook(Rc::new(
        move |g: &Tensor| -> crate::Result<Option<Tensor>> {
            if store_in_tensor_hook {
                s.borrow_mut().push(g.clone());
            }
            Ok(None)
        },
    )));
    ok(
        x.register_post_accumulate_grad_hook(Rc::new(|t: &Tensor| -> crate::Result<()> {
            crate::ops::inplace::mul_(&t.grad_raw().unwrap(), &crate::Operand::Scalar(10.0))?;
            Ok(())
        })),
    );
    let seen: Rc<std::cell::RefCell<Vec<f32>>> = Rc::default();
    let s2 = seen.clone();
    let acc = x.grad_accumulator().unwrap();
    acc.register_hook(Rc::new(
        move |_gi: &[Option<Tensor>], go: &[Option<Tensor>]| -> crate::Result<_> {
            *s2.borrow_mut() = values(go[0].as_ref().unwrap());
            Ok(None)
        },
    ));
    ok(crate::engine::backward(&y, None, false, None));
    let st = stored.borrow().iter().map(values).collect();
    let seen = seen.borrow().clone();
    (grad_values(&x), seen, st)
}

#[test]
fn accumulate_grad_steals_the_incoming_gradient() {
    let (grad, seen, _) = steal_case(false);
    assert_eq!(grad, vec![30.0, 30.0]);
    assert_eq!(seen, vec![30.0, 30.0]);
}

#[test]
fn accumulate_grad_copies_a_gradient_someone_else_holds() {
    let (grad, seen, stored) = steal_case(true);
    assert_eq!(grad, vec![30.0, 30.0]);
    assert_eq!(seen, vec![3.0, 3.0]);
    assert_eq!(stored, vec![vec![3.0, 3.0]]);
}

#[test]
fn a_stolen_grad_is_a_detached_alias_and_accumulates_in_place() {
    let x = leaf(&[1.0, 2.0], &[2]);
    ok(crate::engine::backward(
        &ok(ok(x.mul(3.0)).sum()),
        None,
        false,
        None,
    ));
    let g1 = x.grad_raw().unwrap();
    assert!(g1.is_leaf() && !g1.requires_grad());
    ok(crate::engine::backward(
        &ok(ok(x.mul(3.0)).sum()),
        None,
        false,
        None,
    ));
    // PyTorch: the second backward adds in place into the same .grad.
    assert!(x.grad_raw().unwrap().ptr_eq(&g1));
    assert_eq!(values(&g1), vec![6.0, 6.0]);
}
