//! `graph()` and `trace()` as plain JS objects (no wasm handles), so the
//! playground can post them between workers and replay them freely.

use js_sys::{Array as JsArray, Object, Reflect};
use wasm_bindgen::prelude::*;

use super::convert::{array_to_js, opt_array_to_js};
use crate::graph::{GraphInfo, HookInfo};
use crate::trace::{Event, HookTarget, HookValue};

fn obj(fields: &[(&str, JsValue)]) -> JsValue {
    let o = Object::new();
    for (k, v) in fields {
        let _ = Reflect::set(&o, &(*k).into(), v);
    }
    o.into()
}

fn num(n: u32) -> JsValue {
    JsValue::from_f64(n as f64)
}

fn opt_num(n: Option<u32>) -> JsValue {
    n.map(num).unwrap_or(JsValue::NULL)
}

fn list<T>(items: impl IntoIterator<Item = T>, f: impl Fn(T) -> JsValue) -> JsValue {
    items.into_iter().map(f).collect::<JsArray>().into()
}

fn hooks(h: &[HookInfo]) -> JsValue {
    list(h, |h| {
        obj(&[
            ("handle", num(h.handle.0)),
            ("kind", h.kind.into()),
            ("name", h.name.clone().into()),
        ])
    })
}

pub fn graph_to_js(g: &GraphInfo) -> JsValue {
    let tensors = list(&g.tensors, |t| {
        obj(&[
            ("id", num(t.id.0)),
            (
                "name",
                t.name.clone().map(JsValue::from).unwrap_or(JsValue::NULL),
            ),
            ("shape", list(&t.shape, |d| num(*d as u32))),
            ("data", array_to_js(&t.data)),
            ("requiresGrad", t.requires_grad.into()),
            ("isLeaf", t.is_leaf.into()),
            ("retainsGrad", t.retains_grad.into()),
            ("gradFn", opt_num(t.grad_fn.map(|n| n.0))),
            ("grad", opt_array_to_js(&t.grad)),
            ("hooks", hooks(&t.hooks)),
        ])
    });
    let nodes = list(&g.nodes, |n| {
        obj(&[
            ("id", num(n.id.0)),
            ("name", n.name.into()),
            (
                "next",
                list(&n.next, |(node, nr)| {
                    obj(&[
                        ("node", opt_num(node.map(|x| x.0))),
                        ("inputNr", num(*nr as u32)),
                    ])
                }),
            ),
            ("variable", opt_num(n.variable.map(|v| v.0))),
            ("preHooks", hooks(&n.pre_hooks)),
            ("postHooks", hooks(&n.post_hooks)),
        ])
    });
    obj(&[("tensors", tensors), ("nodes", nodes)])
}

fn hook_value(v: &HookValue) -> JsValue {
    match v {
        HookValue::One(a) => opt_array_to_js(a),
        HookValue::Many(items) => list(items, opt_array_to_js),
    }
}

pub fn event_to_js(e: &Event) -> JsValue {
    match e {
        Event::Op {
            node,
            name,
            inputs,
            output,
        } => obj(&[
            ("type", "op".into()),
            ("node", num(node.0)),
            ("name", (*name).into()),
            ("inputs", list(inputs, |t| num(t.0))),
            ("output", num(output.0)),
        ]),
        Event::Module {
            module,
            module_id,
            phase,
        } => obj(&[
            ("type", "module".into()),
            ("module", module.clone().into()),
            ("moduleId", num(module_id.0)),
            ("phase", (*phase).into()),
        ]),
        Event::Node {
            node,
            name,
            grad_outputs,
            grad_inputs,
        } => obj(&[
            ("type", "node".into()),
            ("node", num(node.0)),
            ("name", (*name).into()),
            ("gradOutputs", list(grad_outputs, opt_array_to_js)),
            ("gradInputs", list(grad_inputs, opt_array_to_js)),
        ]),
        Event::Hook {
            kind,
            handle,
            target,
            before,
            after,
        } => {
            let (key, val, extra): (&str, JsValue, Option<(&str, JsValue)>) = match target {
                HookTarget::Tensor(t) => ("tensor", num(t.0), None),
                HookTarget::Node(n) => ("node", num(n.0), None),
                HookTarget::Module(id, name) => {
                    ("module", name.clone().into(), Some(("moduleId", num(id.0))))
                }
            };
            let mut fields = vec![
                ("type", JsValue::from("hook")),
                ("kind", (*kind).into()),
                ("handle", num(handle.0)),
                (key, val),
                ("before", hook_value(before)),
                ("after", hook_value(after)),
            ];
            if let Some(x) = extra {
                fields.push(x);
            }
            obj(&fields)
        }
        Event::Accumulate { tensor, grad } => obj(&[
            ("type", "accumulate".into()),
            ("tensor", num(tensor.0)),
            ("grad", array_to_js(grad)),
        ]),
        Event::Warning { message } => obj(&[
            ("type", "warning".into()),
            ("message", message.clone().into()),
        ]),
        Event::Error { message, node } => {
            let mut fields = vec![
                ("type", JsValue::from("error")),
                ("message", message.clone().into()),
            ];
            if let Some(n) = node {
                fields.push(("node", num(n.0)));
            }
            obj(&fields)
        }
    }
}
