// Tensor hooks over their lifetime, against PyTorch (tests/fixtures/pytorch.json):
// handles and removal mid-backward, hooks across in-place ops, retain_grad
// accumulating, grad mode inside hooks and backward() called from a hook.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hg, S, V, approx, leaf, assertTree, thrown } from './helpers.mjs';

test('hook handles: {id, remove()}, distinct ids, hooks returning undefined keep the value', () => {
  const a = leaf(2);
  const c = a.mul(3);
  const h1 = c.registerHook(() => undefined);
  const h2 = c.registerHook(() => null);
  assert.equal(typeof h1.id, 'number');
  assert.notEqual(h1.id, h2.id);
  assert.equal(typeof h1.remove, 'function');
  c.backward();
  // hand calculation: d(3a)/da = 3, hooks change nothing
  approx(V(a.grad), 3);
});

test('hooks_and_inplace: hooks registered before an in-place op stay on the old node', () => {
  const s = S('hooks_and_inplace');
  const log = [];
  const a = leaf([1, 2]);
  const c = a.mul(2);
  c.registerHook((g) => { log.push(['h1', V(g)]); return g.add(1); });
  c.retainGrad();
  c.add_(1);
  c.registerHook((g) => { log.push(['h2', V(g)]); return g.mul(10); });
  assertTree(c.gradFn, s.grad_fn);
  c.backward(hg.tensor([1, 2]));
  assert.deepEqual(log.map((e) => e[0]), s.log.map((e) => e[0]));
  approx(log.map((e) => e[1]), s.log.map((e) => e[1]));
  approx(V(c.grad), s.c_grad, 'c.grad');
  approx(V(a.grad), s.a_grad, 'a.grad');
  assert.equal(c.retainsGrad, s.retains_grad);
});

test('retain_grad_accumulates', () => {
  const s = S('retain_grad_accumulates');
  const a = leaf(2);
  const c = a.mul(3);
  c.retainGrad();
  const e = c.mul(c);
  e.backward(undefined, { retainGraph: true });
  approx(V(c.grad), s.c_grad_first);
  e.backward();
  approx(V(c.grad), s.c_grad_second);
  approx(V(a.grad), s.a_grad);
});

test('retain_grad_inplace (test_autograd.py)', () => {
  const s = S('retain_grad_inplace');
  const a = leaf([1]).clone();
  a.retainGrad();
  a.mul_(2);
  a.sum().backward();
  approx(V(a.grad), s.a_grad);
  approx(V(a), s.a);
  assert.equal(a.gradFn.name, s.grad_fn);
});

test('post_accumulate_hooks_order: removal mid-backward', () => {
  const s = S('post_accumulate_hooks_order');
  const log = [];
  const x = leaf([1, 2]);
  const hs = {};
  x.registerPostAccumulateGradHook(() => { log.push('p1'); hs.p3.remove(); });
  x.registerPostAccumulateGradHook(() => { log.push('p2'); });
  hs.p3 = x.registerPostAccumulateGradHook(() => { log.push('p3'); });
  x.mul(2).sum().backward();
  assert.deepEqual(log, s.first, 'first backward');
  log.length = 0;
  x.mul(2).sum().backward();
  assert.deepEqual(log, s.second, 'second backward');
  approx(V(x.grad), s.x_grad);
});

test('grad_mode_in_hooks: backward hooks run with recording off', () => {
  const s = S('grad_mode_in_hooks');
  const log = [];
  const a = leaf(2);
  const x = leaf(3);
  const c = a.mul(5);
  c.registerHook((g) => { log.push(['tensor_hook', x.mul(x).requiresGrad, g.requiresGrad]); return g.mul(2); });
  c.gradFn.registerHook(() => { log.push(['node_post', x.mul(x).requiresGrad]); });
  a.registerPostAccumulateGradHook(() => { log.push(['post_acc', x.mul(x).requiresGrad]); });
  c.mul(c).backward();
  assert.deepEqual(log, s.tensor_hooks.log);
  approx(V(a.grad), s.tensor_hooks.a_grad);
  // recording is back on after backward (hand)
  assert.equal(x.mul(x).requiresGrad, true);

  const mlog = [];
  const m = new hg.Module('Double', (t) => t.mul(2));
  m.registerFullBackwardHook(() => { mlog.push(['full_backward', x.mul(x).requiresGrad]); });
  m.registerForwardHook(() => { mlog.push(['forward', x.mul(x).requiresGrad]); });
  m.call(leaf(1)).backward();
  assert.deepEqual(mlog, s.module_hooks);

  const b = leaf(2);
  const d = b.mul(5);
  d.registerHook(() => { x.mul(x).backward(); });
  const msg = thrown(() => d.backward());
  assert.ok(msg.includes(s.backward_inside_hook_error.message),
    `error should include "${s.backward_inside_hook_error.message}", got "${msg}"`);
});

test('reentrant_backward: backward() called from inside a hook', () => {
  const s = S('reentrant_backward');
  const log = [];
  const a = leaf(2);
  const c = a.mul(3);
  let n = 0;
  c.registerHook((g) => {
    n += 1;
    log.push(['enter', n, V(g)]);
    if (n === 1) c.backward(hg.tensor(10), { retainGraph: true });
    log.push(['exit', n]);
  });
  c.backward(undefined, { retainGraph: true });
  assert.deepEqual(log.map((e) => e.slice(0, 2)), s.same_graph.log.map((e) => e.slice(0, 2)), 'enter/exit order');
  approx(log.filter((e) => e[0] === 'enter').map((e) => e[2]),
    s.same_graph.log.filter((e) => e[0] === 'enter').map((e) => e[2]), 'grads seen');
  approx(V(a.grad), s.same_graph.a_grad, 'a.grad');

  const x = leaf(3);
  const y = x.mul(x);
  const a2 = leaf(2);
  const c2 = a2.mul(3);
  c2.registerHook(() => { y.backward(); });
  c2.backward();
  approx(V(a2.grad), s.independent.a_grad, 'a2.grad');
  approx(V(x.grad), s.independent.x_grad, 'x.grad from the inner backward');
});

// The player names a tensor that hg.tidy released before graph() was taken
// from its hook events (web/src/model/trace-model.js): each tensor hook event
// carries the tensor's name as it was when the hook ran.
