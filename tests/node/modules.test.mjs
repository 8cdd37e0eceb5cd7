// Module hooks against PyTorch: forward (pre-)hooks, prepend, with_kwargs,
// global hooks, parameters, nested modules, hooks removed from a snapshot,
// tuple outputs, trace events and nn.Linear. Backward hooks (legacy and
// full, the seed-003 adjoint model): module_backward_hooks.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hg, S, V, Vs, approx, leaf, captureWarnings, assertWarnings, none } from './helpers.mjs';
import { mul2, double, fixedLinear } from './fixture_modules.mjs';

const sumNet = () => new hg.Module('SumNet', (a, b, { c }) => a.add(b).add(c));

test('module_sumnet: the video\'s SumNet (116, then 6 after removing the hooks)', () => {
  const s = S('module_sumnet');
  const log = [];
  const net = sumNet();
  const hp = net.registerForwardPreHook((mod, args) => {
    log.push(['pre', Vs(args), mod.name === 'SumNet', args.length]);
    const [a, b] = args;
    return [a.add(10), b];
  });
  const hf = net.registerForwardHook((mod, args, output) => {
    log.push(['fwd', Vs(args), V(output)]);
    return output.add(100);
  });
  const a = hg.tensor(1); const b = hg.tensor(2); const c = hg.tensor(3);
  const d = net.callWithKwargs([a, b], { c });
  approx(V(d), s.out_with_hooks, 'with hooks');
  hp.remove();
  hf.remove();
  hf.remove();
  approx(V(net.callWithKwargs([a, b], { c })), s.out_after_remove, 'after remove');
  assert.equal(log.length, s.log.length);
  assert.deepEqual(log.map((e) => e[0]), s.log.map((e) => e[0]));
  approx(log.map((e) => e[1]), s.log.map((e) => e[1]), 'args seen');
  assert.equal(log[0][2], s.log[0][2], 'pre-hook gets the module');
  assert.equal(log[0][3], s.log[0][3], 'two positional args');
  approx(log[1][2], s.log[1][2], 'forward hook sees the output');
});

test('module_prehook_single_tensor', () => {
  const s = S('module_prehook_single_tensor');
  const seen = {};
  const m = double();
  m.registerForwardPreHook((mod, args) => args[0].add(1));
  m.registerForwardHook((mod, args, out) => {
    seen.args = Vs(args); seen.nargs = args.length; seen.isArray = Array.isArray(args); seen.out = V(out);
  });
  const y = m.call(hg.tensor(3));
  approx(V(y), s.out);
  approx(seen.args, s.args);
  assert.equal(seen.nargs, s.nargs);
  assert.equal(seen.isArray, s.is_tuple, 'args is an array (PyTorch: a tuple)');
  approx(seen.out, s.out);
});

test('module_hook_prepend_order', () => {
  const s = S('module_hook_prepend_order');
  const log = [];
  const m = double();
  m.registerForwardPreHook(() => { log.push('p1'); });
  m.registerForwardPreHook(() => { log.push('p2'); });
  m.registerForwardPreHook(() => { log.push('p3'); }, { prepend: true });
  m.registerForwardHook(() => { log.push('f1'); });
  m.registerForwardHook(() => { log.push('f2'); }, { prepend: true });
  m.registerForwardHook(() => { log.push('f3'); });
  m.call(hg.tensor(1));
  assert.deepEqual(log, s.log);
});

test('module_hooks_chain_values', () => {
  const s = S('module_hooks_chain_values');
  const log = [];
  const m = double();
  m.registerForwardPreHook((mod, a) => { log.push(['pre1', Vs(a)]); return [a[0].add(1)]; });
  m.registerForwardPreHook((mod, a) => { log.push(['pre2', Vs(a)]); });
  m.registerForwardPreHook((mod, a) => { log.push(['pre3', Vs(a)]); return [a[0].mul(10)]; });
  m.registerForwardHook((mod, a, o) => { log.push(['fwd1', Vs(a), V(o)]); return o.add(1); });
  m.registerForwardHook((mod, a, o) => { log.push(['fwd2', Vs(a), V(o)]); });
  m.registerForwardHook((mod, a, o) => { log.push(['fwd3', Vs(a), V(o)]); return o.mul(2); });
  const y = m.call(hg.tensor(1));
  assert.deepEqual(log.map((e) => e[0]), s.log.map((e) => e[0]));
  approx(log.map((e) => e.slice(1)), s.log.map((e) => e.slice(1)));
  approx(V(y), s.out);
});

test('module_with_kwargs_hooks', () => {
  const s = S('module_with_kwargs_hooks');
  const log = [];
  const net = sumNet();
  net.registerForwardPreHook((mod, args, kwargs) => {
    log.push(['pre', Vs(args), { c: V(kwargs.c) }]);
    return [args, { c: kwargs.c.mul(10) }];
  }, { withKwargs: true });
  net.registerForwardHook((mod, args, kwargs, out) => {
    log.push(['fwd', Vs(args), { c: V(kwargs.c) }, V(out)]);
    return out.add(0.5);
  }, { withKwargs: true });
  net.registerForwardHook((mod, args, out) => { log.push(['fwd_plain', Vs(args), V(out)]); });
  const y = net.callWithKwargs([hg.tensor(1), hg.tensor(2)], { c: hg.tensor(3) });
  assert.deepEqual(log.map((e) => e[0]), s.log.map((e) => e[0]));
  for (let i = 0; i < log.length; i++) {
    const [, ...got] = log[i];
    const [, ...want] = s.log[i];
    approx(got[0], want[0], `${log[i][0]} args`);
    if (want.length > 1 && typeof want[1] === 'object' && want[1] !== null && !Array.isArray(want[1])) {
      assert.deepEqual(Object.keys(got[1]), Object.keys(want[1]), 'kwargs keys');
      approx(got[1].c, want[1].c, `${log[i][0]} kwargs.c`);
      if (want.length > 2) approx(got[2], want[2], `${log[i][0]} output`);
    } else if (want.length > 1) {
      approx(got[1], want[1], `${log[i][0]} output`);
    }
  }
  approx(V(y), s.out);
});

test('module_global_hooks_order: global hooks run before the module\'s own', () => {
  const s = S('module_global_hooks_order');
  const log = [];
  const m = mul2();
  const handles = [
    hg.registerModuleForwardPreHook(() => { log.push('global_pre'); }),
    hg.registerModuleForwardHook(() => { log.push('global_fwd'); }),
    hg.registerModuleFullBackwardPreHook(() => { log.push('global_bw_pre'); }),
    hg.registerModuleFullBackwardHook(() => { log.push('global_bw'); }),
  ];
  let a; let b;
  try {
    m.registerForwardPreHook(() => { log.push('local_pre'); });
    m.registerForwardHook(() => { log.push('local_fwd'); });
    m.registerFullBackwardPreHook(() => { log.push('local_bw_pre'); });
    m.registerFullBackwardHook(() => { log.push('local_bw'); });
    a = leaf(2); b = leaf(3);
    const out = m.call(a, b);
    log.push('--backward--');
    out.backward();
  } finally {
    for (const h of handles) h.remove();
  }
  assert.deepEqual(log, s.log);
  approx(V(a.grad), s.a_grad);
  approx(V(b.grad), s.b_grad);
  // removed: a new module call runs no global hook
  log.length = 0;
  mul2().call(leaf(1), leaf(1)).backward();
  assert.deepEqual(log, []);
});

test('module_parameters: namedParameters, namedModules, zeroGrad', () => {
  const s = S('module_parameters');
  const fc = fixedLinear(true);
  const net = new hg.Module('Net', (x) => fc.call(x).mul(net.getParameter('scale')));
  net.registerParameter('scale', hg.tensor(2, { requiresGrad: true }));
  net.addModule('fc', fc);
  net.call(hg.tensor([[1, 2, 3]])).sum().backward();
  assert.deepEqual(net.namedParameters().map(([n]) => n), s.named_parameters);
  assert.deepEqual(net.namedModules().map(([n]) => n), s.named_modules);
  for (const [n, p] of net.namedParameters()) approx(V(p.grad), s.grads[n], `${n}.grad`);
  assert.equal(net.parameters().length, s.named_parameters.length);
  net.zeroGrad();
  for (const [n, p] of net.namedParameters()) assert.equal(none(p.grad), s.grads_after_zero_grad[n], `${n}.grad after zeroGrad`);
});

test('registerParameter keeps the very tensor (same id)', () => {
  const m = new hg.Module('M', (x) => x.mul(m.getParameter('p')));
  const p = hg.tensor(3, { requiresGrad: true });
  m.registerParameter('p', p);
  assert.equal(m.getParameter('p').id, p.id);
  m.call(hg.tensor(2)).backward();
  approx(V(p.grad), 2, 'hand: d(2p)/dp');
});

test('module_nested_hooks_order: parent and child module hooks', () => {
  const s = S('module_nested_hooks_order');
  const log = [];
  const child = double();
  const parent = new hg.Module('Parent', (x) => child.call(x).mul(3));
  parent.addModule('child', child);
  for (const [nm, m] of [['parent', parent], ['child', child]]) {
    m.registerForwardPreHook((mod, args) => { log.push([`${nm}_pre`, Vs(args)]); });
    m.registerForwardHook((mod, args, out) => { log.push([`${nm}_fwd`, V(out)]); });
    m.registerFullBackwardPreHook((mod, go) => { log.push([`${nm}_bw_pre`, Vs(go)]); });
    m.registerFullBackwardHook((mod, gi, go) => { log.push([`${nm}_bw`, Vs(gi), Vs(go)]); });
  }
  const x = leaf(1.5);
  const y = parent.call(x);
  log.push(['--backward--']);
  y.backward();
  assert.deepEqual(log.map((e) => e[0]), s.log.map((e) => e[0]), 'order');
  approx(log.map((e) => e.slice(1)), s.log.map((e) => e.slice(1)), 'values');
  approx(V(x.grad), s.x_grad);
  approx(V(y), s.out);
  assert.deepEqual(parent.namedModules().map(([n]) => n), s.named_modules);
});

test('module_called_twice: one backward hook call per forward call', () => {
  const s = S('module_called_twice');
  const log = [];
  const m = double();
  m.registerFullBackwardHook((mod, gi, go) => { log.push([Vs(gi), Vs(go)]); });
  m.registerForwardHook((mod, args) => { log.push(['fwd', Vs(args)]); });
  const x = leaf(3);
  m.call(x).mul(5).add(m.call(x.mul(x))).backward();
  assert.deepEqual(log.map((e) => e[0] === 'fwd'), s.log.map((e) => e[0] === 'fwd'));
  approx(log.map((e) => (e[0] === 'fwd' ? e[1] : e)), s.log.map((e) => (e[0] === 'fwd' ? e[1] : e)));
  approx(V(x.grad), s.x_grad);
});

test('module_hook_removes_another: module hooks run from a snapshot', () => {
  const s = S('module_hook_removes_another');
  const log = [];
  const m = double();
  const hs = {};
  hs.p1 = m.registerForwardPreHook(() => { log.push('p1'); hs.p1.remove(); });
  m.registerForwardHook(() => { log.push('f1'); hs.f2.remove(); });
  hs.f2 = m.registerForwardHook(() => { log.push('f2'); });
  m.call(hg.tensor(1));
  assert.deepEqual(log, s.first_call, 'first call');
  log.length = 0;
  m.call(hg.tensor(1));
  assert.deepEqual(log, s.second_call, 'second call');
});

// hookgrad-specific (contract "Inspection"): module and op trace events.
// Expected values by hand: a=2, c=6, the pre-hook adds 1 to the first arg.
test('trace: module phases, op events and module hook before/after values', () => {
  const a = leaf(2);
  const c = leaf(6);
  const m = new hg.Module('Mul2', (x, y) => x.mul(y));
  m.registerForwardPreHook((mod, args) => [args[0].add(1), args[1]]);
  m.registerForwardHook(() => {});
  let out;
  const ev = hg.trace(() => { out = m.call(a, c); });
  const phases = ev.filter((e) => e.type === 'module').map((e) => e.phase);
  assert.deepEqual(phases.filter((p) => p !== 'end'), ['pre-hook', 'forward', 'hook']);
  const pre = ev.find((e) => e.type === 'hook' && e.kind === 'module-pre');
  approx(pre.before, [2, 6], 'pre-hook before');
  approx(pre.after, [3, 6], 'pre-hook after');
  const ops = ev.filter((e) => e.type === 'op');
  assert.deepEqual(ops.map((e) => e.name), ['AddBackward0', 'MulBackward0']);
  const mul = ops[1];
  assert.equal(mul.output, out.id, 'op output id');
  assert.equal(mul.node, out.gradFn.id, 'op node id');
  assert.equal(mul.inputs[1], c.id, 'second input is c');
  approx(V(out), 18);
  JSON.stringify(ev);
});

test('module_tuple_output: a module returning two tensors', () => {
  const s = S('module_tuple_output');
  for (const kind of ['full', 'legacy']) {
    const e = s[kind];
    const m = new hg.Module('Two', (a, b) => [a.mul(b), a.add(b)]);
    const log = [];
    const hook = (mod, gi, go) => { log.push({ grad_input: Vs(gi), grad_output: Vs(go) }); };
    if (kind === 'full') m.registerFullBackwardHook(hook);
    else m.registerBackwardHook(hook);
    const fwd = [];
    m.registerForwardHook((mod, args, out) => { fwd.push([Array.isArray(out), out.length]); });
    const a = leaf(2); const b = leaf(3);
    const w = captureWarnings(() => m.call(a, b));
    assertWarnings(w, e.forward_warnings, `${kind}: forward warnings`);
    assert.deepEqual(fwd, e.forward_hook_saw, `${kind}: forward hook sees an array of 2`);
    const [o1, o2] = w.result;
    assert.deepEqual([o1.gradFn.name, o2.gradFn.name], e.out_grad_fns, `${kind}: output nodes`);
    approx([V(o1), V(o2)], e.out, `${kind}: outputs`);
    o1.mul(2).add(o2.mul(3)).backward();
    assert.equal(log.length, e.log.length, `${kind}: number of hook calls`);
    approx(log.map((x) => x.grad_input), e.log.map((x) => x.grad_input), `${kind}: grad_input`);
    approx(log.map((x) => x.grad_output), e.log.map((x) => x.grad_output), `${kind}: grad_output`);
    approx(V(a.grad), e.a_grad, `${kind}: a.grad`);
    approx(V(b.grad), e.b_grad, `${kind}: b.grad`);
  }
});

test('nn.Linear: parameters, shapes, and seed determinism (hand)', () => {
  const l1 = new hg.nn.Linear(3, 2, { seed: 11 });
  const l2 = new hg.nn.Linear(3, 2, { seed: 11 });
  assert.deepEqual(l1.namedParameters().map(([n]) => n), ['weight', 'bias']);
  assert.deepEqual(Array.from(l1.getParameter('weight').shape), [2, 3]);
  assert.deepEqual(Array.from(l1.getParameter('bias').shape), [2]);
  assert.deepEqual(l1.getParameter('weight').toArray(), l2.getParameter('weight').toArray(), 'same seed, same weights');
  assert.equal(l1.getParameter('weight').requiresGrad, true);
  assert.equal(l1.getParameter('weight').isLeaf, true);
  const nb = new hg.nn.Linear(3, 2, { bias: false });
  assert.deepEqual(nb.namedParameters().map(([n]) => n), ['weight']);
});
