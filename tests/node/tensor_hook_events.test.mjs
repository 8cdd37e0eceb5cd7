// hookgrad-specific: the trace's hook events for tensor hooks, in PyTorch's
// execution order (tests/fixtures/pytorch.json), with each hook's tensor
// name and function name as they were when it ran.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hg, S, approx, hookKindsOrderRun } from './helpers.mjs';

// hookgrad-specific: hg.trace() must list hook events in execution order.
// The expected order of kinds is derived from PyTorch's order in
// hook_kinds_order (labels -> the contract's hook kinds), with the
// retain-grad hook after c's tensor hooks (PyTorch 2).
test('trace: hook events follow PyTorch\'s execution order (hook_kinds_order)', () => {
  const s = S('hook_kinds_order');
  const KIND = {
    c_t1: 'tensor', c_t2: 'tensor', c_node_pre1: 'node-pre', c_node_pre2: 'node-pre',
    c_node_post: 'node-post', a_tensor: 'tensor', a_acc_pre: 'node-pre',
    a_post_acc: 'post-accumulate', a_acc_post: 'node-post',
  };
  const expected = [];
  for (const [label] of s.log) {
    expected.push(KIND[label]);
    if (label === 'c_t2') expected.push('retain-grad');
  }
  const { a, events } = hookKindsOrderRun();
  const kinds = events.filter((ev) => ev.type === 'hook').map((ev) => ev.kind);
  assert.deepEqual(kinds, expected);
  const accs = events.filter((ev) => ev.type === 'accumulate');
  const accA_ev = accs.find((ev) => ev.tensor === a.id);
  assert.ok(accA_ev, 'accumulate event for a');
  approx(accA_ev.grad, s.a_grad, 'accumulate event carries the value now in a.grad');
  JSON.stringify(events); // plain data
});

test('tensor, retain-grad and post-accumulate hook events carry their tensor\'s name at that moment', () => {
  const w = hg.tensor([1, 2], { requiresGrad: true, name: 'w' });
  w.registerPostAccumulateGradHook(function after() {});
  const events = hg.trace(() => hg.tidy(() => {
    const h = w.mul(3);
    h.registerHook(function double(g) { return g.mul(2); });
    h.retainGrad();
    const u = h.mul(1); // unnamed
    u.registerHook(function seen() {});
    h.name = 'h'; // named after the hooks were registered: the event has the name it had when they ran
    u.sum().backward();
  }));
  const hooks = events.filter((e) => e.type === 'hook').map((e) => [e.kind, e.tensorName]);
  assert.deepEqual(hooks, [['tensor', null], ['tensor', 'h'], ['retain-grad', 'h'], ['post-accumulate', 'w']]);
  const ev = events.find((e) => e.type === 'hook' && e.kind === 'tensor');
  assert.deepEqual(Object.keys(ev), ['type', 'kind', 'handle', 'name', 'tensor', 'tensorName', 'before', 'after'], 'the protocol field order');
});

// A hook that was removed, or whose tensor hg.tidy released, is not in the
// final graph(): the player names it from its event, which carries the name
// graph()'s hook rows give (the function's name, '' for an anonymous one).
test('every hook event carries its hook function\'s name, also after the hook was removed', () => {
  const a = hg.tensor(2, { requiresGrad: true, name: 'a' });
  const m = new hg.Module('Twice', (x) => x.mul(2));
  const expected = new Map(); // handle id → the name its events must carry
  const reg = (name, h) => { expected.set(h.id, name); return h; };
  const moduleHandles = [
    reg('fwdPre', m.registerForwardPreHook(function fwdPre() {})),
    reg('fwd', m.registerForwardHook(function fwd() {})),
    reg('bwdPre', m.registerFullBackwardPreHook(function bwdPre() {})),
    reg('bwd', m.registerFullBackwardHook(function bwd() {})),
  ];
  let yId = null;
  const events = hg.trace(() => {
    const y = hg.savedTensorsHooks(function pack(t) { return t; }, function unpack(p) { return p; }, () => m.call(a).mul(a));
    const hs = [
      reg('onY', y.registerHook(function onY() {})),
      reg('', y.registerHook(() => {})),
      reg('nodePre', y.gradFn.registerPrehook(function nodePre() {})),
      reg('nodePost', y.gradFn.registerHook(function nodePost() {})),
      reg('afterAcc', a.registerPostAccumulateGradHook(function afterAcc() {})),
      reg('both', hg.registerMultiGradHook([a], function both() {})),
    ];
    // Removed by itself as it runs: graph() no longer lists it.
    let onceHandle = null;
    onceHandle = reg('once', y.registerHook(function once() { onceHandle.remove(); }));
    y.retainGrad();
    yId = y.id;
    y.backward();
    for (const h of hs) h.remove();
  });
  for (const h of moduleHandles) h.remove();
  const hooks = events.filter((e) => e.type === 'hook');
  const kinds = new Set(hooks.map((e) => e.kind));
  for (const k of ['module-pre', 'module-forward', 'pack', 'unpack', 'tensor', 'retain-grad', 'node-pre', 'node-post', 'module-full-backward-pre', 'module-full-backward', 'post-accumulate', 'multi-grad']) {
    assert.ok(kinds.has(k), `a ${k} event`);
  }
  for (const e of hooks) {
    const want = e.kind === 'pack' ? 'pack' : e.kind === 'unpack' ? 'unpack' : e.kind === 'retain-grad' ? 'retain_grad' : expected.get(e.handle);
    assert.equal(e.name, want, `the name of the ${e.kind} event of handle ${e.handle}`);
  }
  assert.deepEqual(hooks.filter((e) => e.kind === 'tensor' && e.tensor === yId).map((e) => e.name), ['onY', '', 'once'], 'y\'s hooks in registration order');
});
