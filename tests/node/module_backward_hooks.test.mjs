// Module backward hooks against PyTorch: the legacy backward hook (and its
// wrong answers, kept on purpose), full backward (pre-)hooks, nn.Linear's
// legacy triple, the seed-003 adjoint model, and the order they run in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hg, S, V, Vs, approx, leaf, assertTree, captureWarnings, assertWarnings, quiet, none, shapeOf } from './helpers.mjs';
import { mul2, mul3, mul2w, fixedLinear, setParam } from './fixture_modules.mjs';

function legacy(make, vals, s) {
  const seen = {};
  const m = make();
  m.registerBackwardHook((mod, gi, go) => {
    seen.gi = Vs(gi); seen.go = Vs(go); seen.len = gi.length;
  });
  const ins = vals.map((v) => leaf(v));
  const w = captureWarnings(() => m.call(...ins));
  const out = w.result;
  assertWarnings(w, s.forward_warnings, 'forward warnings');
  assert.equal(out.gradFn.name, s.node, 'node');
  approx(V(out), s.out, 'out');
  out.backward();
  assert.equal(seen.len, s.len_grad_input, 'len(grad_input)');
  approx(seen.gi, s.grad_input, 'grad_input');
  approx(seen.go, s.grad_output, 'grad_output');
  approx(ins.map((t) => V(t.grad)), s.input_grads, 'input grads');
}

test('module_legacy_Mul2: (3, 2) and (1,)', () => {
  legacy(mul2, [2, 3], S('module_legacy_Mul2'));
});

test('module_legacy_Mul3: the broken (4, 6)', () => {
  legacy(mul3, [2, 3, 4], S('module_legacy_Mul3'));
});

test('module_legacy_return_modifies', () => {
  const s = S('module_legacy_return_modifies');
  const m = mul2();
  m.registerBackwardHook((mod, gi) => [gi[0].mul(0), gi[1].mul(10)]);
  const a = leaf(2); const b = leaf(3);
  quiet(() => m.call(a, b)).backward();
  approx(V(a.grad), s.a_grad);
  approx(V(b.grad), s.b_grad);
});

test('module_tensor_hook_workaround: 1, 6, 12, 8', () => {
  const s = S('module_tensor_hook_workaround');
  const log = [];
  const m = mul3();
  const a = leaf(2); const b = leaf(3); const c = leaf(4);
  for (const [nm, t] of [['a', a], ['b', b], ['c', c]]) t.registerHook((g) => { log.push([nm, V(g)]); });
  const d = m.call(a, b, c);
  d.registerHook((g) => { log.push(['d', V(g)]); });
  d.backward();
  assert.deepEqual(log.map((e) => e[0]), s.log.map((e) => e[0]));
  approx(log.map((e) => e[1]), s.log.map((e) => e[1]));
  approx(V(a.grad), s.a_grad);
  approx(V(b.grad), s.b_grad);
  approx(V(c.grad), s.c_grad);
});

test('module_full_backward_Mul3: (12, 8, 6) and (1,)', () => {
  const s = S('module_full_backward_Mul3');
  const seen = {};
  const m = mul3();
  m.registerFullBackwardHook((mod, gi, go) => {
    seen.gi = Vs(gi); seen.go = Vs(go); seen.isArray = Array.isArray(gi);
  });
  const a = leaf(2); const b = leaf(3); const c = leaf(4);
  const w = captureWarnings(() => m.call(a, b, c));
  assertWarnings(w, s.forward_warnings, 'no warning at forward');
  w.result.backward();
  approx(seen.gi, s.grad_input, 'grad_input');
  approx(seen.go, s.grad_output, 'grad_output');
  assert.equal(seen.isArray, s.gi_is_tuple);
  approx([a, b, c].map((t) => V(t.grad)), s.grads);
});

test('module_full_backward_Mul3: output node is BackwardHookFunctionBackward as in PyTorch', () => {
  const s = S('module_full_backward_Mul3');
  const m = mul3();
  m.registerFullBackwardHook(() => {});
  const d = m.call(leaf(2), leaf(3), leaf(4));
  assertTree(d.gradFn, s.out_grad_fn, 'graph of a module with full backward hooks');
});

test('module_full_backward_returns: a null entry', () => {
  const s = S('module_full_backward_returns');
  const m = mul3();
  m.registerFullBackwardHook((mod, gi) => [gi[0].mul(10), null, gi[2].add(1)]);
  const a = leaf(2); const b = leaf(3); const c = leaf(4);
  m.call(a, b, c).backward();
  approx([a, b, c].map((t) => V(t.grad)), s.grads);
});

test('module_full_backward_partial_inputs: zeros for the input not requiring grad', () => {
  const s = S('module_full_backward_partial_inputs');
  const seen = {};
  const m = mul2();
  m.registerFullBackwardHook((mod, gi, go) => { seen.gi = Vs(gi); seen.go = Vs(go); });
  const a = leaf(2);
  const w = captureWarnings(() => m.call(a, hg.tensor(3)).backward());
  assertWarnings(w, s.warnings);
  approx(seen.gi, s.grad_input);
  approx(seen.go, s.grad_output);
  approx(V(a.grad), s.a_grad);
});

test('module_full_backward_pre_hook', () => {
  const s = S('module_full_backward_pre_hook');
  const log = [];
  const m = mul3();
  m.registerFullBackwardPreHook((mod, go) => { log.push(['pre', Vs(go)]); return [go[0].mul(10)]; });
  m.registerFullBackwardHook((mod, gi, go) => { log.push(['full', Vs(gi), Vs(go)]); });
  const a = leaf(2); const b = leaf(3); const c = leaf(4);
  m.call(a, b, c).backward();
  assert.deepEqual(log.map((e) => e[0]), s.log.map((e) => e[0]));
  approx(log.map((e) => e.slice(1)), s.log.map((e) => e.slice(1)));
  approx([a, b, c].map((t) => V(t.grad)), s.grads);
});

test('module_legacy_Linear: what the legacy hook of nn.Linear sees', async (t) => {
  const s = S('module_legacy_Linear');
  const inputs = {
    x2d_bias: [true, [[1, 2, 3]]],
    x1d_bias: [true, [1, 2, 3]],
    x2d_nobias: [false, [[1, 2, 3]]],
    x2d_bias_batch2: [true, [[1, 2, 3], [-1, 0.5, 2]]],
  };
  assert.deepEqual(Object.keys(inputs).sort(), Object.keys(s.cases).sort());
  for (const [name, [bias, xdata]] of Object.entries(inputs)) {
    await t.test(name, () => {
      const e = s.cases[name];
      const lin = fixedLinear(bias);
      const seen = {};
      lin.registerBackwardHook((mod, gi, go) => {
        seen.gi = Vs(gi); seen.giShapes = gi.map((g) => (g ? shapeOf(g) : null));
        seen.go = Vs(go); seen.goShapes = go.map((g) => (g ? shapeOf(g) : null));
      });
      const x = leaf(xdata);
      const w = captureWarnings(() => lin.call(x));
      const out = w.result;
      assertWarnings(w, e.forward_warnings, 'forward warnings');
      assertTree(out.gradFn, e.node, 'node the hook is attached to');
      approx(V(out), e.out, 'out');
      out.backward(hg.tensor(e.gradient));
      assert.deepEqual(seen.giShapes, e.grad_input_shapes, 'grad_input shapes');
      approx(seen.gi, e.grad_input, 'grad_input');
      assert.deepEqual(seen.goShapes, e.grad_output_shapes, 'grad_output shapes');
      approx(seen.go, e.grad_output, 'grad_output');
      approx(V(x.grad), e.x_grad, 'x.grad');
      approx(V(lin.getParameter('weight').grad), e.weight_grad, 'weight.grad');
      if (bias) approx(V(lin.getParameter('bias').grad), e.bias_grad, 'bias.grad');
    });
  }
});

test('module_seed002_linear: legacy hook zeroing grads plus a 0.1*grad tensor hook', () => {
  const s = S('module_seed002_linear');
  const log = [];
  const lin = new hg.nn.Linear(3, 1, { bias: false });
  setParam(lin.getParameter('weight'), [[0.5, -0.25, 1.0]]);
  lin.registerBackwardHook((mod, gi, go) => {
    log.push(['legacy', Vs(gi), gi.map((g) => shapeOf(g)), Vs(go)]);
    return [gi[0].mul(0), gi[1].mul(0)];
  });
  const x = leaf([[1, 2, 3]]);
  const w = captureWarnings(() => lin.call(x));
  const out = w.result;
  assertWarnings(w, s.forward_warnings);
  out.registerHook((g) => { log.push(['out_hook', V(g)]); return g.mul(0.1); });
  out.backward();
  approx(V(out), s.out);
  assertTree(out.gradFn, s.node);
  assert.deepEqual(log.map((e) => e[0]), s.log.map((e) => e[0]));
  approx(log[0][1], s.log[0][1], 'out hook value');
  approx(log[1][1], s.log[1][1], 'legacy grad_input');
  assert.deepEqual(log[1][2], s.log[1][2], 'legacy grad_input shapes');
  approx(log[1][3], s.log[1][3], 'legacy grad_output');
  approx(V(x.grad), s.x_grad);
  approx(V(lin.getParameter('weight').grad), s.weight_grad);
});

test('module_adjoint_model: full backward hooks give the adjoint variables (seed 003)', () => {
  const s = S('module_adjoint_model');
  const A = [[1.0, -2.0, -1.0], [-2.0, 1.0, -2.0], [-1.0, -2.0, 1.0]];
  const u0 = [0.5, -1.0, 2.0];
  const y = [1.0, 0.0, -1.0];
  const layers = [0, 1, 2].map(() => {
    const l = new hg.Module('Layer', (u) => u.add(l.getParameter('A').matmul(u)));
    l.registerParameter('A', hg.tensor(A.map((r) => r.map((v) => v / 4)), { requiresGrad: true }));
    return l;
  });
  const list = new hg.Module('ModuleList', () => { throw new Error('ModuleList has no forward'); });
  layers.forEach((l, i) => list.addModule(String(i), l));
  const model = new hg.Module('Model', (u) => layers.reduce((v, l) => l.call(v), u));
  model.addModule('layers', list);
  const log = [];
  layers.forEach((l, i) => l.registerFullBackwardHook((mod, gi, go) => {
    log.push({ layer: i, grad_output: Vs(go), grad_input: Vs(gi) });
  }));
  const w = captureWarnings(() => {
    const out = model.call(hg.tensor(u0));
    const loss = out.sub(hg.tensor(y)).pow(2).sum().mul(0.5);
    loss.backward();
    return { out, loss };
  });
  assertWarnings(w, s.warnings, 'warning for the first layer (input needs no grad)');
  approx(V(w.result.out), s.out, 'out');
  approx(V(w.result.loss), s.loss, 'loss');
  assert.deepEqual(log.map((e) => e.layer), s.log.map((e) => e.layer), 'hook order: last layer first');
  approx(log.map((e) => e.grad_output), s.log.map((e) => e.grad_output), 'grad_output per layer');
  approx(log.map((e) => e.grad_input), s.log.map((e) => e.grad_input), 'grad_input per layer (first: [null])');
  approx(layers.map((l) => V(l.getParameter('A').grad)), s.A_grads, 'A grads');
  // grad_output of each layer is the adjoint variable (hand formula in the fixture)
  approx(s.log.map((e) => e.grad_output[0]), s.adjoint_by_hand.slice(0, 3), 'fixture self-check');
  assert.deepEqual(model.namedParameters().map(([n]) => n), s.named_parameters);
  assert.deepEqual(model.namedModules().map(([n]) => n), s.named_modules);
});

test('module_full_backward_no_input_grad: hooks fire with (null, null) and PyTorch\'s warning', () => {
  const s = S('module_full_backward_no_input_grad');
  const log = [];
  const m = mul2w();
  m.registerFullBackwardPreHook((mod, go) => { log.push(['pre', Vs(go)]); });
  m.registerFullBackwardHook((mod, gi, go) => { log.push(['full', Vs(gi), Vs(go)]); });
  const w = captureWarnings(() => {
    const out = m.call(hg.tensor(2), hg.tensor(3));
    out.backward();
    return out;
  });
  assertWarnings(w, s.warnings);
  assert.deepEqual(log.map((e) => e[0]), s.log.map((e) => e[0]));
  approx(log.map((e) => e.slice(1)), s.log.map((e) => e.slice(1)));
  approx(V(m.getParameter('w').grad), s.w_grad);
  approx(V(w.result), s.out);
});

test('module_full_backward_output_no_grad: the hook never fires', () => {
  const s = S('module_full_backward_output_no_grad');
  const log = [];
  const m = mul2();
  m.registerFullBackwardHook(() => { log.push('full'); });
  const wv = leaf(5);
  const w = captureWarnings(() => {
    const out = m.call(hg.tensor(2), hg.tensor(3));
    out.mul(wv).backward();
    return out;
  });
  assertWarnings(w, s.warnings);
  assert.deepEqual(log, s.log);
  assert.equal(w.result.requiresGrad, s.out_requires_grad);
  approx(V(wv.grad), s.w_grad);
});

test('module_backward_hook_order: full-backward-pre, tensor hooks, full-backward', () => {
  const s = S('module_backward_hook_order');
  const log = [];
  const m = new hg.Module('Mul3H', (a, b, c) => {
    const t = a.mul(b);
    t.registerHook((g) => { log.push(['inner_t', V(g)]); });
    return t.mul(c);
  });
  m.registerForwardPreHook(() => { log.push(['fwd_pre']); });
  m.registerForwardHook(() => { log.push(['fwd']); });
  m.registerFullBackwardPreHook((mod, go) => { log.push(['bw_pre', Vs(go)]); });
  m.registerFullBackwardHook((mod, gi, go) => { log.push(['bw', Vs(gi), Vs(go)]); });
  const a = leaf(2); const b = leaf(3); const c = leaf(4);
  for (const [nm, t] of [['a', a], ['b', b], ['c', c]]) t.registerHook((g) => { log.push([`in_${nm}`, V(g)]); });
  const out = m.call(a, b, c);
  out.registerHook((g) => { log.push(['out', V(g)]); });
  const loss = out.mul(1);
  log.push(['--backward--']);
  loss.backward();
  assert.deepEqual(log.map((e) => e[0]), s.log.map((e) => e[0]), 'order');
  approx(log.map((e) => e.slice(1)), s.log.map((e) => e.slice(1)), 'values');
  approx([a, b, c].map((t) => V(t.grad)), s.grads);
});

test('module_legacy_after_forward_hook: the legacy hook sees the forward hook\'s output node', () => {
  const s = S('module_legacy_after_forward_hook');
  const seen = {};
  const m = mul2();
  m.registerForwardHook((mod, args, out) => out.mul(10));
  m.registerBackwardHook((mod, gi, go) => { seen.gi = Vs(gi); seen.go = Vs(go); });
  const a = leaf(2); const b = leaf(3);
  const w = captureWarnings(() => m.call(a, b));
  assertWarnings(w, s.forward_warnings);
  assertTree(w.result.gradFn, s.node);
  w.result.backward();
  approx(seen.gi, s.grad_input, 'grad_input');
  approx(seen.go, s.grad_output, 'grad_output');
  approx(V(a.grad), s.a_grad);
  approx(V(b.grad), s.b_grad);
});

test('module_identity_hooks: a module returning its input', () => {
  const s = S('module_identity_hooks');
  for (const kind of ['full', 'legacy']) {
    const e = s[kind];
    const m = new hg.Module('Ident', (x) => x);
    const log = [];
    const hook = (mod, gi, go) => { log.push([Vs(gi), Vs(go)]); };
    if (kind === 'full') m.registerFullBackwardHook(hook);
    else m.registerBackwardHook(hook);
    const x = leaf(2);
    const w = captureWarnings(() => m.call(x));
    const y = w.result;
    assertWarnings(w, e.forward_warnings, `${kind}: forward warnings`);
    assert.equal(y.id === x.id, e.output_is_input, `${kind}: output is the input tensor`);
    assert.equal(none(y.gradFn) === null ? null : y.gradFn.name, e.output_grad_fn, `${kind}: output grad_fn`);
    y.mul(3).backward();
    approx(log, e.log, `${kind}: hook calls`);
    approx(V(x.grad), e.x_grad, `${kind}: x.grad`);
  }
});
