// Seeded random programs over the hookgrad JS API: the PRNG and the
// generator. A program is a list of plain instructions (ops, views, in-place
// ops through views, hooks and their removal); running and comparing them is
// program-check.mjs, and programs.mjs is the entry the suites import.
import * as R from './refgrad.mjs';

// ------------------------------------------------------------ random

/** mulberry32: a small seeded PRNG. */
export function rng(seed) {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: (arr) => arr[Math.floor(next() * arr.length)],
    chance: (p) => next() < p,
    val: (lo = -2, hi = 2) => Math.round((lo + next() * (hi - lo)) * 100) / 100,
  };
}

const MAX_NUMEL = 48;
const MAX_ABS = 50;

const randShape = (r) => {
  const rank = r.pick([0, 1, 1, 2, 2, 2, 3]);
  const s = [];
  for (let i = 0; i < rank; i++) s.push(r.int(1, rank === 3 ? 3 : 4));
  return s;
};

const randData = (r, shape, positive) => {
  const rec = (d) => {
    if (d === shape.length) {
      let v = positive ? r.val(0.3, 2) : r.val();
      if (!positive && Math.abs(v) < 0.05) v = 0.25; // keep away from kinks
      return v;
    }
    return Array.from({ length: shape[d] }, () => rec(d + 1));
  };
  return rec(0);
};

/** A shape that broadcasts with `shape` (result numel bounded). */
function broadcastPartner(r, shape) {
  const rank = Math.max(0, Math.min(3, shape.length + r.pick([-2, -1, 0, 0, 0, 1])));
  const out = [];
  for (let i = 0; i < rank; i++) {
    const j = shape.length - rank + i;
    if (j < 0) out.push(r.int(1, 2));
    else if (shape[j] === 1) out.push(r.pick([1, 1, 2, 3]));
    else out.push(r.chance(0.6) ? shape[j] : 1);
  }
  return out;
}

const minAbs = (t) => t.data.reduce((m, x) => Math.min(m, Math.abs(x)), Infinity);
const minVal = (t) => t.data.reduce((m, x) => Math.min(m, x), Infinity);
const maxAbs = (t) => t.data.reduce((m, x) => Math.max(m, Math.abs(x)), 0);

function factorShape(r, n) {
  // a random shape with numel n, rank 0..3, maybe one -1
  if (n === 1 && r.chance(0.3)) return [];
  const dims = [];
  let rest = n;
  const rank = r.int(1, 3);
  for (let i = 0; i < rank - 1; i++) {
    const divs = [];
    for (let d = 1; d <= rest; d++) if (rest % d === 0) divs.push(d);
    const d = r.pick(divs);
    dims.push(d);
    rest /= d;
  }
  dims.push(rest);
  if (r.chance(0.3)) dims[r.int(0, dims.length - 1)] = -1;
  return dims;
}

// --------------------------------------------------------- generation

/** The second release's ops (tensor methods, hg.cat / hg.stack, mseLoss). */
const NEW_OPS = ['abs', 'sqrt', 'softmax', 'logSoftmax', 'unsqueeze', 'squeeze', 'expand', 'cat', 'stack', 'mseLoss'];
/** Ops whose result is always a view of their input. */
const VIEW_OPS = ['t', 'transpose', 'unsqueeze', 'squeeze'];
/**
 * Ops whose result may be modified in place through a view: not a view
 * itself, and not saved by its own node (exp, tanh, sigmoid, relu, sqrt,
 * softmax save their result: PyTorch's backward would then fail with the
 * "modified by an inplace operation" error).
 */
const INPLACE_BASES = ['add', 'sub', 'mul', 'div', 'neg', 'clone', 'matmul', 'sum', 'mean', 'pow', 'log', 'sin', 'cos', 'abs', 'cat', 'stack', 'mseLoss'];

const shapeEq = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

/** params (and extra tensor arguments) for a new op on `a`, or null when it does not fit. */
function newOpParams(r, op, a, pool, newLeaf) {
  const s = a.val.shape;
  const rank = s.length;
  const dimIn = (n) => r.int(-n, n - 1);
  switch (op) {
    case 'abs': return minAbs(a.val) > 0.05 ? { params: undefined, extra: [] } : null;
    case 'sqrt': return minVal(a.val) > 0.1 ? { params: undefined, extra: [] } : null;
    case 'softmax': case 'logSoftmax': return { params: { dim: rank === 0 ? 0 : dimIn(rank) }, extra: [] };
    case 'unsqueeze': return rank < 3 ? { params: { dim: dimIn(rank + 1) }, extra: [] } : null;
    case 'squeeze': return { params: rank > 0 && r.chance(0.6) ? { dim: dimIn(rank) } : {}, extra: [] };
    case 'expand': {
      const lead = rank < 3 && r.chance(0.4) ? [r.int(1, 3)] : [];
      const sizes = s.map((d) => (d === 1 ? r.pick([1, 2, 3, -1]) : r.pick([d, -1])));
      return { params: { shape: [...lead, ...sizes] }, extra: [] };
    }
    case 'cat': case 'stack': {
      if (op === 'cat' && rank === 0) return null;
      const dim = op === 'cat' ? dimIn(rank) : dimIn(rank + 1);
      const d = dim < 0 ? dim + rank : dim;
      const fits = (p) => p !== a && (op === 'stack' ? shapeEq(p.val.shape, s)
        : p.val.shape.length === rank && p.val.shape.every((x, i) => i === d || x === s[i]));
      const extra = [];
      for (let n = r.int(1, 2); n > 0; n--) {
        const cands = pool.filter(fits);
        if (cands.length && r.chance(0.4)) extra.push(r.pick(cands));
        else {
          const shape = s.slice();
          if (op === 'cat') shape[d] = r.int(1, 3);
          extra.push(newLeaf(shape, r.chance(0.6)));
        }
      }
      return { params: { dim }, extra };
    }
    case 'mseLoss': {
      const cands = pool.filter((p) => p !== a && shapeEq(p.val.shape, s));
      const t = cands.length && r.chance(0.3) ? r.pick(cands) : newLeaf(s, r.chance(0.3));
      return { params: { reduction: r.pick(['mean', 'sum', 'none']) }, extra: [t] };
    }
    default: return null;
  }
}

/**
 * `view.mul_(c)` / `view.add_(c)` where `view` (just made by a view op) is a
 * view of `base`, a fresh non-leaf nothing else uses or hooks: PyTorch
 * writes through to the base (CopySlices). The reference models it as
 * base' = base * c (or + c; the view covers all of base) and view' =
 * viewop(base'); later instructions use base' and view' (the same JS tensors).
 */
function inplaceThroughView(r, prog, pool, base, view, viewOp, viewParams, newId) {
  if (base.leaf || !base.rg || !INPLACE_BASES.includes(base.op)) return null;
  const usedElsewhere = prog.ins.some((i) => (i.k === 'op' && i.id !== view.id && i.args.includes(base.id))
    || i.on === base.id || (i.k === 'inplace' && i.args.includes(base.id)));
  if (usedElsewhere) return null;
  const op = r.pick(['mul_', 'add_']);
  const c = r.pick([2, -0.5, 1.5, 3]);
  const nb = newId();
  const nv = newId();
  prog.ins.push({ k: 'inplace', view: view.id, base: base.id, args: [view.id, base.id], op, c, newBase: nb, newView: nv, viewOp, viewParams });
  const bval = R.forward(op === 'mul_' ? 'mul' : 'add', [base.val, c]).out;
  const vval = R.forward(viewOp, [bval], viewParams).out;
  pool.splice(pool.indexOf(base), 1);
  pool.splice(pool.indexOf(view), 1);
  const eb = { id: nb, val: bval, rg: true, leaf: false, op: 'inplace' };
  const ev = { id: nv, val: vval, rg: true, leaf: false, op: viewOp };
  pool.push(eb, ev);
  return { base: eb, view: ev };
}

/**
 * Generate the program for `seed`. Forward values are computed with the
 * reference while generating, so each op is only chosen where it is well
 * conditioned (log of values > 0.1, division by |x| > 0.25, relu away
 * from 0, values bounded), which keeps float32 and float64 comparable.
 */
export function generate(seed) {
  const r = rng(seed);
  const prog = { seed, semantics: r.chance(0.2) ? 'pytorch-1' : 'pytorch-2', ins: [] };
  const pool = []; // { id, val, rg, leaf }
  let nextId = 0;
  let nextHook = 0;
  const hookIds = [];
  const emit = (i) => prog.ins.push(i);

  const newLeaf = (shape, rg, positive = false) => {
    const data = randData(r, shape, positive);
    const id = `t${nextId++}`;
    const val = R.fromNested(data);
    val.shape = shape.slice();
    emit({ k: 'leaf', id, data, shape: shape.slice(), rg });
    const e = { id, val, rg, leaf: true };
    pool.push(e);
    return e;
  };

  const addHooks = (e) => {
    if (!e.rg) return;
    const n = r.pick([0, 0, 0, 1, 1, 2, 3]);
    for (let i = 0; i < n; i++) {
      const roll = r.next();
      const hid = `h${nextHook++}`;
      if (roll < 0.35) emit({ k: 'hook', on: e.id, hid, kind: 'scale', c: r.pick([0.5, 2, -1, 3, 0.25, -0.5]) });
      else if (roll < 0.45) emit({ k: 'hook', on: e.id, hid, kind: 'affine', c: r.pick([0.5, 2, -1]), d: r.pick([0.5, -1, 1]) });
      else if (roll < 0.65) emit({ k: 'hook', on: e.id, hid, kind: 'observe' });
      else if (roll < 0.72) emit({ k: 'hook', on: e.id, hid, kind: r.pick(['identity', 'undefined', 'null']) });
      else if (roll < 0.78 && !e.leaf) emit({ k: 'hook', on: e.id, hid, kind: 'keep' });
      else if (roll < 0.88 && !e.leaf) { emit({ k: 'retain', on: e.id }); continue; }
      else if (roll < 0.93 && e.leaf) emit({ k: 'pahook', on: e.id, hid });
      else if (!e.leaf) emit({ k: r.chance(0.5) ? 'nodepre' : 'nodepost', on: e.id, hid, c: r.pick([0.5, 2, -1]) });
      else continue;
      hookIds.push(hid);
    }
    if (hookIds.length && r.chance(0.08)) {
      const hid = r.pick(hookIds);
      emit({ k: 'remove', hid });
    }
  };

  const nLeaves = r.int(1, 3);
  for (let i = 0; i < nLeaves; i++) addHooks(newLeaf(randShape(r), r.chance(0.85)));

  const nOps = r.int(2, 14);
  let made = 0;
  for (let attempt = 0; made < nOps && attempt < nOps * 10; attempt++) {
    const a = r.chance(0.5) ? pool[pool.length - 1] : r.pick(pool);
    const op = r.pick(['add', 'sub', 'mul', 'div', 'add', 'mul', 'neg', 'pow', 'exp', 'log', 'sin', 'cos', 'tanh', 'sigmoid', 'relu',
      'matmul', 'matmul', 'sum', 'mean', 'sum', 'reshape', 'transpose', 't', 'clone', 'transpose', 'reshape',
      ...NEW_OPS]);
    let args = [a.id];
    let argVals = [a.val];
    let params;
    let partner = null;
    let extra = []; // more tensor arguments (cat, stack, mseLoss)
    let ok = true;
    if (['add', 'sub', 'mul', 'div'].includes(op)) {
      if (r.chance(0.3)) {
        let c = r.val(-3, 3);
        if (op === 'div' || Math.abs(c) < 0.1) c = r.pick([0.5, 2, -1.5, 4, -0.25]);
        args.push(c);
        argVals.push(c);
      } else {
        const shape = broadcastPartner(r, a.val.shape);
        const cands = pool.filter((p) => p !== a && R.broadcastShape(a.val.shape, p.val.shape) && (op !== 'div' || minAbs(p.val) > 0.25));
        if (cands.length && r.chance(0.4)) partner = r.pick(cands);
        else partner = { spec: shape };
      }
    } else if (op === 'matmul') {
      const s = a.val.shape;
      if (s.length < 1 || s.length > 2) ok = false;
      else {
        const k = s[s.length - 1];
        const cands = pool.filter((p) => p !== a && R.matmulShape(s, p.val.shape) && R.numel(R.matmulShape(s, p.val.shape)) <= MAX_NUMEL);
        if (cands.length && r.chance(0.4)) partner = r.pick(cands);
        else partner = { spec: r.chance(0.3) ? [k] : [k, r.int(1, 4)] };
      }
    } else if (op === 'pow') {
      const pos = minVal(a.val) > 0.2;
      const away = minAbs(a.val) > 0.3;
      const choices = [2, 3, 1, 0];
      if (pos) choices.push(0.5, 1.5, -0.5);
      if (away) choices.push(-1, -2);
      params = { exponent: r.pick(choices) };
    } else if (op === 'sum' || op === 'mean') {
      const rank = a.val.shape.length;
      if (rank > 0 && r.chance(0.6)) params = { dim: r.int(-rank, rank - 1), keepdim: r.chance(0.4) };
      else params = {};
    } else if (op === 'reshape') {
      params = { shape: factorShape(r, R.numel(a.val.shape)) };
    } else if (op === 'transpose') {
      const rank = a.val.shape.length;
      if (rank < 1) ok = false;
      else params = { d0: r.int(-rank, rank - 1), d1: r.int(-rank, rank - 1) };
    } else if (op === 't') {
      if (a.val.shape.length > 2) ok = false;
    } else if (op === 'log') {
      if (minVal(a.val) <= 0.1) ok = false;
    } else if (op === 'relu') {
      if (minAbs(a.val) < 0.01) ok = false;
    } else if (op === 'exp') {
      if (a.val.data.some((x) => x > 3)) ok = false;
    } else if (NEW_OPS.includes(op)) {
      const g = newOpParams(r, op, a, pool, newLeaf);
      if (!g) ok = false;
      else { params = g.params; extra = g.extra; }
    }
    if (!ok) continue;
    for (const x of extra) { args.push(x.id); argVals.push(x.val); }
    if (partner && partner.spec) {
      const shape = partner.spec;
      if (R.numel(shape) > MAX_NUMEL) continue;
      partner = newLeaf(shape, r.chance(0.7), op === 'div');
      if (op === 'div' && minAbs(partner.val) <= 0.25) continue;
      addHooks(partner);
    }
    if (partner) { args.push(partner.id); argVals.push(partner.val); }
    let res;
    try {
      if (op === 'matmul' && !R.matmulShape(argVals[0].shape, argVals[1].shape)) continue;
      if (['add', 'sub', 'mul', 'div'].includes(op) && partner && !R.broadcastShape(argVals[0].shape, argVals[1].shape)) continue;
      res = R.forward(op, argVals, params);
    } catch {
      continue;
    }
    if (R.numel(res.out.shape) > MAX_NUMEL || maxAbs(res.out) > MAX_ABS || res.out.data.some((x) => !Number.isFinite(x))) continue;
    const id = `t${nextId++}`;
    const rg = args.some((x) => typeof x === 'string' && pool.find((p) => p.id === x).rg);
    emit({ k: 'op', id, op, args, params });
    const e = { id, val: res.out, rg, leaf: !rg, op };
    pool.push(e);
    made++;
    // In place through the view just made, where the reference can model it.
    if (VIEW_OPS.includes(op) && r.chance(0.35)) {
      const done = inplaceThroughView(r, prog, pool, a, e, op, params, () => `t${nextId++}`);
      if (done) { addHooks(done.base); addHooks(done.view); continue; }
    }
    addHooks(e);
  }

  // The output: the last tensor that requires grad.
  let out = [...pool].reverse().find((p) => p.rg);
  if (!out) {
    const l = newLeaf([2], true);
    const id = `t${nextId++}`;
    emit({ k: 'op', id, op: 'mul', args: [l.id, 2] });
    out = { id, val: R.forward('mul', [l.val, 2]).out, rg: true };
    pool.push(out);
  }
  const reduce = out.val.shape.length === 0 ? r.pick(['none', 'sum', 'mean']) : r.pick(['sum', 'mean', 'grad', 'grad']);
  const bw = { k: 'backward', on: out.id, reduce, twice: r.chance(0.15) };
  if (reduce === 'grad') bw.grad = randData(r, out.val.shape, false);
  // hg.grad instead of backward(): returns the leaves' gradients, leaves
  // .grad untouched; tensor hooks and retainGrad still run (torch 2.15).
  if (r.chance(0.15)) { bw.mode = 'grad'; bw.twice = false; }
  emit(bw);
  return prog;
}
