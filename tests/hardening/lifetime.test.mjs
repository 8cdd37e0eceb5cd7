// Lifetime hardening (issue 10): a synchronous training loop in hg.tidy that
// never yields stays flat; what a backward releases is really collected.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';
import { hg, L, memoryBytes } from './harness.mjs';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');
async function settle() {
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 0));
  }
}

/** A 2-8-1 tanh MLP as hg.nn.Linear modules with every kind of hook. */
function mlp() {
  const l1 = new hg.nn.Linear(2, 8, { seed: 1 });
  const l2 = new hg.nn.Linear(8, 1, { seed: 2 });
  const counts = { fwd: 0, full: 0, pre: 0, tensor: 0, post: 0 };
  l1.registerForwardHook(() => { counts.fwd++; });
  l1.registerFullBackwardHook(() => { counts.full++; });
  l2.registerFullBackwardPreHook(() => { counts.pre++; });
  const w = l1.getParameter('weight');
  w.registerHook((g) => { counts.tensor++; return g.mul(1); });
  w.registerPostAccumulateGradHook(() => { counts.post++; });
  const params = [...l1.parameters(), ...l2.parameters()];
  return { l1, l2, params, counts };
}

test('a synchronous 1,000-step training loop, each step in hg.tidy, stays flat without yielding', () => {
  const { l1, l2, params, counts } = mlp();
  const x = hg.tensor([[0, 0], [0, 1], [1, 0], [1, 1]]);
  const y = hg.tensor([[0], [1], [1], [0]]);
  const step = (i) => hg.tidy(() => {
    const h = l1.call(x).tanh();
    const out = l2.call(h);
    const loss = out.sub(y).pow(2).mean();
    // A node hook and a retained intermediate each step, as lessons do.
    loss.gradFn.registerHook(() => {});
    h.retainGrad();
    loss.backward();
    hg.noGrad(() => { for (const p of params) p.sub_(p.grad.mul(0.2)); });
    for (const p of params) p.grad = null;
    if (i % 100 === 0) void hg.graph([loss]);
    return loss.item();
  });
  const losses = [];
  for (let i = 0; i < 100; i++) losses.push(step(i)); // warm-up
  const a = hg.memory();
  const bytesA = memoryBytes();
  for (let i = 100; i < 1000; i++) losses.push(step(i));
  const b = hg.memory();
  assert.equal(b.tensors, a.tensors, 'live tensors grew');
  assert.equal(b.nodes, a.nodes, 'live graph nodes grew');
  assert.equal(b.handles, a.handles, 'live handles grew');
  assert.equal(memoryBytes(), bytesA, 'wasm memory grew');
  // It trained, and every hook ran on every step.
  assert.ok(losses[999] < losses[0] / 100, `loss ${losses[0]} -> ${losses[999]}`);
  assert.deepEqual(counts, { fwd: 1000, full: 1000, pre: 1000, tensor: 1000, post: 1000 });
  // Between steps only the parameters (and their modules' state) are alive.
  assert.equal(b.nodes, 0);
  assert.equal(b.tensors, 2 + 4); // x, y and the four parameters
});

test('a removed module full backward hook is collected while the graph\'s output tensor is still held', async () => {
  const collected = [];
  const registry = new FinalizationRegistry((what) => collected.push(what));
  const m = new hg.nn.Linear(2, 2, { seed: 3 });
  let out;
  (() => {
    const x = L([[1, 2]]);
    // The hook shares its scope with a closure using `out` (as in the issue).
    const hook = () => {};
    const pre = () => {};
    registry.register(hook, 'full backward hook');
    registry.register(pre, 'full backward pre-hook');
    const h = m.registerFullBackwardHook(hook);
    const hp = m.registerFullBackwardPreHook(pre);
    out = m.call(x).tanh().sum();
    hg.trace(() => out.backward());
    h.remove();
    hp.remove();
  })();
  await settle();
  assert.equal(out.gradFn.name, 'SumBackward0'); // the output and its graph live on
  assert.deepEqual(collected.sort(), ['full backward hook', 'full backward pre-hook']);
});

test('a graph released by dispose() frees its nodes and tensors at once (no garbage collection needed)', () => {
  const before = hg.memory();
  const x = L([1, 2, 3]);
  const y = hg.tidy(() => {
    let t = x;
    for (let i = 0; i < 200; i++) t = t.mul(1.01).tanh();
    return t;
  });
  const mid = hg.memory();
  assert.equal(mid.nodes - before.nodes, 401); // 200 × (Mul, Tanh) + AccumulateGrad
  y.dispose();
  x.dispose();
  const after = hg.memory();
  assert.equal(after.nodes, before.nodes);
  assert.equal(after.tensors, before.tensors);
});
