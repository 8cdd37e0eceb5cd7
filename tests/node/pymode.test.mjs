// Ops the Python mode needs (scenarios "pymode_ops", "pymode_inplace",
// "pymode_errors"): select / slice views and integer indexing, max / min
// with indices, norm, clamp, pow with a tensor exponent or a number base,
// view, contiguous, fill_, copy_ and F.linear — values, layouts, node
// trees, leaf gradients, in-place ops through the views, and error texts,
// all as real PyTorch gave them (tests/fixtures/pymode.json, written by
// tests/fixtures/pyfixtures/pymode.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { hg, root, V, approx, assertTree, normName, shapeOf } from './helpers.mjs';

const FIX = JSON.parse(fs.readFileSync(path.join(root, 'tests/fixtures/pymode.json'), 'utf8'));

const O = FIX.scenarios.pymode_ops;
const names = Object.keys(O.inputs);

function leaves() {
  return names.map((n) => hg.tensor(O.inputs[n], { requiresGrad: true }));
}

function run(js, ts) {
  // eslint-disable-next-line no-new-func
  return new Function('hg', ...names, `return ${js};`)(hg, ...ts);
}

for (const [name, c] of Object.entries(O.cases)) {
  test(`pymode_ops/${name}: ${c.js}`, () => {
    const ts = leaves();
    const out = run(c.js, ts);
    assert.deepEqual(shapeOf(out), c.shape, 'shape');
    assert.deepEqual(Array.from(out.stride()), c.stride, 'stride()');
    assert.equal(out.isContiguous(), c.contiguous, 'isContiguous()');
    approx(V(out), c.out, 'value');
    assertTree(out.gradFn, c.grad_fn, 'grad_fn tree');
    if (c.gradient === null) out.backward();
    else out.backward(hg.tensor(c.gradient));
    names.forEach((n, i) => approx(V(ts[i].grad), c.grads[n], `${n}.grad`));
  });
}

for (const [name, c] of Object.entries(O.indices)) {
  test(`pymode_ops/indices of ${name}: ${c.js}`, () => {
    const r = run(c.js, leaves());
    assert.deepEqual(Object.keys(r).sort(), ['indices', 'values']);
    assert.deepEqual(shapeOf(r.indices), c.shape, 'indices shape');
    assert.deepEqual(V(r.indices), c.indices, 'indices');
    assert.equal(r.indices.requiresGrad, false, 'indices need no grad');
  });
}

test('contiguous() of a contiguous tensor is the tensor itself, as in PyTorch', () => {
  const [x] = leaves();
  const y = x.mul(1);
  assert.equal(x.contiguous().id, x.id);
  assert.equal(y.contiguous().id, y.id);
  assert.notEqual(x.t().contiguous().id, x.id);
});

const P = FIX.scenarios.pymode_inplace;

for (const [name, c] of Object.entries(P.cases)) {
  test(`pymode_inplace/${name}: ${c.js}`, () => {
    const x = hg.tensor(P.x, { requiresGrad: true });
    // eslint-disable-next-line no-new-func
    const got = new Function('hg', 'x', c.js)(hg, x);
    for (const [n, want] of Object.entries(c)) {
      if (n === 'js' || n === 'x_grad') continue;
      const t = got[n];
      approx(V(t), want.value, `${n} value`);
      assert.deepEqual(Array.from(t.stride()), want.stride, `${n}.stride()`);
      assert.equal(t.isContiguous(), want.contiguous, `${n}.isContiguous()`);
      assert.equal(t.version, want.version, `${n}.version`);
      assert.equal(t.gradFn ? t.gradFn.name : null, normName(want.grad_fn), `${n}.gradFn`);
    }
    got.loss.backward();
    approx(V(x.grad), c.x_grad, 'x.grad');
  });
}

const E = FIX.scenarios.pymode_errors;

for (const [name, c] of Object.entries(E)) {
  if (name === 'description') continue;
  test(`pymode_errors/${name}: ${c.js}`, () => {
    const x = hg.tensor(O.inputs.x, { requiresGrad: true });
    let err;
    try {
      // eslint-disable-next-line no-new-func
      new Function('hg', 'x', `return ${c.js};`)(hg, x);
    } catch (e) {
      err = e;
    }
    assert.ok(err instanceof Error, 'expected an Error');
    assert.equal(err.message, c.message);
    assert.equal(err.name, c.class);
  });
}

const SO = FIX.scenarios.pymode_saved_order;

for (const [name, c] of Object.entries(SO.cases)) {
  test(`pymode_saved_order/${name}: ${c.js} packs and unpacks as PyTorch`, () => {
    const x = hg.tensor(SO.inputs.x, { requiresGrad: true });
    const y = hg.tensor(SO.inputs.y, { requiresGrad: true });
    const v = hg.tensor(SO.inputs.v, { requiresGrad: true });
    const names = new Map([[x.id, 'x'], [y.id, 'y'], [v.id, 'v']]);
    const log = [];
    let k = 0;
    let out;
    hg.savedTensorsHooks(
      (t) => { k += 1; log.push(['pack', k, names.get(t.id) ?? t.shape]); return [k, t]; },
      (p) => { log.push(['unpack', p[0]]); return p[1]; },
      // eslint-disable-next-line no-new-func
      () => { out = new Function('hg', 'x', 'y', 'v', `return ${c.js};`)(hg, x, y, v); },
    );
    (out.shape.length ? out.sum() : out).backward();
    assert.deepEqual(log, c.log);
    [['x', x], ['y', y], ['v', v]].forEach(([n, t]) => approx(V(t.grad), c.grads[n], `${n}.grad`));
  });
}

const ST = FIX.scenarios.pymode_steal;

// The Python mode's setting: handles made in hooks are owners, and every
// handle a hook does not keep is released when it returns (as CPython frees
// a hook's arguments).
for (const [name, c] of Object.entries(ST.cases)) {
  test(`pymode_steal/${name}: ${c.js} — AccumulateGrad takes over the gradient where PyTorch does`, () => {
    const before = hg.setHookHandlesOwn(true);
    try {
      const x = hg.tensor(ST.x, { requiresGrad: true });
      x.registerPostAccumulateGradHook((t) => { const g = t.grad; g.mul_(10); g.dispose(); t.dispose(); });
      // eslint-disable-next-line no-new-func
      const y = new Function('hg', 'x', `return ${c.js};`)(hg, x);
      const s = y.sum();
      const node = y === x || y.id === x.id ? s.gradFn : y.gradFn;
      assert.equal(node.name, c.node);
      const seen = [];
      node.registerHook((gi, go) => {
        seen.push(gi[0]);
        gi.slice(1).forEach((t) => t && t.dispose());
        go.forEach((t) => t && t.dispose());
      });
      s.backward(undefined, { retainGraph: true });
      approx(V(seen[0]), c.seen, 'kept gradient after the first backward');
      approx(V(x.grad), c.x_grad, 'x.grad after the first backward');
      s.backward();
      approx(V(seen[0]), c.seen_after_second, 'first kept gradient after the second backward');
      approx(V(seen[1]), c.seen2, 'second kept gradient');
      approx(V(x.grad), c.x_grad_after_second, 'x.grad after the second backward');
    } finally {
      hg.setHookHandlesOwn(before);
    }
  });
}

const DB = FIX.scenarios.pymode_double;
// Node trees of the first gradient that follow PyTorch's formulas node for
// node; the others give PyTorch's values through other nodes (max and
// max(dim): PyTorch's masked_fill / scatter are a multiplication by a 0/1
// mask here; pow with a tensor exponent: the same formula, other node order).
const SAME_TREE = new Set(['select', 'slice', 'index', 'norm', 'norm_dim', 'norm_p1', 'norm_p3', 'clamp', 'pow_number_base', 'copy', 'linear']);

for (const [name, c] of Object.entries(DB.cases)) {
  test(`pymode_double/${name}: ${c.js} — second derivatives as PyTorch`, () => {
    const x = hg.tensor(DB.x, { requiresGrad: true });
    // eslint-disable-next-line no-new-func
    const out = new Function('hg', 'x', `return ${c.js};`)(hg, x);
    const [g] = hg.grad(out.sum(), x, { createGraph: true });
    approx(V(g), c.g, 'first gradient');
    if (SAME_TREE.has(name)) assertTree(g.gradFn, c.tree, 'first gradient\'s graph');
    const [gg] = hg.grad(g.sum(), x, { allowUnused: true });
    approx(gg === null ? [[0, 0, 0], [0, 0, 0]] : V(gg), c.gg, 'second gradient');
  });
}
