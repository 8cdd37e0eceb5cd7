// t.detach_() from JS: the tensor leaves the graph in place, the graph made
// before still reaches the leaves, and views are refused in PyTorch's words
// (tests/python/expected/tensor_detach_inplace.json has torch 2.15's).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hg, V, thrown } from './helpers.mjs';

test('detach_() returns the tensor itself, now a leaf that does not require grad', () => {
  const a = hg.tensor([1, 2], { requiresGrad: true });
  const b = a.mul(2);
  const c = b.mul(3); // made before detach_: still reaches a
  assert.equal(b.detach_(), b);
  assert.equal(b.requiresGrad, false);
  assert.equal(b.isLeaf, true);
  assert.equal(b.gradFn, null);
  c.sum().backward();
  assert.deepEqual(V(a.grad), [6, 6]); // d(6a)/da, by hand
  // After detach_, new ops on b record no graph.
  assert.equal(b.mul(2).requiresGrad, false);
});

test('detach_() of a view is refused, and the engine keeps working', () => {
  const a = hg.tensor([1, 2], { requiresGrad: true });
  assert.match(thrown(() => a.view([2]).detach_()), /^Can't detach views in-place\. Use detach\(\) instead\./);
  assert.match(thrown(() => a.mul(1).select(0, 0).detach_()), /^Can't detach views in-place/);
  const y = a.mul(a).sum();
  y.backward();
  assert.deepEqual(V(a.grad), [2, 4]);
});
