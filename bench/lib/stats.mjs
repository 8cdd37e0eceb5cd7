// Medians, spreads, formatting, and the gradient check.

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** Half the interquartile-ish range (min..max for small n) as ± % of the median. */
export const spreadPct = (xs) => {
  if (xs.length < 2) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.max(0, Math.round(p * (s.length - 1))))];
  return (100 * (q(0.75) - q(0.25))) / 2 / median(xs);
};

export function fmtMs(ms) {
  if (ms == null || Number.isNaN(ms)) return 'n/a';
  if (ms >= 100) return `${ms.toFixed(0)} ms`;
  if (ms >= 10) return `${ms.toFixed(1)} ms`;
  if (ms >= 1) return `${ms.toFixed(2)} ms`;
  return `${(ms * 1000).toFixed(0)} µs`;
}

export const fmtCell = (xs) => (xs && xs.length ? `${fmtMs(median(xs))} ±${spreadPct(xs).toFixed(0)}%` : 'n/a');

export const fmtBytes = (b) => (b >= 1024 * 1024 ? `${(b / 1024 / 1024).toFixed(2)} MB` : `${(b / 1024).toFixed(1)} KB`);

/**
 * Compare two results: loss relative, and every gradient tensor by
 * max|a - b| / max|ref| (relative to the tensor's largest entry, so float32
 * summation order does not fail entries that cancel to ~0).
 */
export function compare(got, ref) {
  const errs = [];
  errs.push(Math.abs(got.loss - ref.loss) / Math.max(Math.abs(ref.loss), 1e-12));
  if (got.grads.length !== ref.grads.length) return { ok: false, err: Infinity, why: `${got.grads.length} gradients, expected ${ref.grads.length}` };
  for (let k = 0; k < ref.grads.length; k++) {
    const a = got.grads[k], b = ref.grads[k];
    if (a.length !== b.length) return { ok: false, err: Infinity, why: `gradient ${k}: ${a.length} values, expected ${b.length}` };
    let maxRef = 0, maxDiff = 0;
    for (let i = 0; i < b.length; i++) {
      maxRef = Math.max(maxRef, Math.abs(b[i]));
      const d = Math.abs(a[i] - b[i]);
      maxDiff = Number.isNaN(d) ? Infinity : Math.max(maxDiff, d);
    }
    errs.push(maxDiff / Math.max(maxRef, 1e-12));
  }
  const err = Math.max(...errs);
  return { ok: err <= 1e-3, err, why: err <= 1e-3 ? '' : `relative error ${err.toExponential(2)} > 1e-3` };
}
