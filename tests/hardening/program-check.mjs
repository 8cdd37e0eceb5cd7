// Running a generated program (program-gen.mjs) on the float64 reference
// (refgrad.mjs) and on hookgrad, printing it as a standalone JS snippet
// (`toSource`, the reproduction shown for a failing seed), and comparing the
// two runs value by value.
import * as R from './refgrad.mjs';

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

export const flat = (v) => (Array.isArray(v) ? v.flat(Infinity) : [v]);

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
