// torch.autograd.graph hooks against PyTorch (scenarios
// "saved_tensors_hooks", "multi_grad_hook"): pack at forward, unpack at
// backward with the saved values, their trace events, and multi-grad hooks
// in 'all' and 'any' modes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hg, S, V, Vs, approx, thrown } from './helpers.mjs';

test('savedTensorsHooks: pack in forward, unpack in backward, same values as PyTorch', () => {
  const s = S('saved_tensors_hooks');
  const calls = [];
  const x = hg.tensor(s.x, { requiresGrad: true });
  const y = hg.savedTensorsHooks(
    (t) => { calls.push({ hook: 'pack', value: V(t) }); return t; },
    (t) => { calls.push({ hook: 'unpack', value: V(t) }); return t; },
    () => x.mul(x).exp().sum(),
  );
  calls.push({ hook: 'backward-start' });
  y.backward();
  assert.deepEqual(calls.map((c) => c.hook), s.calls.map((c) => c.hook), 'call order');
  calls.forEach((c, i) => { if (s.calls[i].value) approx(c.value, s.calls[i].value, `call ${i}`); });
  approx(V(y), s.y, 'y');
  approx(V(x.grad), s.x_grad, 'x.grad');
});

test('savedTensorsHooks: pack may return anything; unpack must give a tensor back', () => {
  const s = S('saved_tensors_hooks');
  const x2 = hg.tensor(s.x, { requiresGrad: true });
  const y2 = hg.savedTensorsHooks((t) => t.toArray(), (p) => hg.tensor(p), () => x2.mul(x2).exp().sum());
  y2.backward();
  approx(V(x2.grad), s.x2_grad, 'x2.grad');
  const x3 = hg.tensor(s.x, { requiresGrad: true });
  const y3 = hg.savedTensorsHooks(() => 5, (p) => p, () => x3.mul(x3).sum());
  const msg = thrown(() => y3.backward());
  assert.match(msg, /Output of saved tensor unpack_hook expected to be a Tensor but got result of type number/);
  assert.match(s.unpack_error.message, /Output of saved tensor unpack_hook expected to be a Tensor but got result of type int/);
});

test('savedTensorsHooks: pack and unpack trace events name the saving node and tensor', () => {
  const x = hg.tensor([0.5, -1, 1.5], { requiresGrad: true });
  let y;
  const fwd = hg.trace(() => { y = hg.savedTensorsHooks((t) => t, (t) => t, () => x.exp().sum()); });
  const packs = fwd.filter((e) => e.type === 'hook' && e.kind === 'pack');
  assert.equal(packs.length, 1, 'exp saves its result once');
  const expOp = fwd.find((e) => e.type === 'op' && e.name === 'ExpBackward0');
  assert.equal(packs[0].node, expOp.node, 'pack names the node that saved');
  assert.equal(packs[0].tensor, expOp.output, 'and the saved tensor (exp saves its result)');
  approx(packs[0].before, [Math.exp(0.5), Math.exp(-1), Math.exp(1.5)], 'value packed');
  const bwd = hg.trace(() => y.backward());
  const unpacks = bwd.filter((e) => e.type === 'hook' && e.kind === 'unpack');
  assert.equal(unpacks.length, 1);
  assert.equal(unpacks[0].node, expOp.node);
  approx(unpacks[0].after, packs[0].before, 'the value that comes back');
  const nodeEv = bwd.findIndex((e) => e.type === 'node' && e.name === 'ExpBackward0');
  assert.ok(bwd.indexOf(unpacks[0]) < nodeEv, 'unpack happens while the node runs, before its node event');
});

test("registerMultiGradHook 'all': every gradient once per backward, null for those not reached; remove() stops it", () => {
  const s = S('multi_grad_hook');
  const a = hg.tensor(s.a, { requiresGrad: true });
  const b = hg.tensor(s.b, { requiresGrad: true });
  const calls = [];
  const h = hg.registerMultiGradHook([a, b], (gs) => { calls.push(Vs(gs)); });
  a.mul(b).sum().backward();
  a.mul(2).sum().backward();
  h.remove();
  a.mul(b).sum().backward();
  approx(calls, s.all_calls, 'all calls');
  assert.equal(typeof h.id, 'number');
});

test("registerMultiGradHook 'any': the first gradient of each backward", () => {
  const s = S('multi_grad_hook');
  const a = hg.tensor(s.a, { requiresGrad: true });
  const b = hg.tensor(s.b, { requiresGrad: true });
  const calls = [];
  const h = hg.registerMultiGradHook([a, b], (g) => { calls.push(V(g)); }, { mode: 'any' });
  a.mul(b).mul(3).sum().backward();
  b.mul(5).sum().backward();
  h.remove();
  approx(calls, s.any_calls, 'any calls');
  assert.throws(() => hg.registerMultiGradHook([a], () => {}, { mode: 'some' }), /Expects mode to be one of/);
});

test('multi-grad hook events in the trace', () => {
  const a = hg.tensor([1, 2], { requiresGrad: true });
  const b = hg.tensor([3, 4], { requiresGrad: true });
  const h = hg.registerMultiGradHook([a, b], () => {});
  const ev = hg.trace(() => a.mul(b).sum().backward()).filter((e) => e.type === 'hook' && e.kind === 'multi-grad');
  assert.equal(ev.length, 1);
  assert.deepEqual(ev[0].tensors, [a.id, b.id]);
  approx(ev[0].before, [[3, 4], [1, 2]], 'grads (hand-computed)');
  h.remove();
});

test('savedTensorsHooks around crossEntropy: what is packed and unpacked, in PyTorch\'s order', () => {
  const s = S('saved_tensors_hooks_cross_entropy');
  const calls = [];
  const x = hg.tensor(s.x, { requiresGrad: true });
  const loss = hg.savedTensorsHooks(
    (t) => { calls.push({ hook: 'pack', shape: t.shape, value: V(t) }); return t; },
    (t) => { calls.push({ hook: 'unpack', shape: t.shape }); return t; },
    () => hg.nn.functional.crossEntropy(x, s.targets),
  );
  calls.push({ hook: 'backward-start' });
  loss.backward();
  // LogSoftmaxBackward0's result, NllLossBackward0's self, target, total_weight
  // (hookgrad's target is float32 where PyTorch's is int64: same shape and values).
  assert.deepEqual(calls.map((c) => [c.hook, c.shape]), s.calls.map((c) => [c.hook, c.shape]));
  calls.forEach((c, i) => { if (s.calls[i].value !== undefined) approx(c.value, s.calls[i].value, `pack ${i}`); });
  approx(V(loss), s.loss, 'loss');
  approx(V(x.grad), s.x_grad, 'x.grad');
});
