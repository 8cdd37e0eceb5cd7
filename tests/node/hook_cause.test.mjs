// A hook's own exception is the `cause` of the Error the engine throws in
// PyTorch's words, so a page can show where in the hook it was thrown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hg } from './helpers.mjs';

test('the Error from backward() carries the hook\'s exception as cause', () => {
  const boom = new Error('boom');
  const x = hg.tensor(2, { requiresGrad: true, name: 'x' });
  const y = x.mul(3); y.name = 'y';
  y.registerHook(function thrower() { throw boom; });
  let caught = null;
  try { y.backward(); } catch (e) { caught = e; }
  assert.ok(caught instanceof Error);
  assert.match(caught.message, /^tensor hook 'thrower' on tensor 'y' raised an error: boom$/);
  assert.equal(caught.cause, boom);
});

test('an engine error after a hook that returned normally has no stale cause', () => {
  const x = hg.tensor([1, 2], { requiresGrad: true });
  const y = x.mul(2);
  y.registerHook(() => hg.tensor([1, 2, 3])); // wrong shape: PyTorch's error, nothing thrown in JS
  let caught = null;
  try { y.sum().backward(); } catch (e) { caught = e; }
  assert.ok(caught instanceof Error);
  assert.equal(caught.cause, undefined);
});

// Every kind of user hook that raises gives its exception as `cause`: the
// binding asks the engine's error which hook failed (no message parsing).
test('module forward, full backward and multi-grad hooks give their exception as cause', () => {
  const cases = {
    'forward hook': (m) => m.registerForwardHook(() => { throw boom; }),
    'full backward hook': (m) => m.registerFullBackwardHook(() => { throw boom; }),
  };
  const boom = new Error('boom');
  for (const [what, register] of Object.entries(cases)) {
    const m = new hg.Module('Twice', (x) => x.mul(2));
    register(m);
    const x = hg.tensor(2, { requiresGrad: true });
    let caught = null;
    try { m.call(x).backward(); } catch (e) { caught = e; }
    assert.ok(caught instanceof Error, what);
    assert.match(caught.message, new RegExp(`^${what} (of|on) module 'Twice' raised an error: boom$`));
    assert.equal(caught.cause, boom, what);
  }
  const a = hg.tensor(1, { requiresGrad: true });
  const b = hg.tensor(2, { requiresGrad: true });
  hg.registerMultiGradHook([a, b], function firstGrad() { throw boom; });
  let caught = null;
  try { a.mul(b).backward(); } catch (e) { caught = e; }
  assert.match(caught.message, /^multi-grad hook 'firstGrad' raised an error: boom$/);
  assert.equal(caught.cause, boom);
});
