//! The trace tells a backward step in the order PyTorch runs it
//! (engine.cpp `call_function`): tensor pre-hooks → retain-grad → node
//! pre-hooks → the node computes (its `node` event) → node post-hooks
//! (the legacy module hook is one) — and for AccumulateGrad: its `node`
//! event → `.grad` written → post-accumulate-grad hooks → its post-hooks.
//! Expected orders and values are worked out by hand in the comments.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::rc::Rc;

use crate::hooks::{NodePostHook, NodePreHook, PostAccumulateGradHook, TensorHook};
use crate::module::{Module, ModuleBackwardHook, ModuleForward, Value};
use crate::tensor::Tensor;
use crate::testing::*;
use crate::trace::{Event, GradList, HookTarget, HookValue};

/// One line per event: "node Name#id [grad_inputs]", "hook kind @target",
/// "acc #tensor v" — enough to compare orders and the values that matter.
fn lines(events: &[Event]) -> Vec<String> {
    let vals = |g: &GradList| -> String {
        let v: Vec<String> = g
            .iter()
            .map(|x| x.map_or("None".into(), |(_, d)| format!("{d:?}")))
            .collect();
        v.join(",")
    };
    let many = |h: &HookValue| match h {
        HookValue::Many(v) => v
            .iter()
            .map(|a| {
                a.as_ref().map_or("None".into(), |a| {
                    format!("{:?}", a.iter().collect::<Vec<_>>())
                })
            })
            .collect::<Vec<_>>()
            .join(","),
        HookValue::One(a) => a.as_ref().map_or("None".into(), |a| {
            format!("{:?}", a.iter().collect::<Vec<_>>())
        }),
    };
    events
        .iter()
        .filter_map(|e| match e {
            Event::Node {
                node,
                name,
                grad_inputs,
                ..
            } => Some(format!("node {name}#{} [{}]", node.0, vals(grad_inputs))),
            Event::Hook {
                kind,
                target,
                before,
                after,
                ..
            } => {
                let at = match target {
                    HookTarget::Tensor(t, _) => format!("t{}", t.0),
                    HookTarget::Node(n) => format!("n{}", n.0),
                    HookTarget::Module(_, name, n) => format!("{name}@n{}", n.map_or(0, |n| n.0)),
                    _ => "?".into(),
                };
                Some(format!(
                    "hook {} @{at} [{}] -> [{}]",
                    kind.as_str(),
                    many(before),
                    many(after)
                ))
            }
            Event::Accumulate { tensor, grad } => Some(format!(
                "acc t{} {:?}",
                tensor.0,
                grad.iter().collect::<Vec<_>>()
            )),
            _ => None,
        })
        .collect()
}

#[test]
fn a_node_event_comes_before_its_post_hooks_and_after_its_pre_hooks() {
    // c = a*b (a=2, b=3), e = c*2, e.backward():
    // MulBackward0(e) ran → c's tensor hook (2 → 2) → c's node pre-hook →
    // MulBackward0(c) ran with grad_inputs (2*3, 2*2) = (6, 4) — what the node
    // computed — → its post-hook turns them into (60, 4).
    let a = leaf(&[2.0], &[]);
    let b = leaf(&[3.0], &[]);
    let c = ok(a.mul(&b));
    let fc = c.grad_fn().unwrap();
    let th: Rc<dyn TensorHook> = Rc::new(|_: &Tensor| Ok(None));
    ok(c.register_hook(th));
    let pre: Rc<dyn NodePreHook> = Rc::new(|_: &[Option<Tensor>]| Ok(None));
    fc.register_prehook(pre);
    let post: Rc<dyn NodePostHook> = Rc::new(|gi: &[Option<Tensor>], _: &[Option<Tensor>]| {
        Ok(Some(vec![
            gi[0].as_ref().map(|t| t.mul(10.0).unwrap()),
            gi[1].clone(),
        ]))
    });
    fc.register_hook(post);
    let e = ok(c.mul(2.0));
    let fe = e.grad_fn().unwrap();
    let (r, events) = crate::trace::trace(|| e.backward());
    ok(r);
    let got = lines(&events);
    let (ne, nc, tc) = (fe.id.0, fc.id.0, c.id().0);
    let want = [
        format!("node MulBackward0#{ne} [[2.0],None]"),
        format!("hook tensor @t{tc} [[2.0]] -> [[2.0]]"),
        format!("hook node-pre @n{nc} [[2.0]] -> [[2.0]]"),
        format!("node MulBackward0#{nc} [[6.0],[4.0]]"),
        format!("hook node-post @n{nc} [[6.0],[4.0]] -> [[60.0],[4.0]]"),
    ];
    assert_eq!(got[..5], want[..]);
    assert_eq!(grad_values(&a), vec![60.0]);
}

#[test]
fn accumulate_grad_runs_then_writes_grad_then_its_hooks() {
    // a=2, y = a*5, y.backward(): a's tensor hook (5 → 1005) → AccumulateGrad
    // pre-hook → AccumulateGrad ran (no grad_inputs) → a.grad = 1005 →
    // post-accumulate-grad hook (sees 1005) → AccumulateGrad post-hook.
    let a = leaf(&[2.0], &[]);
    let th: Rc<dyn TensorHook> = Rc::new(|g: &Tensor| Ok(Some(g.add(1000.0)?)));
    ok(a.register_hook(th));
    let pah: Rc<dyn PostAccumulateGradHook> = Rc::new(|_: &Tensor| Ok(()));
    ok(a.register_post_accumulate_grad_hook(pah));
    let y = ok(a.mul(5.0));
    let acc = y.grad_fn().unwrap().next_functions()[0].0.clone().unwrap();
    let pre: Rc<dyn NodePreHook> = Rc::new(|_: &[Option<Tensor>]| Ok(None));
    acc.register_prehook(pre);
    let post: Rc<dyn NodePostHook> = Rc::new(|_: &[Option<Tensor>], _: &[Option<Tensor>]| Ok(None));
    acc.register_hook(post);
    let (r, events) = crate::trace::trace(|| y.backward());
    ok(r);
    let (n, t, ny) = (acc.id.0, a.id().0, y.grad_fn().unwrap().id.0);
    assert_eq!(
        lines(&events),
        vec![
            format!("node MulBackward0#{ny} [[5.0],None]"),
            format!("hook tensor @t{t} [[5.0]] -> [[1005.0]]"),
            format!("hook node-pre @n{n} [[1005.0]] -> [[1005.0]]"),
            format!("node AccumulateGrad#{n} []"),
            format!("acc t{t} [1005.0]"),
            format!("hook post-accumulate @t{t} [[1005.0]] -> [[1005.0]]"),
            format!("hook node-post @n{n} [] -> []"),
        ]
    );
}

#[test]
fn the_legacy_module_hook_follows_the_node_it_reports() {
    // Mul3(x=2, y=3, z=4) = (x*y)*z; its legacy hook sits on the last
    // MulBackward0 and sees that node's grad_inputs (∂out/∂(x·y) = z = 4,
    // ∂out/∂z = x·y = 6): the node's event (4, 6) comes first, then the hook.
    let m = Module::new(
        "Mul3",
        Rc::new(|args: &[Value], _: Option<&Value>| {
            let t: Vec<Tensor> = args.iter().filter_map(|a| a.as_tensor().cloned()).collect();
            Ok(Value::Tensor(t[0].mul(&t[1])?.mul(&t[2])?))
        }) as Rc<dyn ModuleForward>,
    );
    let hook: Rc<dyn ModuleBackwardHook> =
        Rc::new(|_: &[Option<Tensor>], _: &[Option<Tensor>]| Ok(None));
    ok(m.register_backward_hook(hook));
    let xs: Vec<Tensor> = [2.0, 3.0, 4.0].iter().map(|v| leaf(&[*v], &[])).collect();
    let out = ok(m.call(xs.iter().map(|t| Value::Tensor(t.clone())).collect(), None));
    let out = out.as_tensor().unwrap().clone();
    let last = out.grad_fn().unwrap().id.0;
    let (r, events) = crate::trace::trace(|| out.backward());
    ok(r);
    let got = lines(&events);
    let node = got
        .iter()
        .position(|l| l.starts_with(&format!("node MulBackward0#{last} ")));
    let hook = got
        .iter()
        .position(|l| l.starts_with("hook module-backward"));
    assert_eq!(
        got[node.unwrap()],
        format!("node MulBackward0#{last} [[4.0],[6.0]]")
    );
    assert_eq!(hook, node.map(|i| i + 1), "{got:#?}");
    assert!(
        got[hook.unwrap()].ends_with("[[4.0],[6.0]] -> [[4.0],[6.0]]"),
        "{got:#?}"
    );
}

#[test]
fn a_module_call_is_named_by_its_caller_as_named_modules_names_it() {
    // Net(encoder: Linear-like, head: Linear-like, blocks: [Block]) —
    // PyTorch's net.named_modules() names them 'encoder', 'head' and
    // 'blocks.0'; Net itself, called by the program, has no such name.
    let scale = |name: &str, k: f32| -> Module {
        Module::new(
            name,
            Rc::new(move |args: &[Value], _: Option<&Value>| {
                Ok(Value::Tensor(args[0].as_tensor().unwrap().mul(k)?))
            }) as Rc<dyn ModuleForward>,
        )
    };
    let (encoder, head, block) = (
        scale("Linear", 2.0),
        scale("Linear", 3.0),
        scale("Block", 5.0),
    );
    let blocks = Module::new(
        "ModuleList",
        Rc::new(|_: &[Value], _: Option<&Value>| Ok(Value::None)) as Rc<dyn ModuleForward>,
    );
    ok(blocks.add_module("0", block.clone()));
    let (e, h, b) = (encoder.clone(), head.clone(), block.clone());
    let net = Module::new(
        "Net",
        Rc::new(move |args: &[Value], _: Option<&Value>| {
            let x = e.call(vec![args[0].clone()], None)?;
            let x = b.call(vec![x], None)?;
            h.call(vec![x], None)
        }) as Rc<dyn ModuleForward>,
    );
    ok(net.add_module("encoder", encoder));
    ok(net.add_module("blocks", blocks));
    ok(net.add_module("head", head));
    let x = leaf(&[1.0], &[]);
    let (r, events) =
        crate::trace::trace(|| net.call(vec![Value::Tensor(x.clone())], None).map(|_| ()));
    ok(r);
    let pre: Vec<(String, Option<String>)> = events
        .iter()
        .filter_map(|e| match e {
            Event::Module {
                module,
                phase: crate::trace::ModulePhase::PreHook,
                path,
                ..
            } => Some((module.clone(), path.clone())),
            _ => None,
        })
        .collect();
    let want = |m: &str, p: Option<&str>| (m.to_string(), p.map(str::to_string));
    assert_eq!(
        pre,
        vec![
            want("Net", None),
            want("Linear", Some("encoder")),
            want("Block", Some("blocks.0")),
            want("Linear", Some("head"))
        ]
    );
    // Every phase of a call carries its path; untraced calls keep no callers.
    assert!(events
        .iter()
        .all(|e| !matches!(e, Event::Module { module, path: None, .. } if module != "Net")));
    let again = ok(net.call(vec![Value::Tensor(x)], None));
    assert!(again.as_tensor().is_some());
}
