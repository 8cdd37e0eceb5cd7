//! The core against tests/fixtures/pytorch.json, what real PyTorch computed
//! (tests/fixtures/gen_fixtures.py), without the wasm: every case whose
//! program is data (a `js` expression, a plan) runs through
//! `fixture_expr`. The Node suite runs the same cases, and the hook
//! programs the JSON cannot express, against the built package; this file
//! lets a core change meet PyTorch's numbers under `cargo test` alone.
//!
//! Covered (8 scenarios, 286 cases): ops (70), ops2 (34), ops2_errors (14),
//! layout (37), inplace_nodes (10), node_execution_order (7), repr_more
//! (14), grad_versions_random_scalar_programs (100 programs). Every case of
//! each is run; a test fails if one is skipped.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use serde_json::{json, Value as Json};

use crate::fixture_expr::{eval, from_json, parse, tensor_from, Val};
use crate::hooks::NodePreHook;
use crate::node::NodeRef;
use crate::tensor::Tensor;

pub(crate) fn scenario(name: &str) -> Json {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/pytorch.json"
    );
    let text = std::fs::read_to_string(path).expect("tests/fixtures/pytorch.json");
    let mut all: Json = serde_json::from_str(&text).expect("pytorch.json parses");
    all["scenarios"][name].take()
}

/// The cases of a scenario, in the file's order.
fn cases(s: &Json) -> Vec<(String, Json)> {
    s["cases"]
        .as_object()
        .expect("cases")
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// Failures of one scenario, reported together (one failing case should
/// not hide the others).
#[derive(Default)]
struct Report {
    ran: usize,
    failures: Vec<String>,
}

impl Report {
    fn case(&mut self, name: &str, check: impl FnOnce() -> Result<(), String>) {
        self.ran += 1;
        if let Err(e) = check() {
            self.failures.push(format!("{name}: {e}"));
        }
    }
    fn finish(self, expected_cases: usize) {
        assert!(
            self.failures.is_empty(),
            "{} failing:\n{}",
            self.failures.len(),
            self.failures.join("\n")
        );
        assert_eq!(self.ran, expected_cases, "every case of the scenario ran");
    }
}

/// Runs `check` on every case of a scenario and reports the failures together.
fn check_scenario(scenario_name: &str, check: impl Fn(&Json) -> Result<(), String>) {
    let mut r = Report::default();
    let cs = cases(&scenario(scenario_name));
    for (name, c) in &cs {
        r.case(name, || check(c));
    }
    r.finish(cs.len());
}

fn err(e: crate::Error) -> String {
    format!("{} {}", e.kind(), e.message())
}

/// Numbers within the Node suite's tolerance (1e-4 relative + 1e-6).
fn close(actual: f32, expected: &Json) -> bool {
    match expected {
        Json::String(s) => format!("{actual}").to_lowercase() == s.to_lowercase(),
        Json::Number(n) => {
            let e = n.as_f64().unwrap_or(f64::NAN);
            ((actual as f64) - e).abs() <= 1e-4 * e.abs() + 1e-6
        }
        _ => false,
    }
}

/// A tensor (or its absence) against the fixture's nested numbers or null.
fn same_values(t: Option<&Tensor>, expected: &Json, what: &str) -> Result<(), String> {
    let (t, expected) = match (t, expected) {
        (None, Json::Null) => return Ok(()),
        (Some(t), e) if !e.is_null() => (t, e),
        (t, e) => {
            return Err(format!(
                "{what}: got {}, expected {e}",
                t.map_or("null".into(), |t| t.repr())
            ))
        }
    };
    let mut shape = Vec::new();
    let mut flat = Vec::new();
    let mut node = expected;
    while let Json::Array(items) = node {
        shape.push(items.len());
        node = items.first().unwrap_or(&Json::Null);
    }
    fn walk<'a>(j: &'a Json, out: &mut Vec<&'a Json>) {
        match j {
            Json::Array(items) => items.iter().for_each(|i| walk(i, out)),
            other => out.push(other),
        }
    }
    walk(expected, &mut flat);
    let data = t.data().map_err(err)?;
    let ok = data.shape() == shape.as_slice()
        && data.as_slice().len() == flat.len()
        && data.as_slice().iter().zip(&flat).all(|(a, e)| close(*a, e));
    if ok {
        Ok(())
    } else {
        Err(format!("{what}: got {}, expected {expected}", t.repr()))
    }
}

fn check_eq<T: PartialEq + std::fmt::Debug>(got: T, expected: T, what: &str) -> Result<(), String> {
    if got == expected {
        Ok(())
    } else {
        Err(format!("{what}: got {got:?}, expected {expected:?}"))
    }
}

fn usizes(j: &Json) -> Vec<usize> {
    j.as_array().map_or(Vec::new(), |a| {
        a.iter()
            .filter_map(Json::as_u64)
            .map(|v| v as usize)
            .collect()
    })
}

/// The backward graph below `node` in the fixture's tree shape, `depth` deep.
fn tree(node: Option<NodeRef>, depth: usize) -> Json {
    let Some(node) = node else { return Json::Null };
    if depth == 0 {
        return json!({"name": node.name, "next": "..."});
    }
    let next: Vec<Json> = node
        .next_functions()
        .into_iter()
        .map(|(n, nr)| json!([tree(n, depth - 1), nr]))
        .collect();
    json!({"name": node.name, "next": next})
}

/// PyTorch names AccumulateGrad by its C++ name; the contract by its type name.
fn norm_tree(t: &Json) -> Json {
    if t.is_null() {
        return Json::Null;
    }
    let name = t["name"]
        .as_str()
        .unwrap_or("")
        .trim_start_matches("torch::autograd::");
    match &t["next"] {
        Json::Array(next) => {
            json!({"name": name, "next": next.iter().map(|e| json!([norm_tree(&e[0]), e[1]])).collect::<Vec<_>>()})
        }
        other => json!({"name": name, "next": other}),
    }
}

fn depth(t: &Json) -> usize {
    match &t["next"] {
        Json::Array(next) if !t.is_null() => {
            1 + next.iter().map(|e| depth(&e[0])).max().unwrap_or(0)
        }
        _ => 0,
    }
}

fn same_tree(t: &Tensor, expected: &Json) -> Result<(), String> {
    let want = norm_tree(expected);
    let got = tree(t.grad_fn(), depth(expected));
    check_eq(got, want, "grad_fn tree")
}

fn run(js: &str, env: &HashMap<String, Val>) -> Result<Tensor, String> {
    match eval(&parse(js).map_err(err)?, env).map_err(err)? {
        Val::Tensor(t) => Ok(t),
        _ => Err(format!("{js} is not a tensor")),
    }
}

/// `out.backward(gradient)`, or the implicit 1 when the fixture's is null.
fn backward(out: &Tensor, gradient: &Json) -> Result<(), String> {
    let g = match gradient {
        Json::Null => None,
        g => Some(tensor_from(&from_json(g), false).map_err(err)?),
    };
    out.backward_with(g, false, None).map_err(err)
}

/// ops and ops2: inputs from the case, then value, tree, and leaf grads.
fn check_op_case(c: &Json, strides: bool) -> Result<(), String> {
    let inputs = c["inputs"].as_object().ok_or("inputs")?;
    let mut env = HashMap::new();
    let mut leaves = Vec::new();
    for (name, input) in inputs {
        let t = tensor_from(
            &from_json(&input["data"]),
            input["requires_grad"] == json!(true),
        )
        .map_err(err)?;
        env.insert(name.clone(), Val::Tensor(t.clone()));
        leaves.push((name.clone(), t));
    }
    let out = run(c["js"].as_str().ok_or("js")?, &env)?;
    check_eq(out.shape(), usizes(&c["shape"]), "shape")?;
    same_values(Some(&out), &c["out"], "output")?;
    check_eq(
        (out.requires_grad(), out.is_leaf()),
        (true, false),
        "(requires_grad, is_leaf)",
    )?;
    if strides {
        check_eq(out.strides(), usizes(&c["stride"]), "stride")?;
        check_eq(
            Some(out.is_contiguous()),
            c["contiguous"].as_bool(),
            "is_contiguous",
        )?;
    }
    same_tree(&out, &c["grad_fn"])?;
    backward(&out, &c["gradient"])?;
    for (name, t) in &leaves {
        same_values(
            t.grad_raw().as_ref(),
            &c["grads"][name],
            &format!("{name}.grad"),
        )?;
    }
    Ok(())
}

#[test]
fn ops_match_pytorch() {
    check_scenario("ops", |c| check_op_case(c, false));
}

#[test]
fn ops2_match_pytorch_with_strides() {
    check_scenario("ops2", |c| check_op_case(c, true));
}

#[test]
fn ops2_errors_are_pytorchs() {
    check_scenario("ops2_errors", |c| {
        let ones = |s: &[usize]| Tensor::full(s, 1.0, &Default::default()).map_err(err);
        let env = HashMap::from([
            ("a".to_string(), Val::Tensor(ones(&[2, 3])?)),
            ("b".to_string(), Val::Tensor(ones(&[2, 2])?)),
        ]);
        let e = match eval(&parse(c["js"].as_str().ok_or("js")?).map_err(err)?, &env) {
            Ok(_) => return Err("no error".into()),
            Err(e) => e,
        };
        // The core's Type covers Python's TypeError and ValueError.
        let class = c["error"]["class"]
            .as_str()
            .unwrap_or("")
            .replace("ValueError", "TypeError");
        check_eq(
            (e.kind(), e.message()),
            (class.as_str(), c["error"]["message"].as_str().unwrap_or("")),
            "error",
        )
    });
}

#[test]
fn layout_matches_pytorch() {
    let s = scenario("layout");
    let mut r = Report::default();
    let cs = cases(&s);
    for (name, c) in &cs {
        r.case(name, || {
            let names = ["x", "y", "b", "c"];
            let leaves: Vec<Tensor> = names
                .iter()
                .map(|n| tensor_from(&from_json(&s["inputs"][n]), true).map_err(err))
                .collect::<Result<_, _>>()?;
            let env = names
                .iter()
                .zip(&leaves)
                .map(|(n, t)| (n.to_string(), Val::Tensor(t.clone())))
                .collect();
            let out = run(c["js"].as_str().ok_or("js")?, &env)?;
            check_eq(out.shape(), usizes(&c["shape"]), "shape")?;
            check_eq(out.strides(), usizes(&c["stride"]), "stride")?;
            check_eq(
                Some(out.is_contiguous()),
                c["contiguous"].as_bool(),
                "is_contiguous",
            )?;
            same_values(Some(&out), &c["out"], "value")?;
            same_tree(&out, &c["grad_fn"])?;
            backward(&out, &c["gradient"])?;
            for (n, t) in names.iter().zip(&leaves) {
                same_values(t.grad_raw().as_ref(), &c["grads"][n], &format!("{n}.grad"))?;
            }
            if !c["x_grad_stride"].is_null() {
                let g = leaves[0].grad_raw().ok_or("x.grad")?;
                check_eq(g.strides(), usizes(&c["x_grad_stride"]), "x.grad stride")?;
            }
            Ok(())
        });
    }
    r.finish(cs.len());
}

#[test]
fn inplace_nodes_match_pytorch() {
    check_scenario("inplace_nodes", |c| {
        let a = tensor_from(&from_json(&json!([1.0, 2.0, 3.0])), true).map_err(err)?;
        let k = tensor_from(&from_json(&json!([0.5, -1.0, 2.0])), true).map_err(err)?;
        let t = a.mul(2.0).map_err(err)?;
        let env = HashMap::from([
            ("c".to_string(), Val::Tensor(t.clone())),
            ("k".to_string(), Val::Tensor(k.clone())),
        ]);
        let returned = run(c["js"].as_str().ok_or("js")?, &env)?;
        check_eq(
            Some(returned.ptr_eq(&t)),
            c["returns_self"].as_bool(),
            "returns self",
        )?;
        same_values(Some(&t), &c["c"], "value after the in-place op")?;
        check_eq(Some(t.is_leaf()), c["is_leaf"].as_bool(), "is_leaf")?;
        same_tree(&t, &c["grad_fn"])?;
        backward(&t, &c["gradient"])?;
        same_values(a.grad_raw().as_ref(), &c["a_grad"], "a.grad")?;
        same_values(k.grad_raw().as_ref(), &c["k_grad"], "k.grad")
    });
}

#[test]
fn nodes_run_in_pytorchs_order() {
    check_scenario("node_execution_order", |c| {
        let mut env = HashMap::new();
        let mut leaves = Vec::new();
        for (n, v) in c["leaves"].as_object().ok_or("leaves")? {
            let t = tensor_from(&from_json(v), true).map_err(err)?;
            env.insert(n.clone(), Val::Tensor(t.clone()));
            leaves.push((n.clone(), t));
        }
        let out = run(c["js"].as_str().ok_or("js")?, &env)?;
        // A pre-hook on every node, labelling AccumulateGrad with its leaf.
        let order = Rc::new(RefCell::new(Vec::<String>::new()));
        let mut seen = Vec::new();
        let mut stack = vec![out.grad_fn()];
        while let Some(node) = stack.pop() {
            let Some(node) = node else { continue };
            if seen.iter().any(|s: &NodeRef| Rc::ptr_eq(s, &node)) {
                continue;
            }
            let mut label = node.name.to_string();
            if let Some(v) = node.variable() {
                let leaf = leaves
                    .iter()
                    .find(|(_, t)| t.ptr_eq(&v))
                    .ok_or("an unknown leaf")?;
                label = format!("{label}:{}", leaf.0);
            }
            let log = order.clone();
            let hook: Rc<dyn NodePreHook> = Rc::new(move |_: &[Option<Tensor>]| {
                log.borrow_mut().push(label.clone());
                Ok(None)
            });
            node.register_prehook(hook);
            stack.extend(node.next_functions().into_iter().map(|(n, _)| n));
            seen.push(node);
        }
        // Root gradient: ones (the implicit 1 for a 0-d root).
        let ones = match out.shape().as_slice() {
            [] => None,
            shape => Some(Tensor::full(shape, 1.0, &Default::default()).map_err(err)?),
        };
        out.backward_with(ones, false, None).map_err(err)?;
        let want: Vec<String> = c["order"]
            .as_array()
            .ok_or("order")?
            .iter()
            .filter_map(|s| s.as_str().map(String::from))
            .collect();
        check_eq(order.borrow().clone(), want, "node execution order")?;
        for (n, t) in &leaves {
            same_values(t.grad_raw().as_ref(), &c["grads"][n], &format!("{n}.grad"))?;
        }
        Ok(())
    });
}

#[test]
fn repr_is_pytorchs() {
    check_scenario("repr_more", |c| {
        let t = run(c["js"].as_str().ok_or("js")?, &HashMap::new())?;
        check_eq(t.repr().as_str(), c["repr"].as_str().unwrap_or(""), "repr")
    });
}

/// 0-d programs of add/sub/mul/tanh (the scalar fast path): the version of
/// each leaf's `.grad` after backward says whether the engine stole the
/// incoming gradient or accumulated into a buffer, exactly as PyTorch.
#[test]
fn grad_versions_of_random_scalar_programs_are_pytorchs() {
    let s = scenario("grad_versions_random_scalar_programs");
    let programs = s["programs"].as_array().expect("programs");
    let mut r = Report::default();
    for p in programs {
        let plan = p["plan"].as_str().unwrap_or("");
        r.case(plan, || {
            let leaves: Vec<Tensor> = s["leaves"]
                .as_array()
                .ok_or("leaves")?
                .iter()
                .map(|v| tensor_from(&from_json(v), true).map_err(err))
                .collect::<Result<_, _>>()?;
            let mut vals = leaves.clone();
            for step in plan.split(", ") {
                let n: Vec<usize> = step.split(' ').filter_map(|x| x.parse().ok()).collect();
                let (a, b) = (
                    vals[n[1] % vals.len()].clone(),
                    vals[n[2] % vals.len()].clone(),
                );
                let v = match n[0] {
                    0 | 1 => a.add(&b),
                    2 => a.sub(&b),
                    3 => a.mul(&b),
                    4 => a.add(0.5),
                    5 => a.sub(0.25),
                    _ => a.tanh(),
                };
                vals.push(v.map_err(err)?);
            }
            let mut root = vals[3].clone();
            for v in &vals[4..] {
                root = root.add(v).map_err(err)?;
            }
            root.mul(2.0).and_then(|r| r.backward()).map_err(err)?;
            let got: Vec<Option<u64>> = leaves
                .iter()
                .map(|t| t.grad_raw().map(|g| g.version() as u64))
                .collect();
            let want: Vec<Option<u64>> = p["versions"]
                .as_array()
                .ok_or("versions")?
                .iter()
                .map(Json::as_u64)
                .collect();
            check_eq(got, want, "leaf .grad versions")
        });
    }
    r.finish(programs.len());
}
