//! The one typed seam between the engine and the playground: every record
//! `graph()` and `trace()` hand out, as Rust types with serde derives. The
//! binding serializes them in one pass; `crate/js/protocol.d.ts` is the same
//! schema for TypeScript/JSDoc, and `tests/node/protocol.test.mjs` checks
//! that real engine output and those types agree. Field names are the
//! contract's (`shared/js-api.md`, "Inspection for the playground"); fields
//! are only ever added.
//!
//! Values are f32 widened to f64 (what `t.item()` returns). JSON has no NaN
//! or ±Infinity: [`to_json`] writes the strings "\u0000NaN", "\u0000Infinity",
//! "\u0000-Infinity" and reports that it did, so a reader can revive them;
//! [`serialize_numbers`] (the wasm binding's path, serde-wasm-bindgen into
//! JS objects) hands the numbers over as they are.

use std::cell::Cell;

use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::Serialize;

use crate::error::{Error, Result};
use crate::ids::{HandleId, ModuleId, NodeId, TensorId};
use crate::small::Small;
use crate::tensor::Array;

macro_rules! serialize_id {
    ($($t:ty),*) => {$(
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                s.serialize_u32(self.0)
            }
        }
    )*};
}
serialize_id!(TensorId, NodeId, HandleId, ModuleId);

/// Every kind of hook a trace or graph row names (kebab-case in JSON).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HookKind {
    Tensor,
    RetainGrad,
    NodePre,
    NodePost,
    PostAccumulate,
    ModulePre,
    ModuleForward,
    ModuleBackward,
    ModuleFullBackward,
    ModuleFullBackwardPre,
    /// `saved_tensors_hooks` pack / unpack and `register_multi_grad_hook`.
    Pack,
    Unpack,
    MultiGrad,
}

impl HookKind {
    /// The name serde writes (kebab-case), for writers that bypass serde
    /// (the wasm binding's record tape); a test keeps the two equal.
    pub fn as_str(self) -> &'static str {
        match self {
            HookKind::Tensor => "tensor",
            HookKind::RetainGrad => "retain-grad",
            HookKind::NodePre => "node-pre",
            HookKind::NodePost => "node-post",
            HookKind::PostAccumulate => "post-accumulate",
            HookKind::ModulePre => "module-pre",
            HookKind::ModuleForward => "module-forward",
            HookKind::ModuleBackward => "module-backward",
            HookKind::ModuleFullBackward => "module-full-backward",
            HookKind::ModuleFullBackwardPre => "module-full-backward-pre",
            HookKind::Pack => "pack",
            HookKind::Unpack => "unpack",
            HookKind::MultiGrad => "multi-grad",
        }
    }

    pub const ALL: [HookKind; 13] = [
        HookKind::Tensor,
        HookKind::RetainGrad,
        HookKind::NodePre,
        HookKind::NodePost,
        HookKind::PostAccumulate,
        HookKind::ModulePre,
        HookKind::ModuleForward,
        HookKind::ModuleBackward,
        HookKind::ModuleFullBackward,
        HookKind::ModuleFullBackwardPre,
        HookKind::Pack,
        HookKind::Unpack,
        HookKind::MultiGrad,
    ];
}

/// Where a module call is (`module` events).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ModulePhase {
    PreHook,
    Forward,
    Hook,
    End,
}

impl ModulePhase {
    pub const ALL: [ModulePhase; 4] = [
        ModulePhase::PreHook,
        ModulePhase::Forward,
        ModulePhase::Hook,
        ModulePhase::End,
    ];
    /// The name serde writes (see `HookKind::as_str`).
    pub fn as_str(self) -> &'static str {
        match self {
            ModulePhase::PreHook => "pre-hook",
            ModulePhase::Forward => "forward",
            ModulePhase::Hook => "hook",
            ModulePhase::End => "end",
        }
    }
}

/// A `log` event's console method (`info`/`debug` print as `log`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LogLevel {
    Log,
    Warn,
    Error,
}

impl LogLevel {
    pub const ALL: [LogLevel; 3] = [LogLevel::Log, LogLevel::Warn, LogLevel::Error];
    /// The name serde writes (see `HookKind::as_str`).
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Log => "log",
            LogLevel::Warn => "warn",
            LogLevel::Error => "error",
        }
    }

    pub fn parse(s: &str) -> Option<LogLevel> {
        match s {
            "log" | "info" | "debug" => Some(LogLevel::Log),
            "warn" => Some(LogLevel::Warn),
            "error" => Some(LogLevel::Error),
            _ => None,
        }
    }
}

/// Line and column (1-based) of the user's code that registered a hook.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SourceLoc {
    pub line: u32,
    pub column: u32,
}

// ----- values ----------------------------------------------------------------

thread_local! {
    /// Set when a human-readable serializer wrote a non-finite sentinel.
    static WROTE_NONFINITE: Cell<bool> = const { Cell::new(false) };
    /// Set while [`serialize_numbers`] runs: the target takes NaN as is.
    static RAW_NONFINITE: Cell<bool> = const { Cell::new(false) };
}

/// One element: f32 widened to f64 (what `item()` returns), so values in a
/// trace compare equal to the same values read through the API.
struct Num(f32);

impl Serialize for Num {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let v = self.0;
        if v.is_finite() || RAW_NONFINITE.with(|c| c.get()) {
            return s.serialize_f64(f64::from(v));
        }
        WROTE_NONFINITE.with(|c| c.set(true));
        // Sentinels start with U+0000 so no ordinary string collides.
        s.serialize_str(if v.is_nan() {
            "\u{0}NaN"
        } else if v > 0.0 {
            "\u{0}Infinity"
        } else {
            "\u{0}-Infinity"
        })
    }
}

/// Row-major values as nested lists (a bare number for 0-d).
struct Nested<'a> {
    values: &'a [f32],
    shape: &'a [usize],
}

impl Serialize for Nested<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self.shape.split_first() {
            None => Num(self.values.first().copied().unwrap_or(0.0)).serialize(s),
            Some((&n, [])) => {
                let mut seq = s.serialize_seq(Some(n))?;
                for v in self.values.iter().take(n) {
                    seq.serialize_element(&Num(*v))?;
                }
                seq.end()
            }
            Some((&n, rest)) => {
                let stride: usize = rest.iter().product();
                let mut seq = s.serialize_seq(Some(n))?;
                for i in 0..n {
                    let values = self.values.get(i * stride..(i + 1) * stride).unwrap_or(&[]);
                    seq.serialize_element(&Nested {
                        values,
                        shape: rest,
                    })?;
                }
                seq.end()
            }
        }
    }
}

/// A tensor's values as nested lists (no copy: arrays are row-major).
pub struct Values<'a>(pub &'a Array);

impl Serialize for Values<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let shape = self.0.shape();
        Nested {
            values: self.0.as_slice(),
            shape,
        }
        .serialize(s)
    }
}

fn values<S: Serializer>(a: &Array, s: S) -> std::result::Result<S::Ok, S::Error> {
    Values(a).serialize(s)
}

fn opt_values<S: Serializer>(a: &Option<Array>, s: S) -> std::result::Result<S::Ok, S::Error> {
    match a {
        Some(a) => Values(a).serialize(s),
        None => s.serialize_none(),
    }
}

fn opt_values_list<S: Serializer>(
    items: &[Option<Array>],
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    let mut seq = s.serialize_seq(Some(items.len()))?;
    for a in items {
        seq.serialize_element(&a.as_ref().map(Values))?;
    }
    seq.end()
}

/// A node's gradients as its `node` event keeps them: each `None` or an
/// array, the elements of all of them in one buffer. One allocation per list
/// instead of one per gradient plus the list's (a backward pass records two
/// lists per node: in a 1,000-node trace that was ~4,700 allocations and as
/// many frees). Serializes as `(Values | null)[]`, as a list of arrays would.
#[derive(Clone, Default)]
pub struct GradList {
    /// Each gradient's shape (`None`: no gradient); its elements follow the
    /// previous gradient's in `data`, row-major.
    shapes: Small<Option<Small<usize>>>,
    data: Vec<f32>,
}

impl GradList {
    /// An empty list with room for `elements` values.
    pub fn with_capacity(elements: usize) -> Self {
        GradList {
            shapes: Small::Zero,
            data: Vec::with_capacity(elements),
        }
    }

    pub fn push_none(&mut self) {
        self.shapes.push(None);
    }

    /// Appends a gradient of `shape` with `values` in row-major order (a
    /// slice: one copy, where an iterator was a loop with a capacity check
    /// per element in the size-optimized wasm).
    pub fn push_values(&mut self, shape: &[usize], values: &[f32]) {
        self.shapes.push(Some(Small::from_slice(shape)));
        self.data.extend_from_slice(values);
    }

    pub fn len(&self) -> usize {
        self.shapes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.shapes.is_empty()
    }

    /// Each gradient: `None`, or its shape and row-major elements.
    pub fn iter(&self) -> impl Iterator<Item = Option<(&[usize], &[f32])>> + '_ {
        let mut at = 0;
        self.shapes.iter().map(move |s| {
            s.as_deref().map(|shape| {
                let n: usize = shape.iter().product();
                let values = self.data.get(at..at + n).unwrap_or(&[]);
                at += n;
                (shape, values)
            })
        })
    }

    pub fn from_arrays(list: &[Option<Array>]) -> Self {
        let mut out = GradList::default();
        for a in list {
            match a {
                Some(a) => out.push_values(a.shape(), a.as_slice()),
                None => out.push_none(),
            }
        }
        out
    }

    pub fn to_arrays(&self) -> Vec<Option<Array>> {
        self.iter()
            .map(|v| {
                v.and_then(|(shape, values)| Array::from_shape_vec(shape, values.to_vec()).ok())
            })
            .collect()
    }
}

impl std::fmt::Debug for GradList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for GradList {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.len()))?;
        for v in self.iter() {
            seq.serialize_element(&v.map(|(shape, values)| Nested { values, shape }))?;
        }
        seq.end()
    }
}

/// A hook's value before/after it ran: one gradient (tensor hooks) or a
/// list (node and module hooks, PyTorch's tuples).
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum HookValue {
    One(#[serde(serialize_with = "opt_values")] Option<Array>),
    Many(#[serde(serialize_with = "opt_values_list")] Vec<Option<Array>>),
}

/// What a hook event ran on: `tensor`, `node`, or `module` + `moduleId`
/// (+ the backward `node` a module backward hook ran on).
#[derive(Clone, Debug)]
pub enum HookTarget {
    /// The tensor, and its name when the hook ran: the player names a
    /// tensor from this when `hg.tidy` released it before `graph()` was
    /// taken (a training loop's earlier steps).
    Tensor(TensorId, Option<String>),
    Node(NodeId),
    Module(ModuleId, String, Option<NodeId>),
    /// A saved-tensor hook (pack / unpack): the saved tensor and the node
    /// that saved it.
    Saved(TensorId, NodeId),
    /// A multi-grad hook: the tensors it watches.
    Tensors(Vec<TensorId>),
}

impl Serialize for HookTarget {
    // A map so `#[serde(flatten)]` merges these fields into the event.
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        match self {
            HookTarget::Tensor(t, name) => {
                m.serialize_entry("tensor", t)?;
                m.serialize_entry("tensorName", name)?;
            }
            HookTarget::Node(n) => m.serialize_entry("node", n)?,
            HookTarget::Saved(t, n) => {
                m.serialize_entry("tensor", t)?;
                m.serialize_entry("node", n)?;
            }
            HookTarget::Tensors(ts) => m.serialize_entry("tensors", ts)?,
            HookTarget::Module(id, name, node) => {
                m.serialize_entry("module", name)?;
                m.serialize_entry("moduleId", id)?;
                if let Some(n) = node {
                    m.serialize_entry("node", n)?;
                }
            }
        }
        m.end()
    }
}

// ----- trace events ----------------------------------------------------------

/// One step of `hg.trace(fn)`, in execution order.
#[derive(Clone, Debug, Serialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Event {
    /// An op built a backward node.
    Op {
        node: NodeId,
        name: &'static str,
        inputs: Vec<TensorId>,
        output: TensorId,
    },
    /// A module call reached `phase`.
    Module {
        module: String,
        module_id: ModuleId,
        phase: ModulePhase,
    },
    /// A backward node ran.
    Node {
        node: NodeId,
        name: &'static str,
        grad_outputs: GradList,
        grad_inputs: GradList,
    },
    /// A hook ran (recorded after it returned, with what it changed).
    Hook {
        kind: HookKind,
        handle: HandleId,
        /// The hook function's name, as `graph()`'s hook rows give it: the
        /// player names a hook from its event when the graph no longer
        /// lists it (removed, or on a tensor `hg.tidy` released).
        name: String,
        #[serde(flatten)]
        target: HookTarget,
        before: HookValue,
        after: HookValue,
    },
    /// AccumulateGrad wrote `.grad` (the value now in it).
    Accumulate {
        tensor: TensorId,
        #[serde(serialize_with = "values")]
        grad: Array,
    },
    /// The program assigned `.grad` (`t.grad = …`, `zeroGrad()`): the
    /// value now in it, null for None. `accumulate` is backward's write.
    #[serde(rename = "grad-set")]
    GradSet {
        tensor: TensorId,
        #[serde(serialize_with = "opt_values")]
        grad: Option<Array>,
    },
    Warning {
        message: String,
    },
    Error {
        message: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        node: Option<NodeId>,
    },
    /// A line the program printed; `hook` is the handle of the user hook
    /// that printed it (the line follows that hook's event), else null.
    Log {
        level: LogLevel,
        text: String,
        hook: Option<HandleId>,
    },
}

// ----- graph records ---------------------------------------------------------

/// A hook row of a tensor or node in `graph()`. `handle` is the one the
/// user's `register*` call returned, so it equals the trace's `handle`.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookInfo {
    pub handle: HandleId,
    pub kind: HookKind,
    pub name: String,
    /// For module hooks: the module's name and id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub module_id: Option<ModuleId>,
    /// Where the user registered it, when the binding knows.
    pub source: Option<SourceLoc>,
}

impl HookInfo {
    pub fn new(handle: HandleId, kind: HookKind, name: String) -> Self {
        HookInfo {
            handle,
            kind,
            name,
            module: None,
            module_id: None,
            source: None,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TensorInfo {
    pub id: TensorId,
    pub name: Option<String>,
    pub shape: Vec<usize>,
    /// PyTorch's strides (`t.stride()`), so a figure can show layouts.
    pub stride: Vec<usize>,
    #[serde(serialize_with = "values")]
    pub data: Array,
    pub requires_grad: bool,
    pub is_leaf: bool,
    pub retains_grad: bool,
    pub grad_fn: Option<NodeId>,
    #[serde(serialize_with = "opt_values")]
    pub grad: Option<Array>,
    pub hooks: Vec<HookInfo>,
}

/// One of a node's `next_functions`.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NextEdge {
    pub node: Option<NodeId>,
    pub input_nr: usize,
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeInfo {
    pub id: NodeId,
    pub name: &'static str,
    pub next: Vec<NextEdge>,
    pub variable: Option<TensorId>,
    pub pre_hooks: Vec<HookInfo>,
    pub post_hooks: Vec<HookInfo>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct GraphInfo {
    pub tensors: Vec<TensorInfo>,
    pub nodes: Vec<NodeInfo>,
}

// ----- serialization -----------------------------------------------------------

/// JSON text and whether it holds non-finite sentinels to revive.
pub struct Json {
    pub text: String,
    pub has_nonfinite: bool,
}

/// Serializes any protocol value in one pass.
pub fn to_json<T: Serialize + ?Sized>(value: &T) -> Result<Json> {
    WROTE_NONFINITE.with(|c| c.set(false));
    let text = serde_json::to_string(value)
        .map_err(|e| Error::internal(format!("serializing a trace failed: {e}")))?;
    Ok(Json {
        text,
        has_nonfinite: WROTE_NONFINITE.with(|c| c.get()),
    })
}

/// Serializes with `s` for a target whose numbers include NaN and ±Infinity
/// (JS values through serde-wasm-bindgen): no sentinels.
pub fn serialize_numbers<T: Serialize + ?Sized, S: Serializer>(
    value: &T,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    let was = RAW_NONFINITE.with(|c| c.replace(true));
    let r = value.serialize(s);
    RAW_NONFINITE.with(|c| c.set(was));
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arr(shape: &[usize], v: Vec<f32>) -> Array {
        Array::from_shape_vec(shape, v).unwrap_or_default()
    }

    #[test]
    fn values_nest_and_keep_f32_exactly() {
        let j = to_json(&Values(&arr(&[2, 2], vec![1.0, 2.0, 3.0, 4.5])));
        assert_eq!(
            j.map(|j| j.text).ok().as_deref(),
            Some("[[1.0,2.0],[3.0,4.5]]")
        );
        // 0.1f32 widened: what `t.item()` returns, not the decimal 0.1.
        let j = to_json(&Values(&arr(&[], vec![0.1]))).map(|j| j.text);
        assert_eq!(j.ok().as_deref(), Some("0.10000000149011612"));
        // A transposed (non-row-major) array still prints in logical order.
        let t = arr(&[2, 2], vec![1.0, 2.0, 3.0, 4.0]).reversed_axes();
        let j = to_json(&Values(&t)).map(|j| j.text);
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
        let j = to_json(&Values(&arr(&[1], vec![1.0]))).ok();
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
                r#"[{"type":"hook","kind":"module-full-backward","handle":7,"name":"show","module":"Mul3","moduleId":2,"node":9,"before":[null,2.0],"after":null},"#,
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
        let lists = |j: Result<Json>| j.map(|j| (j.text, j.has_nonfinite)).ok();
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
        for k in HookKind::ALL {
            assert_eq!(to_json(&k).map(|j| j.text).ok(), quoted(k.as_str()));
        }
        for p in ModulePhase::ALL {
            assert_eq!(to_json(&p).map(|j| j.text).ok(), quoted(p.as_str()));
        }
        for l in LogLevel::ALL {
            assert_eq!(to_json(&l).map(|j| j.text).ok(), quoted(l.as_str()));
        }
    }

    #[test]
    fn hook_kinds_keep_their_strings() {
        let j = to_json(&HookKind::ALL).map(|j| j.text);
        assert_eq!(
            j.ok().as_deref(),
            Some(concat!(
                r#"["tensor","retain-grad","node-pre","node-post","post-accumulate","module-pre","#,
                r#""module-forward","module-backward","module-full-backward","module-full-backward-pre","#,
                r#""pack","unpack","multi-grad"]"#
            ))
        );
    }
}
