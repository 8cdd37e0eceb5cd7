//! `graph()` and `trace()` as plain JS objects (no wasm handles), so the
//! playground can post them between workers and replay them freely. They are
//! written as one JSON string and parsed once: creating each field through
//! the wasm boundary was ~10× slower for a 1,000-node graph.

use wasm_bindgen::prelude::*;

use hookgrad_core::graph::{GraphInfo, HookInfo};
use hookgrad_core::json::JsonWriter;
use hookgrad_core::trace::{Event, HookTarget, HookValue};

fn hooks(w: &mut JsonWriter, h: &[HookInfo]) {
    w.list(h, |w, h| {
        w.raw("{");
        w.key("handle");
        w.uint(u64::from(h.handle.0));
        w.raw(",");
        w.key("kind");
        w.string(h.kind);
        w.raw(",");
        w.key("name");
        w.string(&h.name);
        w.raw("}");
    });
}

fn ids(w: &mut JsonWriter, items: impl IntoIterator<Item = u32>) {
    w.list(items, |w, id| w.uint(u64::from(id)));
}

pub fn write_graph(w: &mut JsonWriter, g: &GraphInfo) {
    w.raw("{");
    w.key("tensors");
    w.list(&g.tensors, |w, t| {
        w.raw("{");
        w.key("id");
        w.uint(u64::from(t.id.0));
        w.raw(",");
        w.key("name");
        match &t.name {
            Some(n) => w.string(n),
            None => w.raw("null"),
        }
        w.raw(",");
        w.key("shape");
        ids(w, t.shape.iter().map(|d| *d as u32));
        w.raw(",");
        w.key("data");
        w.array(&t.data);
        w.raw(",");
        w.key("requiresGrad");
        w.bool(t.requires_grad);
        w.raw(",");
        w.key("isLeaf");
        w.bool(t.is_leaf);
        w.raw(",");
        w.key("retainsGrad");
        w.bool(t.retains_grad);
        w.raw(",");
        w.key("gradFn");
        w.opt_uint(t.grad_fn.map(|n| u64::from(n.0)));
        w.raw(",");
        w.key("grad");
        w.opt_array(&t.grad);
        w.raw(",");
        w.key("hooks");
        hooks(w, &t.hooks);
        w.raw("}");
    });
    w.raw(",");
    w.key("nodes");
    w.list(&g.nodes, |w, n| {
        w.raw("{");
        w.key("id");
        w.uint(u64::from(n.id.0));
        w.raw(",");
        w.key("name");
        w.string(n.name);
        w.raw(",");
        w.key("next");
        w.list(&n.next, |w, (node, nr)| {
            w.raw("{");
            w.key("node");
            w.opt_uint(node.map(|x| u64::from(x.0)));
            w.raw(",");
            w.key("inputNr");
            w.uint(*nr as u64);
            w.raw("}");
        });
        w.raw(",");
        w.key("variable");
        w.opt_uint(n.variable.map(|v| u64::from(v.0)));
        w.raw(",");
        w.key("preHooks");
        hooks(w, &n.pre_hooks);
        w.raw(",");
        w.key("postHooks");
        hooks(w, &n.post_hooks);
        w.raw("}");
    });
    w.raw("}");
}

fn hook_value(w: &mut JsonWriter, v: &HookValue) {
    match v {
        HookValue::One(a) => w.opt_array(a),
        HookValue::Many(items) => arrays(w, items),
    }
}

fn arrays(w: &mut JsonWriter, items: &[Option<hookgrad_core::tensor::Array>]) {
    w.list(items, |w, a| w.opt_array(a));
}

pub fn write_event(w: &mut JsonWriter, e: &Event) {
    w.raw("{");
    w.key("type");
    match e {
        Event::Op {
            node,
            name,
            inputs,
            output,
        } => {
            w.raw("\"op\",");
            w.key("node");
            w.uint(u64::from(node.0));
            w.raw(",");
            w.key("name");
            w.string(name);
            w.raw(",");
            w.key("inputs");
            ids(w, inputs.iter().map(|t| t.0));
            w.raw(",");
            w.key("output");
            w.uint(u64::from(output.0));
        }
        Event::Module {
            module,
            module_id,
            phase,
        } => {
            w.raw("\"module\",");
            w.key("module");
            w.string(module);
            w.raw(",");
            w.key("moduleId");
            w.uint(u64::from(module_id.0));
            w.raw(",");
            w.key("phase");
            w.string(phase);
        }
        Event::Node {
            node,
            name,
            grad_outputs,
            grad_inputs,
        } => {
            w.raw("\"node\",");
            w.key("node");
            w.uint(u64::from(node.0));
            w.raw(",");
            w.key("name");
            w.string(name);
            w.raw(",");
            w.key("gradOutputs");
            arrays(w, grad_outputs);
            w.raw(",");
            w.key("gradInputs");
            arrays(w, grad_inputs);
        }
        Event::Hook {
            kind,
            handle,
            target,
            before,
            after,
        } => {
            w.raw("\"hook\",");
            w.key("kind");
            w.string(kind);
            w.raw(",");
            w.key("handle");
            w.uint(u64::from(handle.0));
            w.raw(",");
            match target {
                HookTarget::Tensor(t) => {
                    w.key("tensor");
                    w.uint(u64::from(t.0));
                }
                HookTarget::Node(n) => {
                    w.key("node");
                    w.uint(u64::from(n.0));
                }
                HookTarget::Saved(t, n) => {
                    w.key("tensor");
                    w.uint(u64::from(t.0));
                    w.raw(",");
                    w.key("node");
                    w.uint(u64::from(n.0));
                }
                HookTarget::Tensors(ts) => {
                    w.key("tensors");
                    w.raw("[");
                    for (i, t) in ts.iter().enumerate() {
                        if i > 0 {
                            w.raw(",");
                        }
                        w.uint(u64::from(t.0));
                    }
                    w.raw("]");
                }
                HookTarget::Module(id, name, node) => {
                    w.key("module");
                    w.string(name);
                    w.raw(",");
                    w.key("moduleId");
                    w.uint(u64::from(id.0));
                    if let Some(n) = node {
                        w.raw(",");
                        w.key("node");
                        w.uint(u64::from(n.0));
                    }
                }
            }
            w.raw(",");
            w.key("before");
            hook_value(w, before);
            w.raw(",");
            w.key("after");
            hook_value(w, after);
        }
        Event::Accumulate { tensor, grad } => {
            w.raw("\"accumulate\",");
            w.key("tensor");
            w.uint(u64::from(tensor.0));
            w.raw(",");
            w.key("grad");
            w.array(grad);
        }
        Event::Warning { message } => {
            w.raw("\"warning\",");
            w.key("message");
            w.string(message);
        }
        Event::Error { message, node } => {
            w.raw("\"error\",");
            w.key("message");
            w.string(message);
            if let Some(n) = node {
                w.raw(",");
                w.key("node");
                w.uint(u64::from(n.0));
            }
        }
    }
    w.raw("}");
}

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = JSON, js_name = parse, catch)]
    fn json_parse_with_reviver(text: &str, reviver: &js_sys::Function) -> Result<JsValue, JsValue>;
}

thread_local! {
    static REVIVER: js_sys::Function = js_sys::Function::new_with_args(
        "k, v",
        "return v === '\\u0000NaN' ? NaN : v === '\\u0000Infinity' ? Infinity : v === '\\u0000-Infinity' ? -Infinity : v",
    );
}

/// Parses what a writer produced (reviving non-finite numbers if any).
pub fn parse(w: &JsonWriter) -> Result<JsValue, JsValue> {
    if w.has_nonfinite {
        REVIVER.with(|r| json_parse_with_reviver(&w.out, r))
    } else {
        js_sys::JSON::parse(&w.out)
    }
}

pub fn graph_to_js(g: &GraphInfo) -> Result<JsValue, JsValue> {
    let mut w = JsonWriter::default();
    write_graph(&mut w, g);
    parse(&w)
}

pub fn events_to_js(events: &[Event]) -> Result<JsValue, JsValue> {
    let mut w = JsonWriter::default();
    w.list(events, write_event);
    parse(&w)
}
