//! `graph()` and `trace()` records written as one flat "tape" of f64 words
//! plus a table of distinct strings, which the facade's decoder
//! (crate/js/hookgrad.js, `__decodeTape`) turns back into the plain objects
//! of crate/js/protocol.d.ts in one pass. One copy crosses the boundary
//! instead of one call per field and element (serde-wasm-bindgen's way).
//!
//! The writer knows the record types (`hookgrad_core::protocol`), so the
//! tape holds values only — no field names, no per-value tags — and the
//! decoder builds each object with a fixed shape (an object literal) in the
//! field order serde gives them. tests/node/tape.test.mjs checks that both
//! paths give the same records for every lesson program.
//!
//! Grammar. A tape is one record: `7` graph or `8` trace (the decoder also
//! reads the generic values `0` null, `1` true, `2` false, `3 x` number,
//! `4 i` string, `5 n v…` array, `6 n (k v)…` object). Inside records:
//! a number is one word; a string is its index in `strings`; `-1` stands
//! for `null` (absent ids, names, gradients); a bool is 0/1; a list is its
//! length then its items; values (a tensor's data) are `ndim, dims…,
//! elements…` in row-major order (a bare number for ndim 0).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use hookgrad_core::graph::{GraphSink, NodeRow, TensorRow};
use hookgrad_core::node::Edge;
use hookgrad_core::protocol::{Event, GradList, HookInfo, HookTarget, HookValue};
use hookgrad_core::tensor::Array;

impl GraphSink for Tape {
    fn tensors(&mut self, count: usize) {
        self.graph_start();
        self.len(count);
    }
    fn tensor(&mut self, t: &TensorRow<'_>) {
        self.id(t.id.0);
        self.opt_str(t.name);
        self.usizes(t.shape);
        self.usizes(t.stride);
        self.values(t.data);
        self.flag(t.requires_grad);
        self.flag(t.is_leaf);
        self.flag(t.retains_grad);
        self.opt_id(t.grad_fn.map(|n| n.0));
        self.opt_values(t.grad);
        self.hooks(t.hooks);
    }
    fn nodes(&mut self, count: usize) {
        self.len(count);
    }
    fn node(&mut self, n: &NodeRow<'_>) {
        self.id(n.id.0);
        self.static_str(n.name);
        self.node_next(n.next);
        self.opt_id(n.variable.map(|v| v.0));
        self.hooks(n.pre_hooks);
        self.hooks(n.post_hooks);
    }
}

/// Record kinds (the first word).
const GRAPH: f64 = 7.0;
const EVENTS: f64 = 8.0;
/// `null` in a slot that is otherwise a non-negative number or index.
const NONE: f64 = -1.0;

/// Event tags, in the order of the decoder's `switch`.
mod tag {
    pub const OP: f64 = 0.0;
    pub const MODULE: f64 = 1.0;
    pub const NODE: f64 = 2.0;
    pub const HOOK: f64 = 3.0;
    pub const ACCUMULATE: f64 = 4.0;
    pub const WARNING: f64 = 5.0;
    pub const ERROR: f64 = 6.0;
    pub const LOG: f64 = 7.0;
    pub const GRAD_SET: f64 = 8.0;
}

/// Hook targets (`HookTarget`), in the order of the decoder's `switch`.
mod target {
    pub const TENSOR: f64 = 0.0;
    pub const NODE: f64 = 1.0;
    pub const MODULE: f64 = 2.0;
    pub const SAVED: f64 = 3.0;
    pub const TENSORS: f64 = 4.0;
}

/// FxHash-style: SipHash on every string was a quarter of `graph()`'s time.
#[derive(Default)]
struct Fx(u64);

impl Fx {
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for Fx {
    fn finish(&self) -> u64 {
        self.0
    }
    /// Length, first and last 8 bytes: O(1) per string (the map compares
    /// whole keys, so a collision costs time, never correctness).
    fn write(&mut self, bytes: &[u8]) {
        let word = |b: &[u8]| b.iter().fold(0u64, |w, &x| (w << 8) | u64::from(x));
        let n = bytes.len();
        self.add(n as u64);
        self.add(word(&bytes[..n.min(8)]));
        self.add(word(&bytes[n.saturating_sub(8)..]));
    }
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }
}

type FxMap<K> = HashMap<K, u32, BuildHasherDefault<Fx>>;

#[derive(Default)]
pub struct Tape {
    pub words: Vec<f64>,
    pub strings: Vec<String>,
    index: FxMap<String>,
    /// Node names and kinds are `&'static str`: found by address and length
    /// (the linker may merge one string into another's bytes).
    statics: FxMap<(usize, usize)>,
    /// The last few of those (a graph's names come in runs and cycles, e.g.
    /// Mul, Add, Tanh): compared before hashing, round-robin replaced.
    recent: [(usize, usize, u32); 4],
    recent_next: usize,
}

impl Tape {
    /// Empties the tape, keeping its buffers' capacity for the next record.
    pub fn clear(&mut self) {
        self.words.clear();
        self.strings.clear();
        self.index.clear();
        self.statics.clear();
        self.recent = [(0, 0, 0); 4];
    }

    /// Opens `graph()`'s record; [`graph_into`] writes its rows through
    /// this tape's [`GraphSink`].
    ///
    /// [`graph_into`]: hookgrad_core::graph::graph_into
    fn graph_start(&mut self) {
        self.words.push(GRAPH);
    }

    /// `trace()`'s record.
    pub fn events(&mut self, events: &[Event]) {
        self.words.push(EVENTS);
        self.len(events.len());
        for e in events {
            self.event(e);
        }
    }

    // ----- words ---------------------------------------------------------------
    // One word each: inlined (a call per word was a third of writing a graph).

    #[inline(always)]
    fn num(&mut self, v: f64) {
        self.words.push(v);
    }

    #[inline(always)]
    fn len(&mut self, n: usize) {
        self.words.push(n as f64);
    }

    #[inline(always)]
    fn id(&mut self, id: u32) {
        self.words.push(f64::from(id));
    }

    #[inline(always)]
    fn opt_id(&mut self, id: Option<u32>) {
        self.words.push(id.map_or(NONE, f64::from));
    }

    #[inline(always)]
    fn flag(&mut self, b: bool) {
        self.words.push(if b { 1.0 } else { 0.0 });
    }

    fn ids(&mut self, ids: impl ExactSizeIterator<Item = u32>) {
        self.len(ids.len());
        for id in ids {
            self.id(id);
        }
    }

    #[inline]
    fn usizes(&mut self, v: &[usize]) {
        self.len(v.len());
        for &x in v {
            self.len(x);
        }
    }

    fn static_str(&mut self, s: &'static str) {
        let key = (s.as_ptr() as usize, s.len());
        // (0, 0) never matches: a string's address is not null.
        if let Some(&(_, _, i)) = self.recent.iter().find(|r| (r.0, r.1) == key) {
            self.words.push(f64::from(i));
            return;
        }
        let i = match self.statics.get(&key) {
            Some(&i) => i,
            None => {
                let i = self.intern(s);
                self.statics.insert(key, i);
                i
            }
        };
        self.recent[self.recent_next] = (key.0, key.1, i);
        self.recent_next = (self.recent_next + 1) % self.recent.len();
        self.words.push(f64::from(i));
    }

    fn intern(&mut self, s: &str) -> u32 {
        match self.index.get(s) {
            Some(&i) => i,
            None => {
                let i = self.strings.len() as u32;
                self.strings.push(s.to_owned());
                self.index.insert(s.to_owned(), i);
                i
            }
        }
    }

    fn str(&mut self, s: &str) {
        let i = self.intern(s);
        self.words.push(f64::from(i));
    }

    fn opt_str(&mut self, s: Option<&str>) {
        match s {
            Some(s) => self.str(s),
            None => self.words.push(NONE),
        }
    }

    /// f32 widened to f64 (what `t.item()` returns); NaN and ±Infinity as is.
    fn values(&mut self, a: &Array) {
        self.usizes(a.shape());
        self.widen(a.as_slice());
    }

    /// Elements onto the tape, widened: sized once, then a plain loop (an
    /// `extend` of a mapped iterator called a closure per element here).
    #[inline]
    fn widen(&mut self, v: &[f32]) {
        let start = self.words.len();
        self.words.resize(start + v.len(), 0.0);
        if let Some(out) = self.words.get_mut(start..) {
            for (w, &x) in out.iter_mut().zip(v) {
                *w = f64::from(x);
            }
        }
    }

    fn opt_values(&mut self, a: Option<&Array>) {
        match a {
            Some(a) => self.values(a),
            None => self.words.push(NONE),
        }
    }

    fn values_list(&mut self, list: &[Option<Array>]) {
        self.len(list.len());
        for a in list {
            self.opt_values(a.as_ref());
        }
    }

    /// As `values_list` of the arrays it holds.
    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    fn grad_list(&mut self, list: &GradList) {
        self.len(list.len());
        for v in list.iter() {
            match v {
                Some((shape, values)) => {
                    self.usizes(shape);
                    self.widen(values);
                }
                None => self.words.push(NONE),
            }
        }
    }

    // ----- graph ---------------------------------------------------------------

    fn node_next(&mut self, next: &[Option<Edge>]) {
        self.len(next.len());
        for e in next {
            match e {
                Some(e) => {
                    self.id(e.node.id.0);
                    self.len(e.input_nr);
                }
                None => {
                    self.words.push(NONE);
                    self.len(0);
                }
            }
        }
    }

    fn hooks(&mut self, hooks: &[HookInfo]) {
        self.len(hooks.len());
        for h in hooks {
            self.id(h.handle.0);
            self.static_str(h.kind.as_str());
            self.str(&h.name);
            // `module` and `moduleId` are both present or both absent.
            match (&h.module, h.module_id) {
                (Some(m), Some(id)) => {
                    self.str(m);
                    self.id(id.0);
                }
                (None, None) => self.words.push(NONE),
                (m, id) => {
                    // Not produced by the core; kept exact all the same.
                    self.words.push(-2.0);
                    self.opt_str(m.as_deref());
                    self.opt_id(id.map(|i| i.0));
                }
            }
            match h.source {
                Some(s) => {
                    self.id(s.line);
                    self.id(s.column);
                }
                None => self.words.push(NONE),
            }
        }
    }

    // ----- trace ---------------------------------------------------------------

    fn event(&mut self, e: &Event) {
        match e {
            Event::Op {
                node,
                name,
                inputs,
                output,
            } => {
                self.num(tag::OP);
                self.id(node.0);
                self.static_str(name);
                self.ids(inputs.iter().map(|t| t.0));
                self.id(output.0);
            }
            Event::Module {
                module,
                module_id,
                phase,
            } => {
                self.num(tag::MODULE);
                self.str(module);
                self.id(module_id.0);
                self.static_str(phase.as_str());
            }
            Event::Node {
                node,
                name,
                grad_outputs,
                grad_inputs,
            } => {
                self.num(tag::NODE);
                self.id(node.0);
                self.static_str(name);
                self.grad_list(grad_outputs);
                self.grad_list(grad_inputs);
            }
            Event::Hook {
                kind,
                handle,
                name,
                target,
                before,
                after,
            } => {
                self.num(tag::HOOK);
                self.static_str(kind.as_str());
                self.id(handle.0);
                self.str(name);
                self.hook_target(target);
                self.hook_value(before);
                self.hook_value(after);
            }
            Event::Accumulate { tensor, grad } => {
                self.num(tag::ACCUMULATE);
                self.id(tensor.0);
                self.values(grad);
            }
            Event::GradSet { tensor, grad } => {
                self.num(tag::GRAD_SET);
                self.id(tensor.0);
                self.opt_values(grad.as_ref());
            }
            Event::Warning { message } => {
                self.num(tag::WARNING);
                self.str(message);
            }
            Event::Error { message, node } => {
                self.num(tag::ERROR);
                self.str(message);
                self.opt_id(node.map(|n| n.0));
            }
            Event::Log { level, text, hook } => {
                self.num(tag::LOG);
                self.static_str(level.as_str());
                self.str(text);
                self.opt_id(hook.map(|h| h.0));
            }
        }
    }

    fn hook_target(&mut self, t: &HookTarget) {
        match t {
            HookTarget::Tensor(t, name) => {
                self.num(target::TENSOR);
                self.id(t.0);
                self.opt_str(name.as_deref());
            }
            HookTarget::Node(n) => {
                self.num(target::NODE);
                self.id(n.0);
            }
            HookTarget::Module(id, name, node) => {
                self.num(target::MODULE);
                self.str(name);
                self.id(id.0);
                self.opt_id(node.map(|n| n.0));
            }
            HookTarget::Saved(t, n) => {
                self.num(target::SAVED);
                self.id(t.0);
                self.id(n.0);
            }
            HookTarget::Tensors(ts) => {
                self.num(target::TENSORS);
                self.ids(ts.iter().map(|t| t.0));
            }
        }
    }

    /// One gradient: `0` then optional values; a list: `1` then the list.
    fn hook_value(&mut self, v: &HookValue) {
        match v {
            HookValue::One(a) => {
                self.num(0.0);
                self.opt_values(a.as_ref());
            }
            HookValue::Many(list) => {
                self.num(1.0);
                self.values_list(list);
            }
        }
    }
}
