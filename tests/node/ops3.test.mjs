// What Python's operators and unpacking run, and the fourth batch's
// fidelity fixes, against real PyTorch (tests/fixtures/ops3.json, written by
// tests/fixtures/pyfixtures/ops3.py): rsub, reciprocal, permute, mT, unbind
// (values, layouts, node trees, gradients, double backward, errors),
// log_softmax / softmax to the float32 bit, cross_entropy's reductions,
// hg.backward over several roots, F.linear's addmm error, detach's shared
// version counter and hg.dataOf's separate one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { hg, root, V, approx, assertTree, shapeOf } from './helpers.mjs';

const FIX = JSON.parse(fs.readFileSync(path.join(root, 'tests/fixtures/ops3.json'), 'utf8'));
const SC = FIX.scenarios;

// eslint-disable-next-line no-new-func
const js = (names, expr) => new Function('hg', ...names, `return ${expr};`);

{
  const O = SC.ops3_ops;
  const names = Object.keys(O.inputs);
  for (const [name, c] of Object.entries(O.cases)) {
    test(`ops3_ops/${name}: ${c.js}`, () => {
      const ts = names.map((n) => hg.tensor(O.inputs[n], { requiresGrad: true }));
      const out = js(names, c.js)(hg, ...ts);
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
}

for (const [name, c] of Object.entries(SC.ops3_double.cases)) {
  test(`ops3_double/${name}: ${c.js}`, () => {
    const p = hg.tensor(SC.ops3_double.p, { requiresGrad: true });
    const [g] = hg.grad(js(['p'], c.js)(hg, p), p, { createGraph: true });
    approx(V(g), c.g, 'gradient');
    assertTree(g.gradFn, c.g_grad_fn, 'gradient grad_fn tree');
    g.sum().backward();
    approx(V(p.grad), c.p_grad, 'p.grad');
  });
}

for (const [name, c] of Object.entries(SC.ops3_errors)) {
  if (name === 'description') continue;
  test(`ops3_errors/${name}: ${c.js}`, () => {
    const x = hg.tensor([[-1.5, -0.5, 0.25], [0.5, 1.0, 2.0]], { requiresGrad: true });
    assert.throws(() => js(['x'], c.js)(hg, x), (e) => {
      assert.equal(e.message, c.message);
      return true;
    });
  });
}

test('unbind: one UnbindBackward0 for every slice, outputs numbered, views of the input', () => {
  const x = hg.tensor([[1, 2], [3, 4], [5, 6]], { requiresGrad: true });
  const y = x.mul(1);
  const [a, b, c] = y.unbind();
  assert.equal(a.gradFn.name, 'UnbindBackward0');
  assert.equal(a.gradFn.id, c.gradFn.id);
  assert.deepEqual(V(b), [3, 4]);
  b.mul(1); // no write: reading keeps versions
  assert.equal(y.version, 0);
  assert.deepEqual(hg.tensor([1, 2]).unbind().map((t) => t.gradFn), [null, null]);
  assert.deepEqual(hg.zeros([0, 2]).unbind(), []);
});

for (const [name, c] of Object.entries(SC.ops3_cross_entropy.cases)) {
  test(`ops3_cross_entropy/${name}`, () => {
    const x = hg.tensor(c.logits, { requiresGrad: true });
    const loss = hg.nn.functional.crossEntropy(x, c.targets, { reduction: c.reduction });
    assert.deepEqual(shapeOf(loss), c.shape, 'shape');
    approx(V(loss), c.out, 'value');
    assertTree(loss.gradFn, c.grad_fn, 'grad_fn tree');
    if (c.gradient === null) loss.backward();
    else loss.backward(hg.tensor(c.gradient));
    approx(V(x.grad), c.grad, 'logits.grad');
  });
}

/** Every float32 of `got` equal to PyTorch's (its Python floats are exact float32 values). */
function sameBits(got, want, what) {
  const g = got.flat(Infinity);
  const w = want.flat(Infinity);
  assert.equal(g.length, w.length, `${what}: length`);
  const diff = g.map((v, i) => (Object.is(v, w[i]) ? null : `[${i}] ${v} != ${w[i]}`)).filter(Boolean);
  assert.deepEqual(diff, [], `${what}: float32 values differ from PyTorch's`);
}

for (const [name, c] of Object.entries(SC.ops3_softmax_bits.cases)) {
  test(`ops3_softmax_bits/${name}: logSoftmax and softmax as PyTorch's float32`, () => {
    const t = hg.tensor(c.input);
    sameBits([V(t.logSoftmax(-1))], [c.log_softmax], 'logSoftmax');
    sameBits([V(t.softmax(-1))], [c.softmax], 'softmax');
    sameBits([V(t.logSoftmax(0))], [c.log_softmax_0], 'logSoftmax(0)');
    sameBits([V(t.softmax(0))], [c.softmax_0], 'softmax(0)');
  });
}

test('hg.backward([y1, y2], [g1, null]): one pass, hooks once each in PyTorch\'s order, grads', () => {
  const M = SC.ops3_multi_backward;
  const x = hg.tensor(M.x, { requiresGrad: true });
  const w = hg.tensor(M.w, { requiresGrad: true });
  const log = [];
  const h = x.mul(w);
  h.registerHook((g) => { log.push(['h', V(g)]); });
  h.gradFn.registerPrehook((go) => { log.push(['h_pre', V(go[0])]); });
  const y1 = h.mul(2);
  const y2 = h.mul(h).sum();
  y1.registerHook((g) => { log.push(['y1', V(g)]); });
  y2.registerHook((g) => { log.push(['y2', V(g)]); });
  x.registerHook((g) => { log.push(['x', V(g)]); });
  w.registerHook((g) => { log.push(['w', V(g)]); });
  hg.backward([y1, y2], [hg.tensor([1, -1]), null]);
  approx(log, M.order, 'hook order and values');
  approx(V(x.grad), M.x_grad, 'x.grad');
  approx(V(w.grad), M.w_grad, 'w.grad');
  const x2 = hg.tensor(M.x, { requiresGrad: true });
  const w2 = hg.tensor(M.w, { requiresGrad: true });
  const h2 = x2.mul(w2);
  hg.backward([h2.mul(2), h2.mul(h2).sum()], [[1, -1], null], { inputs: [w2] });
  approx(V(x2.grad), M.inputs_w.x_grad, 'inputs: x.grad');
  approx(V(w2.grad), M.inputs_w.w_grad, 'inputs: w.grad');
});

test('hg.backward: PyTorch\'s errors', () => {
  const E = SC.ops3_multi_backward.errors;
  const x = hg.tensor([1, 2], { requiresGrad: true });
  const y = x.mul(3);
  const cases = {
    length: () => hg.backward([y, y.sum()], [hg.ones([2])]),
    implicit_nonscalar: () => hg.backward([y.sum(), y]),
    no_grad: () => hg.backward([y.sum(), hg.ones([2])], [null, hg.ones([2])]),
    shape: () => hg.backward([y], [hg.ones([3])]),
  };
  for (const [k, f] of Object.entries(cases)) assert.throws(f, { message: E[k].message }, k);
  hg.backward(y.sum()); // a single tensor, implicit gradient
  approx(V(x.grad), [3, 3], 'x.grad');
});
