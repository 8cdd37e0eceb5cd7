// An independent float64 reference autodiff for the random-program tests.
// It shares no code with hookgrad: plain JS arrays, row-major, broadcasting
// by right alignment, and a backward written from the textbook derivatives.
// Each tensor is { shape: number[], data: Float64Array }.

export const numel = (shape) => shape.reduce((a, b) => a * b, 1);
export const make = (shape, data) => ({ shape: shape.slice(), data: data instanceof Float64Array ? data : Float64Array.from(data) });
export const zerosLike = (shape) => make(shape, new Float64Array(numel(shape)));

/** Nested arrays (or a number) from a tensor, like hookgrad's toArray(). */
export function toNested(t) {
  if (t.shape.length === 0) return t.data[0];
  let pos = 0;
  const rec = (d) => {
    const out = [];
    for (let i = 0; i < t.shape[d]; i++) out.push(d === t.shape.length - 1 ? t.data[pos++] : rec(d + 1));
    return out;
  };
  return rec(0);
}

/** Flatten nested arrays / a number into a shape and values. */
export function fromNested(v) {
  const shape = [];
  let cur = v;
  while (Array.isArray(cur)) { shape.push(cur.length); cur = cur[0]; }
  return make(shape, (Array.isArray(v) ? v.flat(Infinity) : [v]).map(Math.fround));
}

export function broadcastShape(a, b) {
  const n = Math.max(a.length, b.length);
  const out = [];
  for (let i = 0; i < n; i++) {
    const da = a[a.length - n + i] ?? 1;
    const db = b[b.length - n + i] ?? 1;
    if (da !== db && da !== 1 && db !== 1) return null;
    out.push(da === 1 ? db : da);
  }
  return out;
}

/** For each flat index of `out`, the flat index into a tensor of `shape` broadcast to it. */
function indexMap(shape, out) {
  const n = numel(out);
  const map = new Int32Array(n);
  const off = out.length - shape.length;
  const strides = new Array(shape.length);
  let s = 1;
  for (let d = shape.length - 1; d >= 0; d--) { strides[d] = s; s *= shape[d]; }
  const idx = new Array(out.length).fill(0);
  for (let i = 0; i < n; i++) {
    let f = 0;
    for (let d = 0; d < shape.length; d++) if (shape[d] !== 1) f += idx[d + off] * strides[d];
    map[i] = f;
    for (let d = out.length - 1; d >= 0; d--) { if (++idx[d] < out[d]) break; idx[d] = 0; }
  }
  return map;
}

/** Sum a tensor of shape `from` (already broadcast) down to `shape`. */
function sumTo(data, from, shape) {
  const out = new Float64Array(numel(shape));
  const map = indexMap(shape, from);
  for (let i = 0; i < data.length; i++) out[map[i]] += data[i];
  return make(shape, out);
}

function binary(a, b, f) {
  const shape = broadcastShape(a.shape, b.shape);
  const ma = indexMap(a.shape, shape);
  const mb = indexMap(b.shape, shape);
  const out = new Float64Array(numel(shape));
  for (let i = 0; i < out.length; i++) out[i] = f(a.data[ma[i]], b.data[mb[i]]);
  return { out: make(shape, out), ma, mb, shape };
}

const unaryFns = {
  neg: [(x) => -x, () => -1],
  exp: [Math.exp, (x, y) => y],
  log: [Math.log, (x) => 1 / x],
  sin: [Math.sin, Math.cos],
  cos: [Math.cos, (x) => -Math.sin(x)],
  tanh: [Math.tanh, (x, y) => 1 - y * y],
  sigmoid: [(x) => 1 / (1 + Math.exp(-x)), (x, y) => y * (1 - y)],
  relu: [(x) => (x > 0 ? x : 0), (x) => (x > 0 ? 1 : 0)],
  abs: [Math.abs, (x) => Math.sign(x)],
  sqrt: [Math.sqrt, (x, y) => 0.5 / y],
};

const wrap = (dim, rank) => (dim < 0 ? dim + rank : dim);

/** outer × n × inner around dimension d of shape. */
const lanes = (shape, d) => ({ outer: numel(shape.slice(0, d)), n: shape[d], inner: numel(shape.slice(d + 1)) });

/** softmax / log_softmax along dim (a 0-d tensor is its own class). */
function softmaxOp(a, dim, log) {
  if (a.shape.length === 0) {
    const out = make([], [log ? 0 : 1]);
    return { out, back: (G) => [make([], [log ? 0 : 0 * G.data[0]])] };
  }
  const { outer, n, inner } = lanes(a.shape, wrap(dim, a.shape.length));
  const y = new Float64Array(a.data.length);
  const at = (o, k, i) => (o * n + k) * inner + i;
  for (let o = 0; o < outer; o++) for (let i = 0; i < inner; i++) {
    let m = -Infinity;
    for (let k = 0; k < n; k++) m = Math.max(m, a.data[at(o, k, i)]);
    let s = 0;
    for (let k = 0; k < n; k++) s += Math.exp(a.data[at(o, k, i)] - m);
    for (let k = 0; k < n; k++) {
      const lp = a.data[at(o, k, i)] - m - Math.log(s);
      y[at(o, k, i)] = log ? lp : Math.exp(lp);
    }
  }
  return {
    out: make(a.shape, y),
    back: (G) => {
      const g = new Float64Array(y.length);
      for (let o = 0; o < outer; o++) for (let i = 0; i < inner; i++) {
        let s = 0;
        for (let k = 0; k < n; k++) s += log ? G.data[at(o, k, i)] : G.data[at(o, k, i)] * y[at(o, k, i)];
        for (let k = 0; k < n; k++) {
          const j = at(o, k, i);
          g[j] = log ? G.data[j] - Math.exp(y[j]) * s : y[j] * (G.data[j] - s);
        }
      }
      return [make(a.shape, g)];
    },
  };
}

/** torch.cat along dim; inputs agree on every other dimension. */
function catOp(ts, dim) {
  const d = wrap(dim, ts[0].shape.length);
  const sizes = ts.map((t) => t.shape[d]);
  const total = sizes.reduce((x, y) => x + y, 0);
  const shape = ts[0].shape.slice();
  shape[d] = total;
  const { outer, inner } = lanes(shape, d);
  const out = new Float64Array(numel(shape));
  let off = 0;
  const offs = [];
  ts.forEach((t, j) => {
    offs.push(off);
    for (let o = 0; o < outer; o++) for (let k = 0; k < sizes[j]; k++) for (let i = 0; i < inner; i++) out[(o * total + off + k) * inner + i] = t.data[(o * sizes[j] + k) * inner + i];
    off += sizes[j];
  });
  return {
    out: make(shape, out),
    back: (G) => ts.map((t, j) => {
      const g = new Float64Array(t.data.length);
      for (let o = 0; o < outer; o++) for (let k = 0; k < sizes[j]; k++) for (let i = 0; i < inner; i++) g[(o * sizes[j] + k) * inner + i] = G.data[(o * total + offs[j] + k) * inner + i];
      return make(t.shape, g);
    }),
  };
}

/** The shape of a.unsqueeze(dim) / a.squeeze(dim?) / a.expand(sizes). */
export function viewShape(op, shape, params) {
  if (op === 'unsqueeze') { const s = shape.slice(); s.splice(wrap(params.dim, shape.length + 1), 0, 1); return s; }
  if (op === 'squeeze') {
    if (params.dim === undefined) return shape.filter((x) => x !== 1);
    const d = wrap(params.dim, shape.length);
    return shape.length === 0 || shape[d] !== 1 ? shape.slice() : shape.filter((_, i) => i !== d);
  }
  if (op === 'expand') {
    const sizes = params.shape;
    const off = sizes.length - shape.length;
    return sizes.map((x, i) => (x === -1 ? shape[i - off] : x));
  }
  throw new Error(`viewShape: ${op}`);
}

function reduceDim(t, dim, keepdim, mean) {
  const r = t.shape.length;
  const d = dim < 0 ? dim + r : dim;
  const outer = numel(t.shape.slice(0, d));
  const n = t.shape[d];
  const inner = numel(t.shape.slice(d + 1));
  const out = new Float64Array(outer * inner);
  for (let o = 0; o < outer; o++) for (let k = 0; k < n; k++) for (let i = 0; i < inner; i++) out[o * inner + i] += t.data[(o * n + k) * inner + i];
  if (mean) for (let i = 0; i < out.length; i++) out[i] /= n;
  const shape = t.shape.slice();
  if (keepdim) shape[d] = 1; else shape.splice(d, 1);
  return { out: make(shape, out), d, outer, n, inner };
}

function transpose2(t, d0, d1) {
  const r = t.shape.length;
  const a = d0 < 0 ? d0 + r : d0;
  const b = d1 < 0 ? d1 + r : d1;
  const shape = t.shape.slice();
  [shape[a], shape[b]] = [shape[b], shape[a]];
  const out = new Float64Array(t.data.length);
  const idx = new Array(r).fill(0);
  const ostr = new Array(r);
  let s = 1;
  for (let d = r - 1; d >= 0; d--) { ostr[d] = s; s *= shape[d]; }
  for (let i = 0; i < t.data.length; i++) {
    const j = idx.slice();
    [j[a], j[b]] = [j[b], j[a]];
    let f = 0;
    for (let d = 0; d < r; d++) f += j[d] * ostr[d];
    out[f] = t.data[i];
    for (let d = r - 1; d >= 0; d--) { if (++idx[d] < t.shape[d]) break; idx[d] = 0; }
  }
  return make(shape, out);
}

function mm(A, m, k, B, n) { // A [m,k] · B [k,n]
  const out = new Float64Array(m * n);
  for (let i = 0; i < m; i++) for (let p = 0; p < k; p++) { const a = A[i * k + p]; for (let j = 0; j < n; j++) out[i * n + j] += a * B[p * n + j]; }
  return out;
}
const T2 = (A, m, n) => { const o = new Float64Array(m * n); for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) o[j * m + i] = A[i * n + j]; return o; };

/** matmul for 1-D/2-D operands; returns null when the shapes do not fit. */
export function matmulShape(sa, sb) {
  if (sa.length < 1 || sb.length < 1 || sa.length > 2 || sb.length > 2) return null;
  const k1 = sa[sa.length - 1];
  const k2 = sb.length === 1 ? sb[0] : sb[0];
  if (k1 !== k2) return null;
  if (sa.length === 1 && sb.length === 1) return [];
  if (sa.length === 2 && sb.length === 1) return [sa[0]];
  if (sa.length === 1) return [sb[1]];
  return [sa[0], sb[1]];
}

/**
 * Forward one op. Returns { out, back } where back(G) gives the gradient
 * for each tensor argument (null for number arguments).
 */
export function forward(op, args, params = {}) {
  const [a, b] = args;
  const isT = (x) => typeof x === 'object' && x !== null;
  switch (op) {
    case 'add': case 'sub': case 'mul': case 'div': {
      const bt = isT(b) ? b : make([], [Math.fround(b)]);
      const f = { add: (x, y) => x + y, sub: (x, y) => x - y, mul: (x, y) => x * y, div: (x, y) => x / y }[op];
      const da = { add: () => 1, sub: () => 1, mul: (x, y) => y, div: (x, y) => 1 / y }[op];
      const db = { add: () => 1, sub: () => -1, mul: (x) => x, div: (x, y) => -x / (y * y) }[op];
      const { out, ma, mb, shape } = binary(a, bt, f);
      return {
        out,
        back: (G) => {
          const ga = new Float64Array(G.data.length);
          const gb = new Float64Array(G.data.length);
          for (let i = 0; i < ga.length; i++) {
            const x = a.data[ma[i]]; const y = bt.data[mb[i]];
            ga[i] = G.data[i] * da(x, y); gb[i] = G.data[i] * db(x, y);
          }
          return [sumTo(ga, shape, a.shape), isT(b) ? sumTo(gb, shape, b.shape) : null];
        },
      };
    }
    case 'pow': {
      const e = Math.fround(params.exponent);
      const out = make(a.shape, a.data.map((x) => x ** e));
      return { out, back: (G) => [make(a.shape, G.data.map((g, i) => (e === 0 ? 0 : g * e * a.data[i] ** (e - 1))))] };
    }
    case 'matmul': {
      const shape = matmulShape(a.shape, b.shape);
      const A2 = a.shape.length === 1 ? [1, a.shape[0]] : a.shape;
      const B2 = b.shape.length === 1 ? [b.shape[0], 1] : b.shape;
      const [m, k] = A2; const n = B2[1];
      const out = make(shape, mm(a.data, m, k, b.data, n));
      return {
        out,
        back: (G) => { // G as [m, n]
          const gA = mm(G.data, m, n, T2(b.data, k, n), k);
          const gB = mm(T2(a.data, m, k), k, m, G.data, n);
          return [make(a.shape, gA), make(b.shape, gB)];
        },
      };
    }
    case 'sum': case 'mean': {
      const mean = op === 'mean';
      if (params.dim === undefined) {
        let s = 0;
        for (const x of a.data) s += x;
        const n = a.data.length;
        return { out: make([], [mean ? s / n : s]), back: (G) => [make(a.shape, new Float64Array(n).fill(mean ? G.data[0] / n : G.data[0]))] };
      }
      const { out, outer, n, inner } = reduceDim(a, params.dim, params.keepdim, mean);
      return {
        out,
        back: (G) => {
          const g = new Float64Array(a.data.length);
          for (let o = 0; o < outer; o++) for (let kk = 0; kk < n; kk++) for (let i = 0; i < inner; i++) g[(o * n + kk) * inner + i] = G.data[o * inner + i] / (mean ? n : 1);
          return [make(a.shape, g)];
        },
      };
    }
    case 'reshape': {
      const shape = params.shape.slice();
      const neg = shape.indexOf(-1);
      if (neg >= 0) shape[neg] = numel(a.shape) / numel(shape.filter((d) => d !== -1));
      return { out: make(shape, a.data.slice()), back: (G) => [make(a.shape, G.data.slice())] };
    }
    case 'transpose': {
      const out = transpose2(a, params.d0, params.d1);
      return { out, back: (G) => [transpose2(G, params.d0, params.d1)] };
    }
    case 't': {
      if (a.shape.length < 2) return { out: make(a.shape, a.data.slice()), back: (G) => [make(a.shape, G.data.slice())] };
      const out = transpose2(a, 0, 1);
      return { out, back: (G) => [transpose2(G, 0, 1)] };
    }
    case 'clone':
      return { out: make(a.shape, a.data.slice()), back: (G) => [make(a.shape, G.data.slice())] };
    case 'unsqueeze': case 'squeeze':
      return { out: make(viewShape(op, a.shape, params), a.data.slice()), back: (G) => [make(a.shape, G.data.slice())] };
    case 'expand': {
      const shape = viewShape(op, a.shape, params);
      const map = indexMap(a.shape, shape);
      return { out: make(shape, Array.from(map, (j) => a.data[j])), back: (G) => [sumTo(G.data, shape, a.shape)] };
    }
    case 'softmax': case 'logSoftmax':
      return softmaxOp(a, params.dim, op === 'logSoftmax');
    case 'cat':
      return catOp(args, params.dim);
    case 'stack': {
      const d = wrap(params.dim, a.shape.length + 1);
      const u = args.map((t) => make(viewShape('unsqueeze', t.shape, { dim: d }), t.data));
      const { out, back } = catOp(u, d);
      return { out, back: (G) => back(G).map((g, j) => make(args[j].shape, g.data)) };
    }
    case 'mseLoss': { // same shapes; reduction 'mean' | 'sum' | 'none'
      const n = a.data.length;
      const diff = a.data.map((x, i) => x - b.data[i]);
      const sq = diff.map((x) => x * x);
      const red = params.reduction;
      const out = red === 'none' ? make(a.shape, sq) : make([], [sq.reduce((x, y) => x + y, 0) / (red === 'mean' ? n : 1)]);
      return {
        out,
        back: (G) => {
          const k = red === 'mean' ? 2 / n : 2;
          const ga = diff.map((x, i) => k * x * (red === 'none' ? G.data[i] : G.data[0]));
          return [make(a.shape, ga), make(b.shape, ga.map((x) => -x))];
        },
      };
    }
    default: {
      const u = unaryFns[op];
      if (!u) throw new Error(`reference: unknown op ${op}`);
      const y = a.data.map((x) => u[0](x));
      return { out: make(a.shape, y), back: (G) => [make(a.shape, G.data.map((g, i) => g * u[1](a.data[i], y[i])))] };
    }
  }
}

export const addInto = (acc, g) => (acc === null ? make(g.shape, g.data.slice()) : make(acc.shape, acc.data.map((x, i) => x + g.data[i])));
export const scale = (t, c, d = 0) => make(t.shape, t.data.map((x) => x * Math.fround(c) + Math.fround(d)));
