// Second-release ops and modules against PyTorch (scenarios "ops2",
// "ops2_errors", "mse_broadcast_warning", "sequential" of pytorch.json):
// values, node names / next_functions, gradients, errors, warnings, and the
// hooks of nn.Sequential's children in call order with their arguments.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hg, S, V, Vs, approx, assertTree, assertThrowsExact, captureWarnings, assertWarnings, shapeOf } from './helpers.mjs';
import { setParam } from './fixture_modules.mjs';

function evalJs(js, names, values) {
  // eslint-disable-next-line no-new-func
  return new Function('hg', ...names, `return ${js};`)(hg, ...values);
}

for (const [name, c] of Object.entries(S('ops2').cases)) {
  test(`ops2/${name}: ${c.js}`, () => {
    const names = Object.keys(c.inputs);
    const tensors = names.map((n) => hg.tensor(c.inputs[n].data, { requiresGrad: c.inputs[n].requires_grad }));
    const out = evalJs(c.js, names, tensors);
    assert.deepEqual(shapeOf(out), c.shape, 'shape');
    approx(V(out), c.out, 'output');
    assertTree(out.gradFn, c.grad_fn, 'grad_fn tree (names, next_functions, input_nr)');
    if (c.gradient === null) out.backward();
    else out.backward(hg.tensor(c.gradient));
    names.forEach((n, i) => approx(V(tensors[i].grad), c.grads[n], `${n}.grad`));
  });
}

for (const [name, c] of Object.entries(S('ops2_errors').cases)) {
  test(`ops2_errors/${name}: ${c.js}`, () => {
    const a = hg.ones([2, 3]);
    const b = hg.ones([2, 2]);
    assertThrowsExact(() => evalJs(c.js, ['a', 'b'], [a, b]), c.error);
  });
}

test('mseLoss with a target of another shape warns like PyTorch, then broadcasts', () => {
  const s = S('mse_broadcast_warning');
  const p = hg.tensor([[0.5, 1.0, 1.5], [2.0, 2.5, 3.0]], { requiresGrad: true });
  const y = hg.tensor([2.0, -1.0, 0.5]);
  const cap = captureWarnings(() => {
    const out = hg.nn.functional.mseLoss(p, y);
    out.backward();
    return out;
  });
  assertWarnings(cap, s.warnings);
  approx(V(cap.result), s.out);
  assertTree(cap.result.gradFn, s.grad_fn);
  approx(V(p.grad), s.p_grad, 'p.grad');
});

for (const act of ['ReLU', 'Tanh', 'Sigmoid']) {
  test(`nn.Sequential(Linear, ${act}, Linear): names, output, grads, and every child's hooks as in PyTorch`, () => {
    const s = S('sequential');
    const e = s.acts[act];
    const l1 = new hg.nn.Linear(2, 3);
    const l2 = new hg.nn.Linear(3, 1);
    setParam(l1.getParameter('weight'), s.weights.w1);
    setParam(l1.getParameter('bias'), s.weights.b1);
    setParam(l2.getParameter('weight'), s.weights.w2);
    setParam(l2.getParameter('bias'), s.weights.b2);
    const m = new hg.nn.Sequential(l1, new hg.nn[act](), l2);
    assert.deepEqual(m.namedModules().map(([n, mod]) => [n, mod.name]), e.named_modules);
    assert.deepEqual(m.namedParameters().map(([n]) => n), e.named_parameters);
    const calls = [];
    const names = new Map(m.namedModules().map(([n, mod]) => [mod.id, n]));
    for (const [, mod] of m.namedModules()) {
      mod.registerForwardHook((mm, args, output) => {
        calls.push({ hook: 'forward', module: names.get(mm.id), args: Vs(args), output: V(output) });
      });
      mod.registerFullBackwardHook((mm, gi, go) => {
        calls.push({ hook: 'full_backward', module: names.get(mm.id), grad_input: Vs(gi), grad_output: Vs(go) });
      });
    }
    const x = hg.tensor(s.x, { requiresGrad: true });
    const y = m.call(x);
    const loss = y.mean();
    loss.backward();
    approx(V(y), e.out, 'output');
    approx(V(loss), e.loss, 'loss');
    assertTree(loss.gradFn, e.grad_fn, 'graph');
    for (const [n, p] of m.namedParameters()) approx(V(p.grad), e.grads[n], `${n}.grad`);
    approx(V(x.grad), e.x_grad, 'x.grad');
    assert.deepEqual(calls.map((c) => `${c.hook}:${c.module}`), e.calls.map((c) => `${c.hook}:${c.module}`), 'hook order');
    calls.forEach((c, i) => {
      const want = e.calls[i];
      for (const k of ['args', 'output', 'grad_input', 'grad_output']) {
        if (k in want) approx(c[k], want[k], `call ${i} (${c.hook} ${c.module}) ${k}`);
      }
    });
    m.zeroGrad();
    assert.ok(m.parameters().every((p) => p.grad === null || p.grad === undefined), 'zeroGrad clears every .grad');
  });
}

test('nn.Sequential rejects a non-module child', () => {
  assert.throws(() => new hg.nn.Sequential(new hg.nn.ReLU(), 3), /argument 1 is not a Module/);
});

// PyTorch 2.x: torch.tensor([]).mean() is nan (0 / 0) and its backward an
// empty gradient; the sum of nothing is 0; a mean over an empty dim is nan.
test('mean of no elements is NaN, as in PyTorch; sum of none is 0', () => {
  const a = hg.tensor([], { requiresGrad: true });
  const m = a.mean();
  assert.ok(Number.isNaN(m.item()));
  assert.equal(m.gradFn.name, 'MeanBackward0');
  m.backward();
  assert.deepEqual(a.grad.toArray(), []);
  assert.equal(hg.zeros([0, 3]).sum().item(), 0);
  const byDim = hg.zeros([0, 3]).mean(0).toArray();
  assert.equal(byDim.length, 3);
  assert.ok(byDim.every(Number.isNaN));
});

// PyTorch 2.x: mse_loss and cross_entropy ('mean') over no elements are nan,
// their gradients empty.
test('mean-reduced losses over no elements are NaN, as in PyTorch', () => {
  const x = hg.zeros([0], { requiresGrad: true });
  const l = hg.nn.functional.mseLoss(x, hg.zeros([0]));
  assert.ok(Number.isNaN(l.item()));
  l.backward();
  assert.deepEqual(x.grad.toArray(), []);
  const z = hg.zeros([0, 3], { requiresGrad: true });
  const c = hg.nn.functional.crossEntropy(z, []);
  assert.ok(Number.isNaN(c.item()));
  c.backward();
  assert.deepEqual(z.grad.shape, [0, 3]);
});
