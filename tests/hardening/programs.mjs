// Seeded random programs over the hookgrad JS API, run both on hookgrad and
// on the float64 reference (refgrad.mjs), compared value by value. A program
// is a list of plain instructions; `toSource` prints one as a standalone JS
// snippet (the reproduction printed for a failing seed), `minimize` shrinks a
// failing program while it still fails.
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

// ----------------------------------------------------------- reference

/** Run a program on the float64 reference: every observable value. */
export function runReference(prog) {
  const vals = new Map(); // id -> { val, rg, leaf, back, args }
  const hooks = new Map(); // tensor id -> [{hid, kind, c, d, removed}] (retain as kind 'retain')
  const nodePre = new Map();
  const nodePost = new Map();
  const pah = new Map();
  const removed = new Set();
  const obs = [];
  const kept = [];
  const grads = new Map(); // accumulated .grad (leaves and retained)
  const retained = new Set();
  const returned = new Map(); // hg.grad results
  let bw;
  for (const ins of prog.ins) {
    if (ins.k === 'leaf') {
      const v = R.fromNested(ins.data);
      v.shape = ins.shape.slice();
      vals.set(ins.id, { val: v, rg: ins.rg, leaf: true });
    } else if (ins.k === 'op') {
      const argVals = ins.args.map((a) => (typeof a === 'string' ? vals.get(a).val : a));
      const { out, back } = R.forward(ins.op, argVals, ins.params);
      const rg = ins.args.some((a) => typeof a === 'string' && vals.get(a).rg);
      vals.set(ins.id, { val: out, rg, leaf: !rg, back, args: ins.args });
    } else if (ins.k === 'inplace') {
      const base = vals.get(ins.base).val;
      const b = R.forward(ins.op === 'mul_' ? 'mul' : 'add', [base, ins.c], {});
      vals.set(ins.newBase, { val: b.out, rg: true, leaf: false, back: b.back, args: [ins.base, ins.c] });
      const v = R.forward(ins.viewOp, [b.out], ins.viewParams);
      vals.set(ins.newView, { val: v.out, rg: true, leaf: false, back: v.back, args: [ins.newBase] });
    } else if (ins.k === 'hook') {
      if (!hooks.has(ins.on)) hooks.set(ins.on, []);
      hooks.get(ins.on).push(ins);
    } else if (ins.k === 'retain') {
      if (!hooks.has(ins.on)) hooks.set(ins.on, []);
      if (!retained.has(ins.on)) hooks.get(ins.on).push({ kind: 'retain', hid: null }); // idempotent
      retained.add(ins.on);
    } else if (ins.k === 'nodepre') {
      if (!nodePre.has(ins.on)) nodePre.set(ins.on, []);
      nodePre.get(ins.on).push(ins);
    } else if (ins.k === 'nodepost') {
      if (!nodePost.has(ins.on)) nodePost.set(ins.on, []);
      nodePost.get(ins.on).push(ins);
    } else if (ins.k === 'pahook') {
      if (!pah.has(ins.on)) pah.set(ins.on, []);
      pah.get(ins.on).push(ins);
    } else if (ins.k === 'remove') {
      removed.add(ins.hid);
    } else if (ins.k === 'backward') {
      bw = ins;
    }
  }
  const live = (list) => (list || []).filter((h) => h.hid === null || !removed.has(h.hid));
  const order = [...vals.keys()]; // creation order is a topological order

  const runTensorHooks = (id, g) => {
    let list = live(hooks.get(id));
    if (prog.semantics === 'pytorch-2') list = [...list.filter((h) => h.kind !== 'retain'), ...list.filter((h) => h.kind === 'retain')];
    for (const h of list) {
      if (h.kind === 'scale') g = R.scale(g, h.c);
      else if (h.kind === 'affine') g = R.scale(g, h.c, h.d);
      else if (h.kind === 'observe') obs.push([h.hid, R.toNested(g)]);
      else if (h.kind === 'keep') kept.push([h.hid, R.toNested(g)]);
      else if (h.kind === 'retain') grads.set(id, R.addInto(grads.get(id) ?? null, g));
    }
    return g;
  };

  const pass = () => {
    const pending = new Map();
    const root = vals.get(bw.on);
    let seed;
    let rootId = bw.on;
    if (bw.reduce === 'grad') seed = R.fromNested(bw.grad);
    else seed = R.make([], [1]);
    // sum/mean of the output: one more node before the output's own.
    if (bw.reduce === 'sum' || bw.reduce === 'mean') {
      const n = R.numel(root.val.shape);
      seed = R.make(root.val.shape, new Float64Array(n).fill(bw.reduce === 'mean' ? 1 / n : 1));
    }
    pending.set(rootId, seed);
    for (let i = order.length - 1; i >= 0; i--) {
      const id = order[i];
      const v = vals.get(id);
      if (!pending.has(id) || !v.rg) continue;
      let g = pending.get(id);
      g = runTensorHooks(id, g);
      if (v.leaf && bw.mode === 'grad') {
        returned.set(id, R.addInto(returned.get(id) ?? null, g));
        continue;
      }
      if (v.leaf) {
        grads.set(id, R.addInto(grads.get(id) ?? null, g));
        for (const h of live(pah.get(id))) obs.push([h.hid, R.toNested(grads.get(id))]);
        continue;
      }
      for (const h of live(nodePre.get(id))) g = R.scale(g, h.c);
      let gi = v.back(g);
      // Only edges to tensors requiring grad exist (number args have none).
      const edges = v.args.map((a, j) => [a, gi[j]]).filter(([a]) => typeof a === 'string');
      let gis = edges.map(([a, gg]) => (vals.get(a).rg ? gg : null));
      for (const h of live(nodePost.get(id))) gis = gis.map((x) => (x === null ? null : R.scale(x, h.c)));
      edges.forEach(([a], j) => {
        if (gis[j] === null) return;
        pending.set(a, R.addInto(pending.get(a) ?? null, gis[j]));
      });
    }
  };
  pass();
  if (bw.twice) pass();
  const out = { grads: {}, obs, kept };
  if (bw.mode === 'grad') {
    out.returned = [...vals].filter(([, v]) => v.leaf && v.rg).map(([id]) => (returned.has(id) ? R.toNested(returned.get(id)) : null));
  }
  for (const [id, v] of vals) {
    if (v.leaf && v.rg) out.grads[id] = grads.has(id) ? R.toNested(grads.get(id)) : null;
    else if (retained.has(id)) out.grads[id] = grads.has(id) ? R.toNested(grads.get(id)) : null;
  }
  return out;
}

// ------------------------------------------------------------- hookgrad

const num = (x) => (Number.isInteger(x) ? `${x}` : `${x}`);
const arg = (a) => (typeof a === 'string' ? a : num(a));

/** The program as a standalone JS snippet (hg in scope). */
export function toSource(prog) {
  const L = [`// hookgrad random program, seed ${prog.seed}`, `hg.setSemantics('${prog.semantics}');`, 'const log = []; const kept = [];'];
  for (const ins of prog.ins) {
    switch (ins.k) {
      case 'leaf': L.push(`const ${ins.id} = hg.tensor(${JSON.stringify(ins.data)}, { requiresGrad: ${ins.rg} });`); break;
      case 'op': {
        const p = ins.params || {};
        let call;
        if (ins.op === 'pow') call = `pow(${p.exponent})`;
        else if (ins.op === 'sum' || ins.op === 'mean') call = p.dim === undefined ? `${ins.op}()` : `${ins.op}(${p.dim}, ${p.keepdim})`;
        else if (ins.op === 'reshape') call = `reshape(${JSON.stringify(p.shape)})`;
        else if (ins.op === 'transpose') call = `transpose(${p.d0}, ${p.d1})`;
        else if (['softmax', 'logSoftmax', 'unsqueeze'].includes(ins.op) || (ins.op === 'squeeze' && p.dim !== undefined)) call = `${ins.op}(${p.dim})`;
        else if (ins.op === 'expand') call = `expand(${JSON.stringify(p.shape)})`;
        else call = `${ins.op}(${ins.args.slice(1).map(arg).join(', ')})`;
        if (ins.op === 'cat' || ins.op === 'stack') L.push(`const ${ins.id} = hg.${ins.op}([${ins.args.join(', ')}], ${p.dim});`);
        else if (ins.op === 'mseLoss') L.push(`const ${ins.id} = hg.nn.functional.mseLoss(${ins.args[0]}, ${ins.args[1]}, { reduction: '${p.reduction}' });`);
        else L.push(`const ${ins.id} = ${ins.args[0]}.${call};`);
        break;
      }
      case 'inplace': L.push(`${ins.view}.${ins.op}(${ins.c}); const ${ins.newBase} = ${ins.base}; const ${ins.newView} = ${ins.view};`); break;
      case 'hook': {
        const body = {
          scale: `(g) => g.mul(${ins.c})`,
          affine: `(g) => g.mul(${ins.c}).add(${ins.d})`,
          observe: `(g) => { log.push(['${ins.hid}', g.toArray()]); }`,
          keep: `(g) => { kept.push(['${ins.hid}', g]); }`,
          identity: '(g) => g',
          undefined: '() => undefined',
          null: '() => null',
        }[ins.kind];
        L.push(`const ${ins.hid} = ${ins.on}.registerHook(${body});`);
        break;
      }
      case 'retain': L.push(`${ins.on}.retainGrad();`); break;
      case 'pahook': L.push(`const ${ins.hid} = ${ins.on}.registerPostAccumulateGradHook((t) => { log.push(['${ins.hid}', t.grad.toArray()]); });`); break;
      case 'nodepre': L.push(`const ${ins.hid} = ${ins.on}.gradFn.registerPrehook((go) => go.map((g) => g && g.mul(${ins.c})));`); break;
      case 'nodepost': L.push(`const ${ins.hid} = ${ins.on}.gradFn.registerHook((gi) => gi.map((g) => g && g.mul(${ins.c})));`); break;
      case 'remove': L.push(`${ins.hid}.remove();`); break;
      case 'backward': {
        let target = ins.on;
        let grad = 'undefined';
        if (ins.reduce === 'sum' || ins.reduce === 'mean') { L.push(`const out = ${ins.on}.${ins.reduce}();`); target = 'out'; }
        if (ins.reduce === 'grad') grad = `hg.tensor(${JSON.stringify(ins.grad)})`;
        if (ins.mode === 'grad') {
          const leaves = prog.ins.filter((i) => i.k === 'leaf' && i.rg).map((i) => i.id);
          const go = ins.reduce === 'grad' ? `, gradOutputs: [${grad}]` : '';
          L.push(`const grads = hg.grad(${target}, [${leaves.join(', ')}], { allowUnused: true${go} });`);
          break;
        }
        if (ins.twice) L.push(`${target}.backward(${grad}, { retainGraph: true });`);
        L.push(`${target}.backward(${grad});`);
        break;
      }
      default: throw new Error(`unknown instruction ${ins.k}`);
    }
  }
  return L.join('\n');
}

/**
 * The hook function of one instruction. Built here, outside runHookgrad, so
 * the closure's scope holds no tensor: a closure that can reach the tensor
 * it is registered on forms a JS -> wasm -> JS cycle that no garbage
 * collector can free (see soak.test.mjs).
 */
function hookFn(ins, obs, keptT) {
  switch (ins.k) {
    case 'pahook': return (x) => { obs.push([ins.hid, x.grad.toArray()]); };
    case 'nodepre': return (go) => go.map((g) => g && g.mul(ins.c));
    case 'nodepost': return (gi) => gi.map((g) => g && g.mul(ins.c));
    default: return {
      scale: (g) => g.mul(ins.c),
      affine: (g) => g.mul(ins.c).add(ins.d),
      observe: (g) => { obs.push([ins.hid, g.toArray()]); },
      keep: (g) => { keptT.push([ins.hid, g]); },
      identity: (g) => g,
      undefined: () => undefined,
      null: () => null,
    }[ins.kind];
  }
}

/** Run a program on hookgrad; the same observables as runReference. */
export function runHookgrad(hg, prog) {
  const t = new Map();
  const h = new Map();
  const obs = [];
  const keptT = [];
  const retained = new Set();
  const leaves = [];
  let returned = null;
  hg.setSemantics(prog.semantics);
  try {
    for (const ins of prog.ins) {
      switch (ins.k) {
        case 'leaf': t.set(ins.id, hg.tensor(ins.data, { requiresGrad: ins.rg })); if (ins.rg) leaves.push(ins.id); break;
        case 'op': {
          const a = t.get(ins.args[0]);
          const rest = ins.args.slice(1).map((x) => (typeof x === 'string' ? t.get(x) : x));
          const p = ins.params || {};
          let v;
          if (ins.op === 'pow') v = a.pow(p.exponent);
          else if (ins.op === 'sum' || ins.op === 'mean') v = p.dim === undefined ? a[ins.op]() : a[ins.op](p.dim, p.keepdim);
          else if (ins.op === 'reshape') v = a.reshape(p.shape);
          else if (ins.op === 'transpose') v = a.transpose(p.d0, p.d1);
          else if (['softmax', 'logSoftmax', 'unsqueeze'].includes(ins.op)) v = a[ins.op](p.dim);
          else if (ins.op === 'squeeze') v = p.dim === undefined ? a.squeeze() : a.squeeze(p.dim);
          else if (ins.op === 'expand') v = a.expand(p.shape);
          else if (ins.op === 'cat' || ins.op === 'stack') v = hg[ins.op]([a, ...rest], p.dim);
          else if (ins.op === 'mseLoss') v = hg.nn.functional.mseLoss(a, rest[0], { reduction: p.reduction });
          else v = a[ins.op](...rest);
          t.set(ins.id, v);
          if (!v.requiresGrad) leaves.push(null);
          break;
        }
        case 'inplace': t.get(ins.view)[ins.op](ins.c); t.set(ins.newBase, t.get(ins.base)); t.set(ins.newView, t.get(ins.view)); break;
        case 'hook': h.set(ins.hid, t.get(ins.on).registerHook(hookFn(ins, obs, keptT))); break;
        case 'retain': t.get(ins.on).retainGrad(); retained.add(ins.on); break;
        case 'pahook': h.set(ins.hid, t.get(ins.on).registerPostAccumulateGradHook(hookFn(ins, obs, keptT))); break;
        case 'nodepre': h.set(ins.hid, t.get(ins.on).gradFn.registerPrehook(hookFn(ins, obs, keptT))); break;
        case 'nodepost': h.set(ins.hid, t.get(ins.on).gradFn.registerHook(hookFn(ins, obs, keptT))); break;
        case 'remove': h.get(ins.hid).remove(); break;
        case 'backward': {
          let target = t.get(ins.on);
          if (ins.reduce === 'sum' || ins.reduce === 'mean') target = target[ins.reduce]();
          const grad = ins.reduce === 'grad' ? hg.tensor(ins.grad) : undefined;
          if (ins.mode === 'grad') {
            const leafT = prog.ins.filter((i) => i.k === 'leaf' && i.rg).map((i) => t.get(i.id));
            const opts = { allowUnused: true };
            if (grad) opts.gradOutputs = [grad];
            returned = Array.from(hg.grad(target, leafT, opts), (g) => (g ? g.toArray() : null));
            break;
          }
          if (ins.twice) target.backward(grad, { retainGraph: true });
          target.backward(grad);
          break;
        }
        default: throw new Error(`unknown instruction ${ins.k}`);
      }
    }
    const out = { grads: {}, obs, kept: keptT.map(([hid, g]) => [hid, g.toArray()]) };
    if (returned) out.returned = returned;
    for (const ins of prog.ins) {
      if (ins.k === 'leaf' && ins.rg) out.grads[ins.id] = t.get(ins.id).grad ? t.get(ins.id).grad.toArray() : null;
      if (ins.k === 'op' && !t.get(ins.id).requiresGrad) { /* a constant: no grad */ }
    }
    for (const id of retained) { const g = t.get(id).grad; out.grads[id] = g ? g.toArray() : null; }
    return out;
  } finally {
    hg.setSemantics('pytorch-2');
  }
}

// ------------------------------------------------------------ compare

const flat = (v) => (Array.isArray(v) ? v.flat(Infinity) : [v]);

/** Compare nested arrays: |a - e| <= rtol·|e| + atol·max(1, max|e|). Returns an error string or null. */
export function close(actual, expected, where, rtol = 1e-3, atol = 1e-4) {
  if (expected === null || actual === null || actual === undefined) {
    return (expected === null) === (actual === null || actual === undefined) ? null : `${where}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
  }
  if (JSON.stringify(shapeOf(actual)) !== JSON.stringify(shapeOf(expected))) {
    return `${where}: shape ${JSON.stringify(shapeOf(actual))} != expected ${JSON.stringify(shapeOf(expected))}`;
  }
  const a = flat(actual);
  const e = flat(expected);
  const scale = Math.max(1, ...e.map(Math.abs));
  for (let i = 0; i < e.length; i++) {
    if (!(Math.abs(a[i] - e[i]) <= rtol * Math.abs(e[i]) + atol * scale)) {
      return `${where}[${i}]: got ${a[i]}, expected ${e[i]} (all: got ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)})`;
    }
  }
  return null;
}

function shapeOf(v) {
  const s = [];
  while (Array.isArray(v)) { s.push(v.length); v = v[0]; }
  return s;
}

/** Compare the observables of two runs; returns a list of differences. */
export function compare(actual, expected) {
  const errs = [];
  for (const id of Object.keys(expected.grads)) {
    const e = close(actual.grads[id] ?? null, expected.grads[id], `${id}.grad`);
    if (e) errs.push(e);
  }
  if (expected.returned || actual.returned) {
    const a = actual.returned || [];
    const e = expected.returned || [];
    if (a.length !== e.length) errs.push(`hg.grad returned ${a.length} gradients, expected ${e.length}`);
    else e.forEach((x, i) => { const d = close(a[i] ?? null, x, `hg.grad result ${i}`); if (d) errs.push(d); });
  }
  // Hooks on different tensors run in the engine's order (PyTorch's ready
  // queue), which the reference does not model: compare each hook's own
  // sequence of values.
  const byHook = (log) => {
    const m = new Map();
    for (const [hid, v] of log) { if (!m.has(hid)) m.set(hid, []); m.get(hid).push(v); }
    return m;
  };
  for (const [what, a, e] of [['hook', byHook(actual.obs), byHook(expected.obs)], ['kept grads of hook', byHook(actual.kept), byHook(expected.kept)]]) {
    for (const hid of new Set([...a.keys(), ...e.keys()])) {
      const av = a.get(hid) || [];
      const ev = e.get(hid) || [];
      if (av.length !== ev.length) { errs.push(`${what} ${hid}: ran ${av.length} times, expected ${ev.length}`); continue; }
      for (let i = 0; i < ev.length; i++) {
        const d = close(av[i], ev[i], `${what} ${hid} call ${i + 1}`);
        if (d) errs.push(d);
      }
    }
  }
  return errs;
}

/** Run one program both ways: null when they agree, else the differences (or the hookgrad error). */
export function check(hg, prog) {
  const expected = runReference(prog);
  let actual;
  try {
    actual = runHookgrad(hg, prog);
  } catch (e) {
    return [`hookgrad threw: ${e instanceof Error ? `${e.constructor.name}: ${e.message}` : String(e)}`];
  }
  const errs = compare(actual, expected);
  return errs.length ? errs : null;
}

// ------------------------------------------------------------ minimize

/** Instructions that use tensor `id` or hook `hid`. */
const uses = (ins, name) => ins.on === name || ins.hid === name && ins.k === 'remove' || (ins.args || []).includes(name);

/**
 * Shrink a failing program: drop instructions nothing later depends on, and
 * try backward from earlier tensors, while `fails(prog)` stays true.
 */
export function minimize(prog, fails, budget = 300) {
  let cur = prog;
  let changed = true;
  let tries = 0;
  const safeFails = (cand) => tries++ < budget && candidateFails(cand, fails);
  while (changed && tries < budget) {
    changed = false;
    const rg = requiresGradIds(cur);
    // retarget the backward to an earlier tensor that requires grad
    const bwIdx = cur.ins.findIndex((i) => i.k === 'backward');
    const bw = cur.ins[bwIdx];
    for (const ins of cur.ins) {
      if ((ins.k !== 'op' && ins.k !== 'leaf') || ins.id === bw.on || !rg.has(ins.id)) continue;
      const cand = { ...cur, ins: cur.ins.map((i) => (i === bw ? { ...bw, on: ins.id, reduce: 'sum', grad: undefined } : i)) };
      if (safeFails(cand)) { cur = cand; changed = true; break; }
    }
    for (let i = cur.ins.length - 1; i >= 0; i--) {
      const ins = cur.ins[i];
      if (ins.k === 'backward') continue;
      const names = ins.k === 'inplace' ? [ins.newBase, ins.newView] : [ins.k === 'leaf' || ins.k === 'op' ? ins.id : ins.hid];
      if (names.some((name) => name && cur.ins.some((o, j) => j !== i && uses(o, name)))) continue;
      const cand = { ...cur, ins: cur.ins.filter((_, j) => j !== i) };
      if (safeFails(cand)) { cur = cand; changed = true; }
    }
    // simplify: backward twice -> once
    const b = cur.ins.find((i) => i.k === 'backward');
    if (b.twice) {
      const cand = { ...cur, ins: cur.ins.map((i) => (i === b ? { ...b, twice: false } : i)) };
      if (safeFails(cand)) { cur = cand; changed = true; }
    }
  }
  return cur;
}

function requiresGradIds(prog) {
  const rg = new Set();
  for (const ins of prog.ins) {
    if (ins.k === 'leaf' && ins.rg) rg.add(ins.id);
    if (ins.k === 'op' && ins.args.some((a) => rg.has(a))) rg.add(ins.id);
    if (ins.k === 'inplace') { rg.add(ins.newBase); rg.add(ins.newView); }
  }
  return rg;
}

function candidateFails(prog, fails) {
  try {
    const ref = runReference(prog);
    const bad = Object.values(ref.grads).some((g) => g !== null && flat(g).some((x) => !Number.isFinite(x)));
    if (bad) return false;
    return fails(prog);
  } catch {
    return false;
  }
}

// ------------------------------------------------- fresh-instance checks

/** check() in a child process with a fresh wasm instance; a crash counts as a failure. */
export async function checkFresh(prog) {
  const { spawnSync } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const runner = fileURLToPath(new URL('./program-runner.mjs', import.meta.url));
  const r = spawnSync(process.execPath, [runner], { input: JSON.stringify(prog), encoding: 'utf8', timeout: 30000 });
  if (r.status !== 0) return [`child exited ${r.status}: ${(r.stderr || '').split('\n').slice(0, 4).join(' | ')}`];
  try { return JSON.parse(r.stdout); } catch { return [`child printed ${r.stdout.slice(0, 200)}`]; }
}

/** Is this failure a trap (the wasm instance is dead afterwards)? */
export const isTrap = (errs) => errs && errs.some((e) => /RuntimeError: (unreachable|memory access|table index)|recursive use of an object|already (mutably )?borrowed|null pointer passed to rust|child exited/.test(e));
