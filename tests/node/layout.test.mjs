// Layout as PyTorch decides it (scenarios "layout", "layout_inplace"):
// t.stride(), t.isContiguous(), view-or-copy reshape names, elementwise
// output layouts, and in-place ops through reshape results changing exactly
// what they change in PyTorch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hg, S, V, approx, assertTree, normName, shapeOf, thrown } from './helpers.mjs';

const L = S('layout');

function leaves() {
  const { x, y, b, c } = L.inputs;
  return [x, y, b, c].map((d) => hg.tensor(d, { requiresGrad: true }));
}

for (const [name, c] of Object.entries(L.cases)) {
  test(`layout/${name}: ${c.js}`, () => {
    const ts = leaves();
    // eslint-disable-next-line no-new-func
    const out = new Function('hg', 'x', 'y', 'b', 'c', `return ${c.js};`)(hg, ...ts);
    assert.deepEqual(shapeOf(out), c.shape, 'shape');
    assert.deepEqual(Array.from(out.stride()), c.stride, 'stride()');
    assert.equal(out.isContiguous(), c.contiguous, 'isContiguous()');
    approx(V(out), c.out, 'value');
    assertTree(out.gradFn, c.grad_fn, 'grad_fn tree');
    if (c.gradient === null) out.backward();
    else out.backward(hg.tensor(c.gradient));
    ['x', 'y', 'b', 'c'].forEach((n, i) => approx(V(ts[i].grad), c.grads[n], `${n}.grad`));
    if (c.x_grad_stride) assert.deepEqual(Array.from(ts[0].grad.stride()), c.x_grad_stride, 'x.grad.stride()');
  });
}

const P = S('layout_inplace');

for (const [name, c] of Object.entries(P.cases)) {
  test(`layout_inplace/${name}: ${c.js}`, () => {
    const x = hg.tensor(P.x, { requiresGrad: true });
    // eslint-disable-next-line no-new-func
    const got = new Function('hg', 'x', c.js)(hg, x);
    for (const [n, want] of Object.entries(c)) {
      if (n === 'js' || n === 'x_grad') continue;
      const t = got[n];
      approx(V(t), want.value, `${n} value`);
      assert.deepEqual(Array.from(t.stride()), want.stride, `${n}.stride()`);
      assert.equal(t.isContiguous(), want.contiguous, `${n}.isContiguous()`);
      assert.equal(t.gradFn ? t.gradFn.name : null, normName(want.grad_fn), `${n}.gradFn`);
    }
    got.loss.backward();
    approx(V(x.grad), c.x_grad, 'x.grad');
  });
}

test('an in-place op on an expanded tensor is PyTorch\'s internal-overlap error', () => {
  const c = hg.tensor(L.inputs.c, { requiresGrad: true }).mul(1);
  assert.equal(thrown(() => c.expand([3, 4]).mul_(2)), P.expand_inplace_error.message);
});
