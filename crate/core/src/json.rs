//! A small JSON writer for `graph()` and `trace()`: building the result as
//! one string and parsing it once in JS is ~10× faster than creating each
//! object field through the wasm boundary. Non-finite numbers (not JSON)
//! are written as the strings "\0NaN", "\0Infinity", "\0-Infinity" and flagged,
//! so the binding revives them only when present.

use crate::tensor::Array;

pub struct JsonWriter {
    pub out: String,
    pub has_nonfinite: bool,
}

impl Default for JsonWriter {
    fn default() -> Self {
        JsonWriter {
            out: String::with_capacity(4096),
            has_nonfinite: false,
        }
    }
}

impl JsonWriter {
    pub fn raw(&mut self, s: &str) {
        self.out.push_str(s);
    }

    pub fn string(&mut self, s: &str) {
        self.out.push('"');
        for c in s.chars() {
            match c {
                '"' => self.out.push_str("\\\""),
                '\\' => self.out.push_str("\\\\"),
                '\n' => self.out.push_str("\\n"),
                '\r' => self.out.push_str("\\r"),
                '\t' => self.out.push_str("\\t"),
                c if (c as u32) < 0x20 || c == '\u{2028}' || c == '\u{2029}' => {
                    self.out.push_str(&format!("\\u{:04x}", c as u32));
                }
                c => self.out.push(c),
            }
        }
        self.out.push('"');
    }

    pub fn number(&mut self, v: f64) {
        if v.is_finite() {
            // Shortest representation that round-trips (f32 values as f64).
            self.out.push_str(&format!("{v}"));
        } else {
            self.has_nonfinite = true;
            // Sentinels start with U+0000 so no ordinary string collides.
            self.out.push_str(if v.is_nan() {
                "\"\\u0000NaN\""
            } else if v > 0.0 {
                "\"\\u0000Infinity\""
            } else {
                "\"\\u0000-Infinity\""
            });
        }
    }

    pub fn uint(&mut self, v: u64) {
        self.out.push_str(&v.to_string());
    }

    pub fn opt_uint(&mut self, v: Option<u64>) {
        match v {
            Some(v) => self.uint(v),
            None => self.raw("null"),
        }
    }

    pub fn bool(&mut self, b: bool) {
        self.raw(if b { "true" } else { "false" });
    }

    /// Nested arrays for an ndarray (a bare number for 0-d).
    pub fn array(&mut self, a: &Array) {
        let flat: Vec<f32> = a.iter().copied().collect();
        self.nested(&flat, a.shape());
    }

    fn nested(&mut self, values: &[f32], shape: &[usize]) {
        match shape.split_first() {
            None => self.number(f64::from(values.first().copied().unwrap_or(0.0))),
            Some((&n, rest)) => {
                let stride: usize = rest.iter().product();
                self.out.push('[');
                for i in 0..n {
                    if i > 0 {
                        self.out.push(',');
                    }
                    let chunk = values.get(i * stride..(i + 1) * stride).unwrap_or(&[]);
                    self.nested(chunk, rest);
                }
                self.out.push(']');
            }
        }
    }

    pub fn opt_array(&mut self, a: &Option<Array>) {
        match a {
            Some(a) => self.array(a),
            None => self.raw("null"),
        }
    }

    /// `[f(item), …]`.
    pub fn list<T>(&mut self, items: impl IntoIterator<Item = T>, mut f: impl FnMut(&mut Self, T)) {
        self.out.push('[');
        for (i, item) in items.into_iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            f(self, item);
        }
        self.out.push(']');
    }

    /// `"key":` (keys are plain identifiers).
    pub fn key(&mut self, k: &str) {
        self.out.push('"');
        self.out.push_str(k);
        self.out.push_str("\":");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_numbers_and_arrays() {
        let mut w = JsonWriter::default();
        w.raw("[");
        w.string("a\"b\\c\n<\u{1}>");
        w.raw(",");
        w.number(0.1f32 as f64);
        w.raw(",");
        w.number(f64::NAN);
        w.raw(",");
        w.array(
            &Array::from_shape_vec(ndarray::IxDyn(&[2, 2]), vec![1.0, 2.0, 3.0, 4.5])
                .unwrap_or_default(),
        );
        w.raw("]");
        assert_eq!(
            w.out,
            "[\"a\\\"b\\\\c\\n<\\u0001>\",0.10000000149011612,\"\\u0000NaN\",[[1,2],[3,4.5]]]"
        );
        assert!(w.has_nonfinite);
    }
}
