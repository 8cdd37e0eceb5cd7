// Pure value formatting, PyTorch style: integral floats print as `8.`, others
// with 4 decimals (`0.1000`), very large/small ones in scientific notation.
// Shared by the page (graph boxes, inspector) and the unit tests.

/** Flattens nested arrays (or a number) into a list of numbers. */
export function flatten(v, out = []) {
  if (Array.isArray(v)) for (const x of v) flatten(x, out);
  else if (typeof v === 'number') out.push(v);
  return out;
}

/** Picks one number format for all elements, as PyTorch does per tensor. */
export function chooseFormat(nums) {
  const finite = nums.filter(Number.isFinite);
  const maxAbs = finite.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
  const minAbs = finite.filter((x) => x !== 0).reduce((m, x) => Math.min(m, Math.abs(x)), Infinity);
  if (finite.every((x) => Number.isInteger(x)) && maxAbs < 1e8) return 'int';
  if (maxAbs >= 1e8 || (minAbs < 1e-4 && minAbs !== Infinity)) return 'sci';
  return 'fixed';
}

export function formatScalar(x, fmt = chooseFormat([x])) {
  if (typeof x !== 'number') return String(x);
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (fmt === 'int') return `${Object.is(x, -0) ? '-0' : x.toFixed(0)}.`;
  if (fmt === 'sci') return x.toExponential(4).replace(/e([+-])(\d)$/, 'e$10$2');
  return x.toFixed(4);
}

/**
 * Formats a value from graph()/trace() data: a number (0-d tensor), nested
 * arrays, or null (printed as PyTorch's `None`). `maxLen` truncates with "…".
 */
export function formatValue(v, maxLen = Infinity) {
  if (v === null || v === undefined) return 'None';
  const fmt = chooseFormat(flatten(v));
  const rec = (x) => (Array.isArray(x) ? `[${x.map(rec).join(', ')}]` : formatScalar(x, fmt));
  const s = rec(v);
  return s.length > maxLen ? `${s.slice(0, Math.max(1, maxLen - 1))}…` : s;
}

/** A list of gradients (grad_inputs, hook arguments) as a Python tuple. */
export function formatList(list, maxLen = Infinity) {
  if (!Array.isArray(list)) return formatValue(list, maxLen);
  const inner = list.map((x) => formatValue(x));
  const s = list.length === 1 ? `(${inner[0]},)` : `(${inner.join(', ')})`;
  return s.length > maxLen ? `${s.slice(0, Math.max(1, maxLen - 1))}…` : s;
}

/** Shape as PyTorch prints it: `[]` for 0-d, `[2, 3]`. */
export function formatShape(shape) {
  return `[${(shape || []).join(', ')}]`;
}

export const pyBool = (b) => (b ? 'True' : 'False');

/** Equal values (numbers or nested arrays of them; null for None). */
export function sameValue(a, b) {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  return Object.is(a, b) || a === b;
}
