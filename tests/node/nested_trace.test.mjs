// hg.trace() inside a hook while an outer hg.trace() records (issue 31): the
// inner trace records its own run, the outer one keeps recording, and the
// backward completes with PyTorch's gradients. Expected values by hand:
// c = a·b, y = 4c, a hook on c that returns nothing → a.grad = 4b = 12,
// b.grad = 4a = 8 (PyTorch: the hook's value is ignored when it returns None).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hg } from './helpers.mjs';

test('a hook that calls hg.trace() inside a traced backward: both traces record, the backward completes', () => {
  const a = hg.tensor(2, { requiresGrad: true });
  const b = hg.tensor(3, { requiresGrad: true });
  const c = a.mul(b);
  const y = c.mul(4);
  let inner = null;
  const h = c.registerHook(function traceInside(g) {
    hg.recordLog('log', 'in hook');
    inner = hg.trace(() => { hg.recordLog('log', 'in inner trace'); return g.mul(2); });
  });
  const outer = hg.trace(() => y.backward());
  assert.deepEqual(outer.filter((e) => e.type === 'error'), [], 'no error event');
  assert.equal(a.grad.item(), 12);
  assert.equal(b.grad.item(), 8);
  // The inner trace: its own line (hooks run without grad mode: g.mul(2) builds no node).
  assert.deepEqual(inner, [{ type: 'log', level: 'log', text: 'in inner trace', hook: null }]);
  // The outer trace: the hook's event, then both of its lines, naming it.
  const at = outer.findIndex((e) => e.type === 'hook' && e.handle === h.id);
  assert.ok(at >= 0, 'the hook event is recorded');
  assert.deepEqual(outer.slice(at + 1, at + 3), [
    { type: 'log', level: 'log', text: 'in hook', hook: h.id },
    { type: 'log', level: 'log', text: 'in inner trace', hook: h.id },
  ]);
  assert.deepEqual(outer.filter((e) => e.type === 'accumulate').map((e) => e.grad).sort(), [12, 8].sort());
  // The next trace starts clean.
  assert.deepEqual(hg.trace(() => hg.recordLog('log', 'next')), [{ type: 'log', level: 'log', text: 'next', hook: null }]);
});

test('a hook returning a value from inside its own hg.trace(): the outer backward uses it', () => {
  const a = hg.tensor(2, { requiresGrad: true });
  const b = hg.tensor(3, { requiresGrad: true });
  const c = a.mul(b);
  const y = c.mul(4);
  c.registerHook((g) => { let r; hg.trace(() => { r = g.mul(2); }); return r; });
  hg.trace(() => y.backward());
  // dy/dc = 4, doubled by the hook → a.grad = 8b = 24, b.grad = 8a = 16.
  assert.equal(a.grad.item(), 24);
  assert.equal(b.grad.item(), 16);
});
