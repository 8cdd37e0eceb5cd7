// hg.customFunction (PyTorch's torch.autograd.Function) from JS: the node,
// its place among hooks and in the trace, ctx, and PyTorch's errors for
// what backward returns. Expected values by hand (in the comments); the
// messages are torch 2.15's (tests/python/expected/error_function_backward.json).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hg, V, approx, thrown } from './helpers.mjs';

const Exp = hg.customFunction('Exp', {
  forward(ctx, x) {
    const r = x.exp();
    ctx.saveForBackward(r);
    return r;
  },
  backward(ctx, g) {
    const [r] = ctx.savedTensors;
    return g.mul(r);
  },
});

test('customFunction: Exp saves its output; x.grad = exp(x)', () => {
  const x = hg.tensor([0, 1], { requiresGrad: true });
  const y = Exp.apply(x);
  assert.equal(y.gradFn.name, 'ExpBackward');
  assert.equal(y.gradFn.nextFunctions[0][0].name, 'AccumulateGrad');
  y.sum().backward();
  approx(V(x.grad), [1, Math.E]);
});

test('customFunction: forward runs with grad mode off; no input requiring grad gives no gradFn', () => {
  let inForward;
  const F = hg.customFunction('Probe', {
    forward(ctx, x) { inForward = [hg.isGradEnabled(), ctx.needsInputGrad]; return x.mul(2); },
    backward(ctx, g) { return g.mul(2); },
  });
  const y = F.apply(hg.tensor([1]), 3);
  assert.deepEqual(inForward, [false, [false, false]]);
  assert.equal(y.gradFn, null);
  assert.equal(y.requiresGrad, false);
});

test('customFunction: the node runs between its hooks, and the trace shows its step', () => {
  // y = Rev(x) (gradient reversal, alpha 0.5): y's tensor hook → pre-hook →
  // backward → post-hook; x = [2]: x.grad = -0.5.
  const order = [];
  const Rev = hg.customFunction('Rev', {
    forward(ctx, x, alpha) { ctx.alpha = alpha; return x.mul(1); },
    backward(ctx, g) { order.push('backward'); return [g.neg().mul(ctx.alpha), null]; },
  });
  const x = hg.tensor([2], { requiresGrad: true });
  const y = Rev.apply(x, 0.5);
  y.registerHook(() => { order.push('tensor'); });
  y.gradFn.registerPrehook(() => { order.push('pre'); });
  y.gradFn.registerHook((gi) => { order.push(`post ${V(gi[0])}`); });
  const events = hg.trace(() => y.sum().backward());
  assert.deepEqual(order, ['tensor', 'pre', 'backward', 'post -0.5']);
  approx(V(x.grad), [-0.5]);
  const step = events.find((e) => e.type === 'node' && e.name === 'RevBackward');
  assert.ok(step, 'the custom node has its node step');
});

test('customFunction: materialized zeros, or null with setMaterializeGrads(false)', () => {
  for (const materialize of [true, false]) {
    let seen;
    const Split = hg.customFunction('Split', {
      forward(ctx, x) { ctx.setMaterializeGrads(materialize); return [x.mul(1), x.mul(2)]; },
      backward(ctx, g1, g2) { seen = g2 === null ? null : V(g2); return g1; },
    });
    const x = hg.tensor([1], { requiresGrad: true });
    const [a] = Split.apply(x);
    a.sum().backward();
    assert.deepEqual(seen, materialize ? [0] : null);
  }
});

test('customFunction: markNonDifferentiable outputs have no gradFn', () => {
  const F = hg.customFunction('WithIndex', {
    forward(ctx, x) { const i = hg.tensor([0]); ctx.markNonDifferentiable(i); return [x.mul(1), i]; },
    backward(ctx, g) { return g; },
  });
  const [v, i] = F.apply(hg.tensor([1], { requiresGrad: true }));
  assert.equal(v.gradFn.name, 'WithIndexBackward');
  assert.equal(i.gradFn, null);
});

test("customFunction: PyTorch's errors for what backward returns; a throw reaches the caller", () => {
  const make = (name, grads) => hg.customFunction(name, {
    forward(ctx, x, y, k) { return x.mul(y).mul(k); },
    backward(ctx, g) { return grads(g); },
  });
  const x = hg.tensor([1, 2], { requiresGrad: true });
  const y = hg.tensor([3, 4], { requiresGrad: true });
  const run = (name, grads) => thrown(() => make(name, grads).apply(x, y, 2).sum().backward());
  assert.equal(run('TooFew', (g) => [g, g]),
    'function TooFewBackward returned an incorrect number of gradients (expected 3, got 2)');
  assert.equal(run('BadShape', (g) => [hg.ones([3]), g, null]),
    'Function BadShapeBackward returned an invalid gradient at index 0 - got [3] but expected shape compatible with [2]');
  assert.equal(run('GradForK', (g) => [g, g, g]),
    'function GradForKBackward returned a gradient different than None at position 3, but the corresponding forward input was not a Variable');
  assert.equal(run('NotTensor', (g) => ['a', g, null]), 'expected Variable or None (got string)');
  assert.match(run('Throws', () => { throw new Error('backward failed on purpose'); }), /backward failed on purpose/);
  // Extra trailing nulls are dropped, as PyTorch drops extra Nones.
  make('Extra', (g) => [g, g, null, null]).apply(x, y, 2).sum().backward();
  approx(V(x.grad), [1, 1]);
});

test('customFunction: a finished graph is freed (the ctx holds no output, the callback no ctx state)', () => {
  const x = hg.tensor([0.5], { requiresGrad: true });
  const before = hg.memory().nodes;
  for (let i = 0; i < 20; i++) {
    hg.tidy(() => {
      const y = Exp.apply(x.mul(1));
      y.gradFn.registerHook(() => {});
      y.sum().backward();
    });
  }
  assert.equal(hg.memory().nodes, before);
});
