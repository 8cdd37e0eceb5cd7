//! The declarations' JSON, their tape, and the generated files.

#![allow(clippy::panic)]

use super::*;
use crate::ids::{HandleId, ModuleId, NodeId, TensorId};
use crate::tensor::Array;

fn arr(shape: &[usize], v: Vec<f32>) -> Array {
    Array::from_shape_vec(shape, v).unwrap_or_default()
}

#[test]
fn values_nest_and_keep_f32_exactly() {
    let j = to_json(&arr(&[2, 2], vec![1.0, 2.0, 3.0, 4.5]));
    assert_eq!(
        j.map(|j| j.text).ok().as_deref(),
        Some("[[1.0,2.0],[3.0,4.5]]")
    );
    // 0.1f32 widened: what `t.item()` returns, not the decimal 0.1.
    let j = to_json(&arr(&[], vec![0.1])).map(|j| j.text);
    assert_eq!(j.ok().as_deref(), Some("0.10000000149011612"));
    // A transposed (non-row-major) array still prints in logical order.
    let t = arr(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]).reversed_axes();
    let j = to_json(&t).map(|j| j.text);
    assert_eq!(j.ok().as_deref(), Some("[[1.0,3.0],[2.0,4.0]]"));
}

#[test]
fn non_finite_values_become_flagged_sentinels() {
    let e = Event::Accumulate {
        tensor: TensorId(3),
        grad: arr(&[3], vec![f32::NAN, f32::INFINITY, f32::NEG_INFINITY]),
    };
    let j = to_json(&e).ok();
    assert_eq!(
        j.as_ref().map(|j| j.text.as_str()),
        Some(
            r#"{"type":"accumulate","tensor":3,"grad":["\u0000NaN","\u0000Infinity","\u0000-Infinity"]}"#
        )
    );
    assert_eq!(j.map(|j| j.has_nonfinite), Some(true));
    let j = to_json(&arr(&[1], vec![1.0])).ok();
    assert_eq!(j.map(|j| j.has_nonfinite), Some(false));
}

#[test]
fn events_use_the_contract_names() {
    let hook = Event::Hook {
        kind: HookKind::ModuleFullBackward,
        handle: HandleId(7),
        name: "show".into(),
        target: HookTarget::Module(ModuleId(2), "Mul3".into(), Some(NodeId(9))),
        before: HookValue::Many(vec![None, Some(arr(&[], vec![2.0]))]),
        after: HookValue::One(None),
    };
    let module = Event::Module {
        module: "net".into(),
        module_id: ModuleId(1),
        phase: ModulePhase::PreHook,
        path: None,
    };
    let log = Event::Log {
        level: LogLevel::Warn,
        text: "a \"b\"\n".into(),
        hook: Some(HandleId(7)),
    };
    let node = Event::Node {
        node: NodeId(4),
        name: "MulBackward0",
        grad_outputs: GradList::from_arrays(&[Some(arr(&[], vec![1.0]))]),
        grad_inputs: GradList::from_arrays(&[None]),
    };
    let j = to_json(&[hook, module, log, node]).map(|j| j.text);
    assert_eq!(
        j.ok().as_deref(),
        Some(concat!(
            r#"[{"type":"hook","kind":"module-full-backward","handle":7,"name":"show","moduleId":2,"module":"Mul3","node":9,"before":[null,2.0],"after":null},"#,
            r#"{"type":"module","module":"net","moduleId":1,"phase":"pre-hook"},"#,
            r#"{"type":"log","level":"warn","text":"a \"b\"\n","hook":7},"#,
            r#"{"type":"node","node":4,"name":"MulBackward0","gradOutputs":[1.0],"gradInputs":[null]}]"#
        ))
    );
}

#[test]
fn a_grad_set_event_is_kebab_case_with_its_value_or_null() {
    let set = Event::GradSet {
        tensor: TensorId(5),
        grad: Some(arr(&[2], vec![0.5, -1.0])),
    };
    let cleared = Event::GradSet {
        tensor: TensorId(5),
        grad: None,
    };
    let j = to_json(&[set, cleared]).map(|j| j.text);
    assert_eq!(
        j.ok().as_deref(),
        Some(concat!(
            r#"[{"type":"grad-set","tensor":5,"grad":[0.5,-1.0]},"#,
            r#"{"type":"grad-set","tensor":5,"grad":null}]"#
        ))
    );
}

#[test]
fn a_grad_list_serializes_as_the_list_of_arrays_it_holds() {
    let arrays = vec![
        Some(arr(&[2, 2], vec![1.0, 2.0, 3.0, 4.5])),
        None,
        Some(arr(&[], vec![0.1])),
        Some(arr(&[0], vec![])),
        Some(arr(&[3], vec![f32::NAN, 1.0, -0.0])),
        // Not row-major: still in logical order.
        Some(arr(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]).reversed_axes()),
    ];
    let list = GradList::from_arrays(&arrays);
    let lists = |j: crate::error::Result<Json>| j.map(|j| (j.text, j.has_nonfinite)).ok();
    assert_eq!(
        lists(to_json(&list)),
        lists(to_json(&HookValue::Many(arrays.clone())))
    );
    assert_eq!(list.len(), 6);
    let back = list.to_arrays();
    assert_eq!(back.len(), arrays.len());
    for (a, b) in back.iter().zip(&arrays) {
        let bits = |x: &Option<Array>| {
            x.as_ref().map(|x| {
                (
                    x.shape().to_vec(),
                    x.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                )
            })
        };
        assert_eq!(bits(a), bits(b));
    }
}

#[test]
fn as_str_names_are_serde_s() {
    let quoted = |s: &str| Some(format!("\"{s}\""));
    for &k in HookKind::ALL {
        assert_eq!(to_json(&k).map(|j| j.text).ok(), quoted(k.as_str()));
    }
    for &p in ModulePhase::ALL {
        assert_eq!(to_json(&p).map(|j| j.text).ok(), quoted(p.as_str()));
    }
    for &l in LogLevel::ALL {
        assert_eq!(to_json(&l).map(|j| j.text).ok(), quoted(l.as_str()));
    }
}

#[test]
fn hook_kinds_keep_their_strings() {
    let j = to_json(HookKind::ALL).map(|j| j.text);
    assert_eq!(
        j.ok().as_deref(),
        Some(concat!(
            r#"["tensor","retain-grad","node-pre","node-post","post-accumulate","module-pre","#,
            r#""module-forward","module-backward","module-full-backward","module-full-backward-pre","#,
            r#""pack","unpack","multi-grad"]"#
        ))
    );
}

// ----- the tape, read back by the declarations -----------------------------------

/// Reads a tape as the generated JS decoder does, from the same declarations
/// (numbers as f64: JSON's integers and floats compare alike).
struct Reader<'a> {
    words: &'a [f64],
    strings: &'a [String],
    at: usize,
    decls: Vec<schema::Decl>,
}

impl Reader<'_> {
    fn word(&mut self) -> f64 {
        let w = self.words.get(self.at).copied().unwrap_or(f64::NAN);
        self.at += 1;
        w
    }

    fn shape(&self, name: &str) -> schema::Shape {
        let d = self.decls.iter().find(|d| d.rust == name);
        d.map(|d| d.shape.clone())
            .unwrap_or(schema::Shape::Names(vec![]))
    }

    fn value(&mut self, ty: &schema::Ty) -> serde_json::Value {
        use schema::{Shape, Ty};
        use serde_json::Value;
        match ty {
            Ty::Int => Value::from(self.word()),
            Ty::Bool => Value::from(self.word() == 1.0),
            Ty::Str => Value::from(self.strings[self.word() as usize].clone()),
            Ty::Values => {
                let nd = self.word() as usize;
                let dims: Vec<usize> = (0..nd).map(|_| self.word() as usize).collect();
                self.nested(&dims)
            }
            Ty::Opt(inner) => {
                if self.words.get(self.at) == Some(&-1.0) {
                    self.at += 1;
                    Value::Null
                } else {
                    self.value(inner)
                }
            }
            Ty::List(item) => {
                let n = self.word() as usize;
                Value::Array((0..n).map(|_| self.value(item)).collect())
            }
            Ty::Ref(name) => match self.shape(name) {
                Shape::Names(_) => self.value(&Ty::Str),
                Shape::Record(fields) => {
                    let mut m = serde_json::Map::new();
                    self.fields(&fields, &mut m);
                    Value::Object(m)
                }
                Shape::Tagged { tag, variants } => {
                    let v = &variants[self.word() as usize];
                    let mut m = serde_json::Map::new();
                    m.insert(tag.into(), Value::from(v.tag));
                    self.fields(&v.fields, &mut m);
                    Value::Object(m)
                }
                Shape::ValueChoice(variants) => {
                    let ty = variants[self.word() as usize].1.clone();
                    self.value(&ty)
                }
                Shape::FieldChoice(_) => panic!("{name} is only read flattened"),
            },
        }
    }

    fn nested(&mut self, dims: &[usize]) -> serde_json::Value {
        match dims.split_first() {
            None => serde_json::Value::from(self.word()),
            Some((&n, rest)) => {
                serde_json::Value::Array((0..n).map(|_| self.nested(rest)).collect())
            }
        }
    }

    fn fields(
        &mut self,
        fields: &[schema::Field],
        m: &mut serde_json::Map<String, serde_json::Value>,
    ) {
        use schema::{Mode, Shape, Ty};
        for f in fields {
            match f.mode {
                Mode::Plain => {
                    m.insert(f.json.into(), self.value(&f.ty));
                }
                Mode::OmitNone => {
                    let v = self.value(&f.ty);
                    if !v.is_null() {
                        m.insert(f.json.into(), v);
                    }
                }
                Mode::Flatten => {
                    let (name, optional) = match &f.ty {
                        Ty::Ref(n) => (*n, false),
                        Ty::Opt(inner) => match &**inner {
                            Ty::Ref(n) => (*n, true),
                            other => panic!("flatten of {other:?}"),
                        },
                        other => panic!("flatten of {other:?}"),
                    };
                    if optional && self.words.get(self.at) == Some(&-1.0) {
                        self.at += 1;
                        continue;
                    }
                    match self.shape(name) {
                        Shape::Record(fs) => self.fields(&fs, m),
                        Shape::FieldChoice(vs) => {
                            let v = vs[self.word() as usize].clone();
                            self.fields(&v.fields, m);
                        }
                        other => panic!("flatten of {other:?}"),
                    }
                }
            }
        }
    }
}

/// Every number as f64 (the tape has no integers).
fn as_floats(v: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Number(n) => Value::from(n.as_f64().unwrap_or(f64::NAN)),
        Value::Array(a) => Value::Array(a.into_iter().map(as_floats).collect()),
        Value::Object(o) => Value::Object(o.into_iter().map(|(k, v)| (k, as_floats(v))).collect()),
        other => other,
    }
}

fn json_of<T: serde::Serialize + ?Sized>(v: &T) -> serde_json::Value {
    let text = to_json(v).map(|j| j.text).unwrap_or_default();
    as_floats(serde_json::from_str(&text).unwrap_or_default())
}

fn tape_of(write: impl FnOnce(&mut Tape)) -> serde_json::Value {
    let mut tape = Tape::default();
    write(&mut tape);
    let mut r = Reader {
        words: &tape.words,
        strings: &tape.strings,
        at: 0,
        decls: declarations(),
    };
    let root = r.word();
    let roots = tape::Root::all();
    let ty = roots
        .iter()
        .find(|(k, _)| *k as u32 as f64 == root)
        .map(|(_, t)| t.clone());
    let v = ty.map(|ty| r.value(&ty)).unwrap_or_default();
    assert_eq!(r.at, tape.words.len(), "every word read");
    v
}

/// Every kind of event and target, both ways of each optional key.
fn every_event() -> Vec<Event> {
    let one = |v: f32| Some(arr(&[], vec![v]));
    let hook = |target: HookTarget| Event::Hook {
        kind: HookKind::NodePost,
        handle: HandleId(3),
        name: "h".into(),
        target,
        before: HookValue::Many(vec![None, one(2.0)]),
        after: HookValue::One(Some(arr(&[2, 1], vec![1.0, -0.5]))),
    };
    vec![
        Event::Op {
            node: NodeId(1),
            name: "MulBackward0",
            inputs: vec![TensorId(1), TensorId(2)],
            output: TensorId(3),
        },
        Event::Module {
            module: "net".into(),
            module_id: ModuleId(1),
            phase: ModulePhase::Forward,
            path: Some("encoder".into()),
        },
        Event::Node {
            node: NodeId(1),
            name: "MulBackward0",
            grad_outputs: GradList::from_arrays(&[one(1.0)]),
            grad_inputs: GradList::from_arrays(&[None, Some(arr(&[3], vec![1.0, 2.0, 3.0]))]),
        },
        hook(HookTarget::Tensor(TensorId(4), Some("c".into()))),
        hook(HookTarget::Tensor(TensorId(4), None)),
        hook(HookTarget::Node(NodeId(2))),
        hook(HookTarget::Module(ModuleId(5), "M".into(), Some(NodeId(6)))),
        hook(HookTarget::Module(ModuleId(5), "M".into(), None)),
        hook(HookTarget::Saved(TensorId(7), NodeId(8))),
        hook(HookTarget::Tensors(vec![TensorId(1), TensorId(9)])),
        Event::Accumulate {
            tensor: TensorId(1),
            grad: arr(&[], vec![12.0]),
        },
        Event::GradSet {
            tensor: TensorId(1),
            grad: None,
        },
        Event::Warning {
            message: "w".into(),
        },
        Event::Error {
            message: "plain".into(),
            node: None,
            hook: None,
        },
        Event::Error {
            message: "in a hook".into(),
            node: Some(NodeId(2)),
            hook: Some(FailedHook {
                handle: HandleId(3),
                kind: HookKind::Tensor,
                name: "bad".into(),
            }),
        },
        Event::Error {
            message: "forward hook".into(),
            node: None,
            hook: Some(FailedHook {
                handle: HandleId(4),
                kind: HookKind::ModuleForward,
                name: String::new(),
            }),
        },
        Event::Log {
            level: LogLevel::Warn,
            text: "line".into(),
            hook: Some(HandleId(3)),
        },
    ]
}

#[test]
fn the_tape_read_by_the_declarations_is_the_json() {
    let events = every_event();
    assert_eq!(tape_of(|t| t.events(&events)), json_of(&events));
    // A graph: tensors with and without hooks, grads and names; nodes.
    use crate::testing::{leaf, ok};
    let x = leaf(&[1.0, 2.0], &[2]);
    let y = ok(x.mul(2.0));
    ok(y.register_hook(std::rc::Rc::new(|_: &crate::Tensor| Ok(None))));
    ok(ok(y.sum()).backward());
    let roots = [y.clone()];
    let g = crate::graph::graph(&roots);
    assert!(
        g.tensors.iter().any(|t| !t.hooks.is_empty()) && g.tensors.iter().any(|t| t.grad.is_some())
    );
    assert_eq!(tape_of(|t| t.graph(&roots)), json_of(&g));
}

#[test]
fn the_error_event_s_hook_keys_are_flat_and_absent_without_a_hook() {
    let events = every_event();
    let errors: Vec<&Event> = events
        .iter()
        .filter(|e| matches!(e, Event::Error { .. }))
        .collect();
    assert_eq!(
        to_json(&errors).map(|j| j.text).ok().as_deref(),
        Some(concat!(
            r#"[{"type":"error","message":"plain"},"#,
            r#"{"type":"error","message":"in a hook","node":2,"hook":3,"hookKind":"tensor","hookName":"bad"},"#,
            r#"{"type":"error","message":"forward hook","hook":4,"hookKind":"module-forward","hookName":""}]"#
        ))
    );
}

// ----- the generated files ---------------------------------------------------------

/// crate/js/records.js and crate/js/protocol.d.ts are what the declarations
/// give; `HOOKGRAD_WRITE_PROTOCOL=1` (scripts/gen-protocol.sh) rewrites them.
#[test]
fn the_generated_js_files_are_current() {
    let decls = declarations();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../js");
    let files = [
        ("records.js", gen_js::generate(&decls)),
        ("protocol.d.ts", gen_ts::generate(&decls)),
    ];
    let write = std::env::var_os("HOOKGRAD_WRITE_PROTOCOL").is_some();
    let mut stale = Vec::new();
    for (name, text) in files {
        let text = match text {
            Ok(t) => t,
            Err(e) => panic!("{name}: {e}"),
        };
        let path = root.join(name);
        if std::fs::read_to_string(&path).ok().as_deref() == Some(text.as_str()) {
            continue;
        }
        if write {
            if let Err(e) = std::fs::write(&path, text) {
                panic!("writing {}: {e}", path.display());
            }
        } else {
            stale.push(name);
        }
    }
    assert!(
        stale.is_empty(),
        "crate/js/{stale:?} differ from the protocol declarations: run scripts/gen-protocol.sh"
    );
}
