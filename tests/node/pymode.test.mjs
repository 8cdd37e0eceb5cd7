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
