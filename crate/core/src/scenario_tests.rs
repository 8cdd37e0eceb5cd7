//! The seed tutorials' examples and PyTorch hook-order scenarios on tensors
//! and nodes, natively (module hooks: module_scenario_tests.rs).
//! Expected numbers are hand calculations (shown in comments) or PyTorch's
//! documented values; none are read back from hookgrad.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::cloned_ref_to_slice_refs
)]

use std::cell::RefCell;
use std::rc::Rc;

use crate::context::{self, Semantics};
use crate::error::Result;
use crate::hooks::{NodePostHook, NodePreHook, PostAccumulateGradHook, TensorHook};
use crate::tensor::Tensor;
use crate::testing::*;

/// What hooks print, in order (shared with module_scenario_tests.rs).
pub(crate) type Log = Rc<RefCell<Vec<String>>>;

pub(crate) fn log() -> Log {
    Rc::new(RefCell::new(Vec::new()))
}

pub(crate) fn tensor_hook(
    f: impl Fn(&Tensor) -> Result<Option<Tensor>> + 'static,
) -> Rc<dyn TensorHook> {
    Rc::new(f)
}

fn named(t: Tensor, name: &str) -> Tensor {
    t.set_name(Some(name.into())).unwrap();
    t
}

/// The 2021 video: c = a*b with hooks (c_hook: +2 after printing, a printing
/// lambda, retain_grad), d with +100, e = c*d with retain_grad, ×2, retain_grad.
fn video_graph(sem: Semantics) -> (Vec<Tensor>, Vec<String>) {
    context::set_semantics(sem);
    let printed = log();
    let a = named(leaf(&[2.0], &[]), "a");
    let b = named(leaf(&[3.0], &[]), "b");
    let c = named(ok(a.mul(&b)), "c");
    let p = printed.clone();
    ok(c.register_hook(tensor_hook(move |g| {
        p.borrow_mut().push(format!("c_hook {}", g.repr()));
        Ok(Some(g.add(2.0)?))
    })));
    let p = printed.clone();
    ok(c.register_hook(tensor_hook(move |g| {
        p.borrow_mut().push(format!("print {}", g.repr()));
        Ok(None)
    })));
    ok(c.retain_grad());
    let d = named(leaf(&[4.0], &[]), "d");
    ok(d.register_hook(tensor_hook(|g| Ok(Some(g.add(100.0)?)))));
    let e = named(ok(c.mul(&d)), "e");
    ok(e.retain_grad());
    ok(e.register_hook(tensor_hook(|g| Ok(Some(g.mul(2.0)?)))));
    ok(e.retain_grad());
    ok(e.backward());
    context::set_semantics(Semantics::PyTorch2);
    let out = printed.borrow().clone();
    (vec![a, b, c, d, e], out)
}

#[test]
fn video_tensor_hooks_pytorch2() {
    let (t, printed) = video_graph(Semantics::PyTorch2);
    // e: 1 → ×2 = 2 (retain-grad runs last under PyTorch 2, so e.grad = 2).
    // MulBackward0(c*d): c gets 2*4 = 8, d gets 2*6 = 12 → d hook: 112.
    // c: 8 → c_hook 10 → print → retain 10; a = 10*3 = 30, b = 10*2 = 20.
    let grads: Vec<f32> = t.iter().map(|x| grad_values(x)[0]).collect();
    assert_eq!(grads, vec![30.0, 20.0, 10.0, 112.0, 2.0]);
    assert_eq!(printed, vec!["c_hook tensor(8.)", "print tensor(10.)"]);
}

#[test]
fn video_tensor_hooks_pytorch1_order() {
    let (t, _) = video_graph(Semantics::PyTorch1);
    // PyTorch 1.x: e.retain_grad() was called before the ×2 hook → e.grad = 1.
    let grads: Vec<f32> = t.iter().map(|x| grad_values(x)[0]).collect();
    assert_eq!(grads, vec![30.0, 20.0, 10.0, 112.0, 1.0]);
}

#[test]
fn inplace_hook_hazard_changes_more_than_d() {
    // e = c + d; d's hook does g.mul_(100) and returns nothing. AddBackward0
    // hands the same gradient tensor to both branches; AccumulateGrad(d) runs
    // first (highest sequence number), so c's branch sees 100 too.
    let a = leaf(&[2.0], &[]);
    let b = leaf(&[3.0], &[]);
    let c = ok(a.mul(&b));
    let d = leaf(&[4.0], &[]);
    ok(d.register_hook(tensor_hook(|g| {
        g.mul_(100.0)?;
        Ok(None)
    })));
    let e = ok(c.add(&d));
    ok(e.backward());
    assert_eq!(grad_values(&d), vec![100.0]);
    assert_eq!(grad_values(&a), vec![300.0]); // 100 * b
    assert_eq!(grad_values(&b), vec![200.0]); // 100 * a
}

#[test]
fn handle_remove_before_backward() {
    let a = leaf(&[2.0], &[]);
    let h = ok(a.register_hook(tensor_hook(|g| Ok(Some(g.mul(10.0)?)))));
    h.remove();
    h.remove(); // idempotent
    let y = ok(a.mul(3.0));
    ok(y.backward());
    assert_eq!(grad_values(&a), vec![3.0]);
}

#[test]
fn hooks_see_previous_hooks_result_in_order() {
    let a = leaf(&[1.0], &[]);
    let seen = log();
    for k in [2.0f32, 3.0] {
        let s = seen.clone();
        ok(a.register_hook(tensor_hook(move |g| {
            s.borrow_mut().push(format!("{}", g.item()?));
            Ok(Some(g.mul(k)?))
        })));
    }
    ok(ok(a.mul(5.0)).backward());
    assert_eq!(*seen.borrow(), vec!["5", "10"]);
    assert_eq!(grad_values(&a), vec![30.0]);
}

#[test]
fn leaf_grads_accumulate_and_freed_graph_errors() {
    let a = leaf(&[2.0], &[]);
    let y = ok(a.mul(&a)); // saves a: needs its buffers
    ok(y.backward_with(None, true, None));
    ok(y.backward_with(None, false, None));
    assert_eq!(grad_values(&a), vec![8.0]); // 2 * (2a) = 8
    let e = y
        .backward()
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        e.starts_with("Trying to backward through the graph a second time"),
        "{e}"
    );
    // AddBackward0 saves nothing, so PyTorch lets it run again.
    let z = ok(a.add(1.0));
    ok(z.backward());
    ok(z.backward());
}

#[test]
fn implicit_gradient_errors() {
    let v = leaf(&[1.0, 2.0], &[2]);
    let y = ok(v.mul(2.0));
    assert_eq!(
        y.backward().err().map(|e| e.to_string()).as_deref(),
        Some("grad can be implicitly created only for scalar outputs")
    );
    let c = constant(&[1.0], &[]);
    assert_eq!(
        c.backward().err().map(|e| e.to_string()).as_deref(),
        Some("element 0 of tensors does not require grad and does not have a grad_fn")
    );
}

#[test]
fn autograd_grad_leaves_dot_grad_untouched_and_checks_unused() {
    let a = leaf(&[3.0], &[]);
    let b = leaf(&[5.0], &[]);
    let y = ok(a.mul(&a));
    let g = ok(crate::engine::grad(
        &[y.clone()],
        &[a.clone()],
        vec![None],
        true,
        false,
    ));
    assert_eq!(values(g[0].as_ref().unwrap()), vec![6.0]);
    assert!(a.grad_raw().is_none());
    let e = crate::engine::grad(&[y.clone()], &[b.clone()], vec![None], true, false)
        .err()
        .map(|e| e.to_string());
    assert_eq!(
        e.as_deref(),
        Some("The differentiated Tensor at index 0 appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior.")
    );
    let g = ok(crate::engine::grad(&[y], &[b], vec![None], false, true));
    assert!(g[0].is_none());
}

#[test]
fn backward_inputs_only_accumulates_into_those() {
    let a = leaf(&[2.0], &[]);
    let b = leaf(&[3.0], &[]);
    let y = ok(a.mul(&b));
    ok(y.backward_with(None, false, Some(&[a.clone()])));
    assert_eq!(grad_values(&a), vec![3.0]);
    assert!(b.grad_raw().is_none());
}

#[test]
fn retain_grad_sees_value_before_node_prehooks() {
    // PyTorch engine.cpp: tensor pre-hooks, then retains_grad hooks, then the
    // node's pre-hooks. A node pre-hook doubling the grad is not seen by .grad.
    let a = leaf(&[1.0], &[]);
    let c = ok(a.mul(3.0));
    ok(c.retain_grad());
    let pre: Rc<dyn NodePreHook> = Rc::new(|g: &[Option<Tensor>]| {
        Ok(Some(
            g.iter()
                .map(|x| x.as_ref().map(|t| t.mul(2.0).unwrap()))
                .collect(),
        ))
    });
    c.grad_fn().unwrap().register_prehook(pre);
    let y = ok(c.mul(1.0));
    ok(y.backward());
    assert_eq!(grad_values(&c), vec![1.0]);
    assert_eq!(grad_values(&a), vec![6.0]); // 1 * 2 (pre-hook) * 3
}

#[test]
fn node_post_hook_sees_grad_inputs_and_outputs_and_can_replace() {
    let a = leaf(&[2.0], &[]);
    let b = leaf(&[3.0], &[]);
    let c = ok(a.mul(&b));
    let seen = log();
    let s = seen.clone();
    let post: Rc<dyn NodePostHook> =
        Rc::new(move |gi: &[Option<Tensor>], go: &[Option<Tensor>]| {
            let f = |v: &[Option<Tensor>]| {
                v.iter()
                    .map(|t| {
                        t.as_ref()
                            .map(|t| t.item().unwrap())
                            .unwrap_or(f32::NAN)
                            .to_string()
                    })
                    .collect::<Vec<_>>()
                    .join(",")
            };
            s.borrow_mut().push(format!("{}|{}", f(gi), f(go)));
            Ok(Some(vec![
                gi[0].as_ref().map(|t| t.mul(10.0).unwrap()),
                gi[1].clone(),
            ]))
        });
    c.grad_fn().unwrap().register_hook(post);
    ok(c.backward());
    assert_eq!(*seen.borrow(), vec!["3,2|1"]);
    assert_eq!(grad_values(&a), vec![30.0]);
    assert_eq!(grad_values(&b), vec![2.0]);
}

#[test]
fn accumulate_grad_post_hook_gets_empty_inputs_and_the_grad() {
    let a = leaf(&[2.0], &[]);
    let c = ok(a.mul(5.0));
    let acc = c.grad_fn().unwrap().next_functions()[0].0.clone().unwrap();
    assert_eq!(acc.name, "AccumulateGrad");
    assert!(acc.variable().unwrap().ptr_eq(&a));
    let seen = log();
    let s = seen.clone();
    let post: Rc<dyn NodePostHook> =
        Rc::new(move |gi: &[Option<Tensor>], go: &[Option<Tensor>]| {
            s.borrow_mut().push(format!(
                "{} {}",
                gi.len(),
                go[0].as_ref().unwrap().item().unwrap()
            ));
            Ok(None)
        });
    acc.register_hook(post);
    ok(c.backward());
    assert_eq!(*seen.borrow(), vec!["0 5"]);
}

#[test]
fn post_accumulate_grad_hook_runs_after_grad_is_written() {
    let a = leaf(&[2.0], &[]);
    let seen = log();
    let s = seen.clone();
    let hook: Rc<dyn PostAccumulateGradHook> = Rc::new(move |t: &Tensor| {
        s.borrow_mut()
            .push(format!("{}", t.grad_raw().unwrap().item()?));
        Ok(())
    });
    ok(a.register_post_accumulate_grad_hook(hook.clone()));
    ok(ok(a.mul(4.0)).backward());
    assert_eq!(*seen.borrow(), vec!["4"]);
    let c = ok(a.mul(1.0));
    assert!(c.register_post_accumulate_grad_hook(hook).is_err());
}

#[test]
fn removing_a_later_hook_mid_pass_still_runs_it_this_pass() {
    // PyTorch iterates over a copy of the hook dict (`_call_hooks` uses
    // PyDict_Values), so the removed hook runs once more in this pass.
    let a = leaf(&[1.0], &[]);
    let seen = log();
    let victim: Rc<RefCell<Option<crate::hooks::RemovableHandle>>> = Rc::new(RefCell::new(None));
    let v = victim.clone();
    let s = seen.clone();
    ok(a.register_hook(tensor_hook(move |_| {
        s.borrow_mut().push("first".into());
        if let Some(h) = v.borrow().as_ref() {
            h.remove();
        }
        Ok(None)
    })));
    let s = seen.clone();
    *victim.borrow_mut() = Some(ok(a.register_hook(tensor_hook(move |_| {
        s.borrow_mut().push("second".into());
        Ok(None)
    }))));
    ok(ok(a.mul(1.0)).backward());
    ok(ok(a.mul(1.0)).backward());
    assert_eq!(*seen.borrow(), vec!["first", "second", "first"]);
}

#[test]
fn no_grad_builds_no_graph_and_detach_shares_storage() {
    let a = leaf(&[1.0, 2.0], &[2]);
    let y = context::no_grad(|| a.mul(2.0)).unwrap();
    assert!(y.grad_fn().is_none() && !y.requires_grad());
    let d = a.detach();
    ok(context::no_grad(|| d.add_(1.0)));
    assert_eq!(values(&a), vec![2.0, 3.0]);
    assert_eq!(a.version(), 1);
}

#[test]
fn detach_in_place_leaves_the_graph_and_refuses_views() {
    // torch 2.15: b = a * 2; b.detach_() -> requires_grad False, is_leaf, no grad_fn;
    // the rest of the graph (here c = b * 3, made before) still reaches a.
    let a = leaf(&[1.0, 2.0], &[2]);
    let b = ok(a.mul(2.0));
    let c = ok(b.mul(3.0));
    ok(b.detach_());
    assert!(b.grad_fn().is_none() && !b.requires_grad() && b.is_leaf());
    ok(ok(c.sum()).backward());
    assert_eq!(values(&a.grad().unwrap()), vec![6.0, 6.0]);
    // Every view is refused, as in PyTorch (VariableTypeManual.cpp's detach_).
    let v = ok(a.view(&[2]));
    let err = v.detach_().unwrap_err().to_string();
    assert!(
        err.starts_with("Can't detach views in-place. Use detach() instead."),
        "{err}"
    );
}

#[test]
fn ready_order_runs_later_nodes_first() {
    // y = (a*2) + (a*3): both MulBackward0 become ready after AddBackward0;
    // the later-created one (a*3) runs first, as PyTorch's sequence_nr says.
    let a = leaf(&[1.0], &[]);
    let m1 = ok(a.mul(2.0));
    let m2 = ok(a.mul(3.0));
    let y = ok(m1.add(&m2));
    let (_, events) = crate::trace::trace(|| y.backward());
    let names: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            crate::trace::Event::Node { node, name, .. } => Some(format!("{name}#{}", node.0)),
            _ => None,
        })
        .collect();
    let m1_id = m1.grad_fn().unwrap().id.0;
    let m2_id = m2.grad_fn().unwrap().id.0;
    assert_eq!(
        names[0],
        format!("AddBackward0#{}", y.grad_fn().unwrap().id.0)
    );
    assert_eq!(names[1], format!("MulBackward0#{m2_id}"));
    // AccumulateGrad(a) has two dependencies, so it runs last.
    assert_eq!(names[2], format!("MulBackward0#{m1_id}"));
    assert_eq!(
        names[3],
        format!("AccumulateGrad#{}", a.grad_accumulator().unwrap().id.0)
    );
    assert_eq!(grad_values(&a), vec![5.0]);
}

#[test]
fn zero_dim_transpose_and_huge_broadcasts_do_not_panic() {
    // A panic is a wasm trap: these must be values or errors.
    let s = leaf(&[3.0], &[]);
    assert_eq!(values(&ok(s.t())), vec![3.0]);
    assert_eq!(values(&ok(s.transpose(0, -1))), vec![3.0]);
    let col = constant(&vec![1.0; 10_000], &[10_000, 1]);
    let row = constant(&vec![1.0; 10_000], &[1, 10_000]);
    assert!(col.add(&row).is_err()); // 10^8 elements > limit
    assert!(col.matmul(&row).is_err());
}

#[test]
fn long_chains_build_run_and_drop_without_deep_recursion() {
    let a = leaf(&[1.0], &[]);
    let mut y = a.clone();
    for _ in 0..100_000 {
        y = ok(y.add(1.0));
    }
    // Backward and dropping the chain must not recurse per node.
    ok(y.backward());
    assert_eq!(grad_values(&a), vec![1.0]);
    drop(y);
}

#[test]
fn views_share_storage_and_inplace_through_a_view_uses_copy_slices() {
    // x (no grad) and its views: an in-place write to the base shows in both.
    let x = constant(&[1.0, 2.0, 3.0, 4.0], &[2, 2]);
    let v = ok(x.reshape(&[4]));
    let t = ok(x.t());
    ok(x.add_(10.0));
    assert_eq!(values(&v), vec![11.0, 12.0, 13.0, 14.0]);
    assert_eq!(values(&t), vec![11.0, 13.0, 12.0, 14.0]);
    assert_eq!(v.version(), x.version());

    // c = a*2; v = c.reshape(4); v.mul_([1,2,3,4]); c.sum().backward():
    // c = [[2,8],[18,32]]; dc/da = 2 * [[1,2],[3,4]] (the multiplier).
    let a = leaf(&[1.0, 2.0, 3.0, 4.0], &[2, 2]);
    let c = ok(a.mul(2.0));
    let v = ok(c.reshape(&[4]));
    ok(v.mul_(&constant(&[1.0, 2.0, 3.0, 4.0], &[4])));
    assert_eq!(values(&c), vec![2.0, 8.0, 18.0, 32.0]);
    assert_eq!(c.grad_fn().unwrap().name, "CopySlices");
    assert_eq!(v.grad_fn().unwrap().name, "AsStridedBackward0");
    ok(ok(c.sum()).backward());
    assert_eq!(grad_values(&a), vec![2.0, 4.0, 6.0, 8.0]);

    // In-place on a view of a leaf that requires grad is PyTorch's error.
    let l = leaf(&[1.0, 2.0], &[2]);
    let lv = ok(l.reshape(&[2, 1]));
    assert_eq!(
        lv.add_(1.0).err().map(|e| e.to_string()).as_deref(),
        Some(crate::ops::inplace::VIEW_OF_LEAF_INPLACE_ERROR)
    );
}
