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
