//! Values in records: a tensor's elements as nested lists (f32 widened to
//! f64, what `t.item()` returns), a node's gradients in one buffer
//! ([`GradList`]), and the JSON writer with its non-finite sentinels.
//!
//! JSON has no NaN or ±Infinity: [`to_json`] writes the strings
//! "\u0000NaN", "\u0000Infinity", "\u0000-Infinity" and reports that it did,
//! so a reader can revive them; [`serialize_numbers`] (serde-wasm-bindgen
//! into JS objects) hands the numbers over as they are.

use std::cell::Cell;

use serde::ser::{SerializeSeq, Serializer};
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
impl Serialize for Array {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        Nested {
            values: self.as_slice(),
            shape: self.shape(),
        }
        .serialize(s)
    }
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
