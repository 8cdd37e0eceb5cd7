//! `graph()` and `trace()` records as one flat "tape" of f64 words plus a
//! table of distinct strings, which `crate/js/records.js` (generated from the
//! same declarations) turns back into plain objects in one pass. One copy
//! crosses the wasm boundary instead of one call per field and element.
//!
//! The tape holds values only — no field names, no per-value tags: both ends
//! know the records ([`Wire`] writes a declaration's fields in order, the
//! decoder reads them in that order). The grammar, by [`Ty`]: a number is one
//! word; a string is its index in `strings`; a bool is 0/1; `-1` stands for
//! `null`; a list is its length then its items; values (a tensor's data) are
//! `ndim, dims…, elements…` in row-major order; a union is its variant's
//! index then that variant's fields. A tape is one root: [`Root`].
//!
//! [`Ty`]: super::schema::Ty

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::schema::{Ty, Wire};
use super::values::GradList;
use crate::graph::{GraphSink, NodeInfo, TensorInfo};
use crate::ids::{HandleId, ModuleId, NodeId, TensorId};
use crate::tensor::{Array, Tensor};

/// What a tape holds (its first word).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Root {
    /// `graph()`: a `GraphInfo`.
    Graph = 0,
    /// `trace()`: a list of `Event`s.
    Events = 1,
}

impl Root {
    /// Each root and what follows its word (for the generated decoder).
    pub fn all() -> [(Root, Ty); 2] {
        [
            (Root::Graph, Ty::Ref("GraphInfo")),
            (Root::Events, Ty::List(Box::new(Ty::Ref("Event")))),
        ]
    }
}

/// `null` in a slot that is otherwise a non-negative number or index.
const NONE: f64 = -1.0;

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

    /// `graph(roots)`, written as the core walks it (no copy of the rows).
    pub fn graph(&mut self, roots: &[Tensor]) {
        self.index(Root::Graph as u32);
        crate::graph::graph_into(roots, self);
    }

    /// `trace()`'s events.
    pub fn events(&mut self, events: &[super::Event]) {
        self.index(Root::Events as u32);
        events.write(self);
    }

    // ----- words ---------------------------------------------------------------
    // One word each: inlined (a call per word was a third of writing a graph).

    /// A union's variant (or a root's) index.
    #[inline(always)]
    pub fn index(&mut self, i: u32) {
        self.words.push(f64::from(i));
    }

    #[inline(always)]
    fn len(&mut self, n: usize) {
        self.words.push(n as f64);
    }

    #[inline(always)]
    fn none(&mut self) {
        self.words.push(NONE);
    }

    pub fn static_str(&mut self, s: &'static str) {
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

    /// f32 widened to f64 (what `t.item()` returns); NaN and ±Infinity as is.
    #[inline]
    fn values(&mut self, shape: &[usize], v: &[f32]) {
        shape.write(self);
        // Sized once, then a plain loop (an `extend` of a mapped iterator
        // called a closure per element here).
        let start = self.words.len();
        self.words.resize(start + v.len(), 0.0);
        if let Some(out) = self.words.get_mut(start..) {
            for (w, &x) in out.iter_mut().zip(v) {
                *w = f64::from(x);
            }
        }
    }
}

impl GraphSink for Tape {
    fn tensors(&mut self, count: usize) {
        self.len(count);
    }
    fn tensor(&mut self, row: &TensorInfo<'_>) {
        row.write(self);
    }
    fn nodes(&mut self, count: usize) {
        self.len(count);
    }
    fn node(&mut self, row: &NodeInfo<'_>) {
        row.write(self);
    }
}

// ----- the primitive values ------------------------------------------------------

macro_rules! wire_id {
    ($($t:ty),*) => {$(
        impl Wire for $t {
            fn ty() -> Ty {
                Ty::Int
            }
            #[inline(always)]
            fn write(&self, t: &mut Tape) {
                t.index(self.0);
            }
        }
    )*};
}
wire_id!(TensorId, NodeId, HandleId, ModuleId);

impl Wire for usize {
    fn ty() -> Ty {
        Ty::Int
    }
    #[inline(always)]
    fn write(&self, t: &mut Tape) {
        t.len(*self);
    }
}

impl Wire for u32 {
    fn ty() -> Ty {
        Ty::Int
    }
    #[inline(always)]
    fn write(&self, t: &mut Tape) {
        t.index(*self);
    }
}

impl Wire for bool {
    fn ty() -> Ty {
        Ty::Bool
    }
    #[inline(always)]
    fn write(&self, t: &mut Tape) {
        t.words.push(if *self { 1.0 } else { 0.0 });
    }
}

/// Node names, kinds and phases: found by address, no hashing.
impl Wire for &'static str {
    fn ty() -> Ty {
        Ty::Str
    }
    fn write(&self, t: &mut Tape) {
        t.static_str(self);
    }
}

impl Wire for String {
    fn ty() -> Ty {
        Ty::Str
    }
    fn write(&self, t: &mut Tape) {
        t.str(self);
    }
}

impl Wire for Cow<'_, str> {
    fn ty() -> Ty {
        Ty::Str
    }
    fn write(&self, t: &mut Tape) {
        t.str(self);
    }
}

impl Wire for Array {
    fn ty() -> Ty {
        Ty::Values
    }
    fn write(&self, t: &mut Tape) {
        t.values(self.shape(), self.as_slice());
    }
}

impl Wire for Cow<'_, Array> {
    fn ty() -> Ty {
        Ty::Values
    }
    fn write(&self, t: &mut Tape) {
        Array::write(self, t);
    }
}

/// As the list of optional arrays it holds.
impl Wire for GradList {
    fn ty() -> Ty {
        Ty::List(Box::new(Ty::Opt(Box::new(Ty::Values))))
    }
    #[cfg_attr(hookgrad_nightly, optimize(speed))]
    fn write(&self, t: &mut Tape) {
        t.len(self.len());
        for v in self.iter() {
            match v {
                Some((shape, values)) => t.values(shape, values),
                None => t.none(),
            }
        }
    }
}

/// `-1`, or the value: a value's first word is never negative (checked for
/// every declaration by `gen_js`).
impl<T: Wire> Wire for Option<T> {
    fn ty() -> Ty {
        Ty::Opt(Box::new(T::ty()))
    }
    #[inline]
    fn write(&self, t: &mut Tape) {
        match self {
            Some(v) => v.write(t),
            None => t.none(),
        }
    }
}

impl<T: Wire> Wire for [T] {
    fn ty() -> Ty {
        Ty::List(Box::new(T::ty()))
    }
    #[inline]
    fn write(&self, t: &mut Tape) {
        t.len(self.len());
        for v in self {
            v.write(t);
        }
    }
}

impl<T: Wire> Wire for Vec<T> {
    fn ty() -> Ty {
        <[T]>::ty()
    }
    #[inline]
    fn write(&self, t: &mut Tape) {
        self.as_slice().write(t);
    }
}

impl<T: Wire + Clone> Wire for Cow<'_, [T]> {
    fn ty() -> Ty {
        <[T]>::ty()
    }
    #[inline]
    fn write(&self, t: &mut Tape) {
        (**self).write(t);
    }
}
