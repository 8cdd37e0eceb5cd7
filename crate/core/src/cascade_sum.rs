//! PyTorch's float32 sum, in its order of additions (aten/src/ATen/native/
//! cpu/SumKernel.cpp, `cascade_sum`): what `t.sum()`, `t.mean()`,
//! `t.sum(dim)` and the broadcast gradients (`sum_to`) print to the last
//! bit. The sum kernel runs at AVX2 width (8 floats) even on AVX512 CPUs;
//! tests/fixtures/float_bits.json (real torch 2.15) checks every branch.
//!
//! Three patterns, all built from one `cascade`:
//! - `cascade`: running sums over blocks of 16 (more for huge rows) fed
//!   into 4 levels, so that only numbers of a similar size are added;
//! - `row`: 4 interleaved cascades (ILP 4), the leftover values added to
//!   the first, then the 4 partial sums in order;
//! - a contiguous row of >= 8 is 8 interleaved `row`s (one per vector
//!   lane), its tail and then the lanes added from 0.
//!
//! A reduction over a dimension with contiguous values after it sums each
//! column over the rows: 32 columns at a time as plain cascades, then 8 at
//! a time as `row`s, then one by one as `row`s (fewer than 8 columns: 4 at
//! a time as cascades, the rest as `row`s).

/// Vector width of the sum kernel (AVX2 floats).
const LANES: usize = 8;

/// `multi_row_sum` for one row: `load(i)` for `i` in `0..size`.
fn cascade(size: usize, load: &dyn Fn(usize) -> f32) -> f32 {
    const LEVELS: usize = 4;
    let ceil_log2 = if size <= 1 {
        0
    } else {
        usize::BITS - (size - 1).leading_zeros()
    };
    let power = (ceil_log2 as usize / LEVELS).max(4);
    let step = 1usize << power;
    let mask = step - 1;
    let mut acc = [0.0f32; LEVELS];
    let mut i = 0;
    while i + step <= size {
        for _ in 0..step {
            acc[0] += load(i);
            i += 1;
        }
        for j in 1..LEVELS {
            acc[j] += acc[j - 1];
            acc[j - 1] = 0.0;
            if i & (mask << (j * power)) != 0 {
                break;
            }
        }
    }
    while i < size {
        acc[0] += load(i);
        i += 1;
    }
    for j in 1..LEVELS {
        acc[0] += acc[j];
    }
    acc[0]
}

/// `row_sum`: four interleaved cascades, the rest, then the four in order.
fn row(size: usize, load: &dyn Fn(usize) -> f32) -> f32 {
    let quads = size / 4;
    let mut p = [0.0f32; 4];
    for (k, p) in p.iter_mut().enumerate() {
        *p = cascade(quads, &|i| load(i * 4 + k));
    }
    for i in quads * 4..size {
        p[0] += load(i);
    }
    p[0] + p[1] + p[2] + p[3]
}

/// The sum of contiguous values (a whole tensor, or one innermost row).
pub(crate) fn sum(xs: &[f32]) -> f32 {
    let n = xs.len();
    if n < LANES {
        return 0.0 + row(n, &|i| xs[i]);
    }
    let vectors = n / LANES;
    let mut total = 0.0f32;
    for &x in &xs[vectors * LANES..] {
        total += x;
    }
    for lane in 0..LANES {
        total += row(vectors, &|i| xs[i * LANES + lane]);
    }
    0.0 + total
}

/// The column sums of `rows × cols` contiguous values (reducing over rows).
pub(crate) fn column_sums(xs: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    if cols == 1 {
        return vec![sum(&xs[..rows])];
    }
    let column = |c: usize| move |i: usize| xs[i * cols + c];
    let mut out = Vec::with_capacity(cols);
    let (block, rows_from) = if cols >= LANES {
        (4 * LANES, LANES)
    } else {
        (4, cols)
    };
    let mut c = 0;
    while c + block <= cols {
        out.extend((c..c + block).map(|c| 0.0 + cascade(rows, &column(c))));
        c += block;
    }
    // Whole vectors of 8 (only with >= 8 columns), then one by one.
    while cols >= LANES && c + rows_from <= cols {
        out.extend((c..c + rows_from).map(|c| 0.0 + row(rows, &column(c))));
        c += rows_from;
    }
    out.extend((c..cols).map(|c| 0.0 + row(rows, &column(c))));
    out
}
