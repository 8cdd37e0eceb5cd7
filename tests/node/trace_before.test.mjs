// A hook event's `before` is the value the hook was given, copied before the
// hook ran: a hook that changes its argument in place (the in-place hazard,
// `g.mul_(100)`) shows 1 → 100, not 100 → 100. Values by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hg } from './helpers.mjs';

const hooks = (events) => events.filter((e) => e.type === 'hook');

test('tensor hook changing its gradient in place: before is the gradient it was given', () => {
  const x = hg.tensor(2, { requiresGrad: true });
  const y = x.mul(3);
  y.registerHook((g) => { g.mul_(100); });
  const [ev] = hooks(hg.trace(() => y.backward()));
  assert.equal(ev.kind, 'tensor');
  assert.equal(ev.before, 1);   // d y / d y
  assert.equal(ev.after, 100);  // the same tensor, changed in place
  assert.equal(x.grad.item(), 300);
});

test('node pre-hook and post-hook changing gradients in place', () => {
  const x = hg.tensor(2, { requiresGrad: true });
  const y = x.mul(3);
  y.gradFn.registerPrehook((gs) => { gs[0].mul_(10); });
  y.gradFn.registerHook((gin) => { gin[0].add_(1); });
  const [pre, post] = hooks(hg.trace(() => y.backward()));
  assert.deepEqual([pre.kind, pre.before, pre.after], ['node-pre', [1], [10]]);
  // MulBackward0 gives 10 * 3 = 30 to x (and None for the number 3, as in
  // torch: `post sees (tensor(30.), None)`); the post-hook adds 1 in place.
  assert.deepEqual([post.kind, post.before, post.after], ['node-post', [30, null], [31, null]]);
  assert.equal(x.grad.item(), 31);
});

test('post-accumulate-grad hook changing .grad in place', () => {
  const x = hg.tensor(2, { requiresGrad: true });
  x.registerPostAccumulateGradHook((t) => { t.grad.mul_(2); });
  const [ev] = hooks(hg.trace(() => x.mul(3).backward()));
  assert.deepEqual([ev.kind, ev.before, ev.after], ['post-accumulate', 3, 6]);
});
