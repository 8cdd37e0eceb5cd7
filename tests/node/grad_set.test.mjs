// `grad-set` trace events: the program's own assignments to `.grad`
// (`t.grad = null`, `t.grad = tensor`, `m.zeroGrad()`), so a replay of the
// trace knows `.grad` is None between a training loop's steps, as PyTorch's
// is after `zero_grad()`. Expected values by hand (AccumulateGrad writes a
// fresh gradient into a None `.grad` and adds to any other value).
import test from 'node:test';
import assert from 'node:assert/strict';
import { hg } from './helpers.mjs';

/** The `.grad` writes of a trace, as [type, tensor id, value]. */
const writes = (events) => events.filter((e) => e.type === 'accumulate' || e.type === 'grad-set').map((e) => [e.type, e.tensor, e.grad]);

test('assigning .grad is a grad-set event with the value now in it (null for None)', () => {
  const w = hg.tensor([1, 2], { requiresGrad: true, name: 'w' });
  const events = hg.trace(() => {
    w.mul(3).sum().backward(); // d/dw sum(3w) = [3, 3]
    w.grad = null;
    w.mul(2).sum().backward(); // a fresh [2, 2], not [5, 5]
    w.grad = hg.tensor([10, 20]);
    w.mul(1).sum().backward(); // added: [11, 21]
  });
  assert.deepEqual(writes(events), [
    ['accumulate', w.id, [3, 3]],
    ['grad-set', w.id, null],
    ['accumulate', w.id, [2, 2]],
    ['grad-set', w.id, [10, 20]],
    ['accumulate', w.id, [11, 21]],
  ]);
  const set = events.find((e) => e.type === 'grad-set');
  assert.deepEqual(Object.keys(set), ['type', 'tensor', 'grad'], 'the protocol field order');
  assert.deepEqual(w.grad.toArray(), [11, 21]);
});

test('the event keeps the value at assignment time (a copy), also for a 0-d gradient', () => {
  const w = hg.tensor(1, { requiresGrad: true });
  const g = hg.tensor(0.5);
  const events = hg.trace(() => {
    w.grad = g;
    g.mul_(4); // w.grad is g itself (as in PyTorch): now 2, the event still 0.5
  });
  assert.deepEqual(writes(events), [['grad-set', w.id, 0.5]]);
  assert.equal(w.grad.item(), 2);
});

test('zeroGrad() sets every parameter to None: one grad-set per parameter, in parameters() order', () => {
  const lin = new hg.nn.Linear(2, 1, { seed: 1 });
  lin.call(hg.tensor([[1, 2]])).sum().backward();
  const params = lin.parameters();
  const events = hg.trace(() => lin.zeroGrad());
  assert.deepEqual(writes(events), params.map((p) => ['grad-set', p.id, null]));
  assert.ok(params.every((p) => p.grad === null));
});

test('no event outside a trace, and none for an assignment that fails', () => {
  const w = hg.tensor([1, 2], { requiresGrad: true });
  w.grad = hg.tensor([1, 1]); // not traced: nothing recorded anywhere
  const events = hg.trace(() => {
    assert.throws(() => { w.grad = hg.tensor([1, 2, 3]); }, /attempting to assign a gradient of size '\[3\]' to a tensor of size '\[2\]'/);
  });
  assert.deepEqual(writes(events), []);
  assert.deepEqual(w.grad.toArray(), [1, 1]);
});
