//! PyTorch's tensor repr (`torch/_tensor_str.py` with default print options:
//! precision 4, linewidth 80, summarize above 1000 elements with 3 edge
//! items): `tensor(6., grad_fn=<MulBackward0>)`.

use crate::tensor::{Array, Tensor};

const PRECISION: usize = 4;
const LINEWIDTH: usize = 80;
const THRESHOLD: usize = 1000;
const EDGEITEMS: usize = 3;

struct Formatter {
    int_mode: bool,
    sci_mode: bool,
    max_width: usize,
}

pub mod decimal;

/// Python's `{:.4e}`: exponent with sign and at least two digits.
fn sci(v: f64) -> String {
    decimal::sci(v, PRECISION)
}

fn nonfinite(v: f64) -> Option<String> {
    if v.is_nan() {
        Some("nan".into())
    } else if v.is_infinite() {
        Some(if v > 0.0 { "inf".into() } else { "-inf".into() })
    } else {
        None
    }
}

impl Formatter {
    fn new(values: &[f64]) -> Self {
        let mut f = Formatter {
            int_mode: true,
            sci_mode: false,
            max_width: 1,
        };
        let nz: Vec<f64> = values
            .iter()
            .copied()
            .filter(|v| v.is_finite() && *v != 0.0)
            .collect();
        // Width of non-finite values and zeros still count via format() padding.
        for v in values {
            if let Some(s) = nonfinite(*v) {
                f.max_width = f.max_width.max(s.len());
            }
        }
        if nz.is_empty() {
            return f;
        }
        let abs: Vec<f64> = nz.iter().map(|v| v.abs()).collect();
        let min = abs.iter().copied().fold(f64::INFINITY, f64::min);
        let max = abs.iter().copied().fold(0.0, f64::max);
        f.int_mode = nz.iter().all(|v| v.ceil() == *v);
        if f.int_mode {
            if max / min > 1000.0 || max > 1.0e8 {
                f.sci_mode = true;
                for v in &nz {
                    f.max_width = f.max_width.max(sci(*v).len());
                }
            } else {
                for v in &nz {
                    f.max_width = f.max_width.max(decimal::fixed(*v, 0).len() + 1);
                }
            }
        } else if max / min > 1000.0 || max > 1.0e8 || min < 1.0e-4 {
            f.sci_mode = true;
            for v in &nz {
                f.max_width = f.max_width.max(sci(*v).len());
            }
        } else {
            for v in &nz {
                f.max_width = f.max_width.max(decimal::fixed(*v, PRECISION).len());
            }
        }
        f
    }

    fn format(&self, v: f64) -> String {
        let s = if let Some(s) = nonfinite(v) {
            s
        } else if self.sci_mode {
            sci(v)
        } else if self.int_mode {
            decimal::fixed(v, 0) + "."
        } else {
            decimal::fixed(v, PRECISION)
        };
        format!("{:>width$}", s, width = self.max_width)
    }
}

/// The indices shown of `n` (all, or the edge items around a `None` for
/// the ellipsis when summarizing); plain pushes rather than a chain of
/// iterators per element type (issue 10, W5).
fn shown(n: usize, summarize: bool) -> Vec<Option<usize>> {
    let mut out = Vec::with_capacity(n.min(2 * EDGEITEMS + 1));
    if summarize && n > 2 * EDGEITEMS {
        out.extend((0..EDGEITEMS).map(Some));
        out.push(None);
        out.extend((n - EDGEITEMS..n).map(Some));
    } else {
        out.extend((0..n).map(Some));
    }
    out
}

fn vector_str(values: &[f32], indent: usize, summarize: bool, f: &Formatter) -> String {
    let element_length = f.max_width + 2;
    let per_line = ((LINEWIDTH.saturating_sub(indent)) / element_length).max(1);
    let data: Vec<String> = shown(values.len(), summarize)
        .into_iter()
        .map(|i| match i {
            Some(i) => f.format(f64::from(values[i])),
            None => " ...".to_string(),
        })
        .collect();
    let lines: Vec<String> = data.chunks(per_line).map(|c| c.join(", ")).collect();
    format!(
        "[{}]",
        lines.join(&format!(",\n{}", " ".repeat(indent + 1)))
    )
}

/// `values` (row-major) of `shape`, nested as PyTorch prints them.
fn tensor_str(
    values: &[f32],
    shape: &[usize],
    indent: usize,
    summarize: bool,
    f: &Formatter,
) -> String {
    match shape.len() {
        0 => f.format(values.first().copied().map_or(0.0, f64::from)),
        1 => vector_str(values, indent, summarize, f),
        dim => {
            let block: usize = shape[1..].iter().product();
            let slices: Vec<String> = shown(shape[0], summarize)
                .into_iter()
                .map(|i| match i {
                    Some(i) => tensor_str(
                        &values[i * block..(i + 1) * block],
                        &shape[1..],
                        indent + 1,
                        summarize,
                        f,
                    ),
                    None => "...".to_string(),
                })
                .collect();
            let sep = format!(",{}{}", "\n".repeat(dim - 1), " ".repeat(indent + 1));
            format!("[{}]", slices.join(&sep))
        }
    }
}

/// The body inside `tensor(...)` for a value array (no suffixes).
pub fn array_repr(a: &Array) -> String {
    repr_with_suffixes(a, &[])
}

fn repr_with_suffixes(a: &Array, suffixes: &[String]) -> String {
    let prefix = "tensor(";
    let indent = prefix.len();
    let summarize = a.len() > THRESHOLD;
    let mut suffixes: Vec<String> = suffixes.to_vec();
    let body = if a.is_empty() {
        if a.ndim() != 1 {
            let dims: Vec<String> = a.shape().iter().map(|d| d.to_string()).collect();
            suffixes.insert(0, format!("size=({})", dims.join(", ")));
        }
        "[]".to_string()
    } else {
        let flat = a.as_slice();
        // PyTorch builds the formatter from the summarized data only.
        let values: Vec<f64> = shown(flat.len(), summarize)
            .into_iter()
            .flatten()
            .map(|i| f64::from(flat[i]))
            .collect();
        let f = Formatter::new(&values);
        tensor_str(flat, a.shape(), indent, summarize, &f)
    };
    let mut out = format!("{prefix}{body}");
    let mut last_line_len = out.len() - out.rfind('\n').map(|i| i + 1).unwrap_or(0) + 1;
    for s in suffixes {
        if last_line_len + s.len() + 2 > LINEWIDTH {
            out.push_str(&format!(",\n{}{}", " ".repeat(indent), s));
            last_line_len = indent + s.len();
        } else {
            out.push_str(&format!(", {s}"));
            last_line_len += s.len() + 2;
        }
    }
    out.push(')');
    out
}

/// `repr(t)` as PyTorch prints it.
pub fn tensor_repr(t: &Tensor) -> String {
    let data = t
        .to_array()
        .unwrap_or_else(|_| crate::error::fault_default("tensor data is busy while printing it"));
    let mut suffixes = Vec::new();
    if let Some(f) = t.grad_fn() {
        suffixes.push(format!("grad_fn=<{}>", f.name));
    } else if t.requires_grad() {
        suffixes.push("requires_grad=True".to_string());
    }
    repr_with_suffixes(&data, &suffixes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::*;

    #[test]
    fn reprs_match_pytorch() {
        assert_eq!(array_repr(&arr(&[8.0], &[])), "tensor(8.)");
        assert_eq!(array_repr(&arr(&[6.5], &[])), "tensor(6.5000)");
        assert_eq!(
            tensor_repr(&leaf(&[1.0, 2.0], &[2])),
            "tensor([1., 2.], requires_grad=True)"
        );
        assert_eq!(
            array_repr(&arr(&[1.0, 2.0, 3.0, 4.0], &[2, 2])),
            "tensor([[1., 2.],\n        [3., 4.]])"
        );
        assert_eq!(
            array_repr(&arr(&[0.5, -1.25], &[2])),
            "tensor([ 0.5000, -1.2500])"
        );
        assert_eq!(
            array_repr(&arr(&[1e-5, 1.0], &[2])),
            "tensor([1.0000e-05, 1.0000e+00])"
        );
        assert_eq!(array_repr(&arr(&[0.0, 0.0], &[2])), "tensor([0., 0.])");
        assert_eq!(array_repr(&arr(&[], &[0])), "tensor([])");
        let a = leaf(&[2.0], &[]);
        let c = ok(crate::ops::arith::mul(
            &a,
            &crate::ops::Operand::Scalar(3.0),
        ));
        assert_eq!(tensor_repr(&c), "tensor(6., grad_fn=<MulBackward0>)");
    }
}
