// Higher-order gradients against PyTorch (scenarios "create_graph_backward",
// "grad_create_graph", "gradient_penalty", "hook_differentiable"):
// createGraph on backward and hg.grad, retainGraph defaulting to it,
// gradient penalties, and hooks during a double backward.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hg, S, V, approx, normName, captureWarnings, assertWarnings } from './helpers.mjs';

// First in this file: PyTorch warns once per process.
test('backward({createGraph}) warns once, x.grad is differentiable (CopyBackwards, then AddBackward0)', () => {
  const s = S('create_graph_backward');
  const x = hg.tensor(s.x, { requiresGrad: true });
  const cap = captureWarnings(() => x.pow(3).sum().backward(undefined, { createGraph: true }));
  assertWarnings(cap, s.warnings);
  approx(V(x.grad), s.first.grad, 'first x.grad');
  assert.equal(x.grad.requiresGrad, s.first.requires_grad);
  assert.equal(x.grad.gradFn.name, normName(s.first.grad_fn));
  const quiet = captureWarnings(() => x.mul(x).sum().backward(undefined, { createGraph: true }));
  assert.deepEqual(quiet.trace, [], 'the warning is given once');
  approx(V(x.grad), s.second.grad, 'accumulated x.grad');
  assert.equal(x.grad.gradFn.name, normName(s.second.grad_fn));
  const g = x.grad;
  x.grad = null;
  g.sum().backward();
  approx(V(x.grad), s.x_grad_after, 'second derivative');
});

test('hg.grad({createGraph}): a differentiable gradient; its graph and the first stay usable', () => {
  const s = S('grad_create_graph');
  const x = hg.tensor(s.x, { requiresGrad: true });
  const y = x.pow(3).sum();
  const [g] = hg.grad(y, x, { createGraph: true });
  approx(V(g), s.g, 'g');
  assert.equal(g.requiresGrad, s.g_requires_grad);
  assert.equal(g.gradFn.name, s.g_grad_fn_name);
  const [gg] = hg.grad(g.sum(), x);
  approx(V(gg), s.gg, 'second derivative');
  const [g2] = hg.grad(y, x); // retainGraph defaulted to createGraph
  approx(V(g2), s.g2, 'first graph retained');
});

test('gradient penalty: (loss + |∂loss/∂w|²).backward() and a tensor hook in both passes', () => {
  const s = S('gradient_penalty');
  const w = hg.tensor(s.w, { requiresGrad: true });
  const x = hg.tensor(s.x);
  const h = x.matmul(w.t());
  const calls = [];
  h.registerHook((g) => { calls.push({ grad: V(g), requires_grad: g.requiresGrad }); });
  const loss = h.tanh().sum();
  const [g] = hg.grad(loss, w, { createGraph: true });
  const penalty = g.pow(2).sum();
  loss.add(penalty).backward();
  approx(V(loss), s.loss, 'loss');
  approx(V(g), s.g, 'g');
  approx(V(penalty), s.penalty, 'penalty');
  approx(V(w.grad), s.w_grad, 'w.grad');
  assert.equal(calls.length, s.hook_calls.length, 'hook calls');
  calls.forEach((c, i) => {
    approx(c.grad, s.hook_calls[i].grad, `hook call ${i}`);
    assert.equal(c.requires_grad, s.hook_calls[i].requires_grad, `hook call ${i}: grad requires grad`);
  });
});

test('a hook may return a differentiable gradient under createGraph', () => {
  const s = S('hook_differentiable');
  const x = hg.tensor(s.x, { requiresGrad: true });
  const h = x.mul(2);
  h.registerHook((g) => g.mul(h));
  const [g] = hg.grad(h.sum(), x, { createGraph: true });
  approx(V(g), s.g, 'g');
  assert.equal(g.gradFn.name, s.g_grad_fn_name);
  const seen = [];
  x.registerHook((gr) => { seen.push(V(gr)); });
  const [gg] = hg.grad(g.sum(), x);
  approx(V(gg), s.gg, 'gg');
  approx(seen, s.x_hook_seen, 'x hook during the double backward');
});

test('trace of a double backward: the second pass runs the nodes the first pass built', () => {
  const x = hg.tensor([1, -2, 3], { requiresGrad: true });
  const [g] = hg.grad(x.pow(3).sum(), x, { createGraph: true });
  const events = hg.trace(() => g.sum().backward());
  const names = events.filter((e) => e.type === 'node').map((e) => e.name);
  // g = grad * (3 * x²): its graph has PowBackward0 on x (the saved input).
  assert.ok(names.includes('PowBackward0'), names.join(','));
  assert.equal(names.at(-1), 'AccumulateGrad');
  approx(V(x.grad), [6, -12, 18], 'x.grad = 6x (hand-computed)');
});
