// Second-order graphs against PyTorch (scenario "double_backward_graphs"):
// for each op, g = hg.grad(op(x).sum(), x, {createGraph}) has PyTorch's node
// tree — the fused backward nodes (TanhBackwardBackward0,
// ThresholdBackwardBackward0, SoftmaxBackwardDataBackward0,
// MseLossBackwardBackward0, NllLossBackwardBackward0, …) where
// derivatives.yaml names a backward function, plain ops (MulBackward1 for a
// scalar factor inside a formula) elsewhere — and g, gg = grad(g.sum(), x)
// have PyTorch's values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hg, S, V, approx, assertTree } from './helpers.mjs';

const T = [[1.0, 0.5, -0.5], [0.0, 2.0, 1.0]];
const ONES32 = [[1, 1], [1, 1], [1, 1]];
const F = () => hg.nn.functional;

// Same keys as tests/fixtures/pyfixtures/double_backward.py.
const OPS = {
  exp: (x) => x.exp(),
  log: (x) => x.log(),
  sin: (x) => x.sin(),
  cos: (x) => x.cos(),
  tanh: (x) => x.tanh(),
  sigmoid: (x) => x.sigmoid(),
  relu: (x) => x.relu(),
  abs: (x) => x.abs(),
  sqrt: (x) => x.sqrt(),
  pow3: (x) => x.pow(3),
  'pow-0.5': (x) => x.pow(-0.5),
  mul_self: (x) => x.mul(x),
  div_scalar: (x) => x.mul(x).div(2),
  softmax1: (x) => x.softmax(1).mul(hg.tensor(T)),
  softmax0: (x) => x.softmax(0).mul(hg.tensor(T)),
  log_softmax1: (x) => x.logSoftmax(1).mul(hg.tensor(T)),
  mse_mean: (x) => F().mseLoss(x, hg.tensor(T)),
  mse_sum: (x) => F().mseLoss(x, hg.tensor(T), { reduction: 'sum' }),
  mse_none: (x) => F().mseLoss(x, hg.tensor(T), { reduction: 'none' }),
  mse_target: (x) => F().mseLoss(hg.tensor(T), x),
  cross_entropy: (x) => F().crossEntropy(x, [0, 2]),
  relu_mul: (x) => x.relu().mul(x),
  tanh_mul: (x) => x.tanh().mul(x),
  sigmoid_mul: (x) => x.sigmoid().mul(x),
  abs_mul: (x) => x.abs().mul(x),
  matmul: (x) => x.mul(x).matmul(hg.tensor(ONES32)),
  mean: (x) => x.mul(x).mean(),
  t_reshape: (x) => x.mul(x).t().reshape([6]),
  expand: (x) => x.mul(x).unsqueeze(0).expand([2, 2, 3]),
};

const scen = S('double_backward_graphs');
const fx = scen.ops;

test('every op of the fixture has a hookgrad spelling, and back', () => {
  assert.deepEqual(Object.keys(OPS).sort(), Object.keys(fx).sort());
});

for (const [key, e] of Object.entries(fx)) {
  test(`double backward of ${key}: node tree, g and gg as PyTorch's`, () => {
    const x = hg.tensor(scen.inputs[e.x], { requiresGrad: true });
    const [g] = hg.grad(OPS[key](x).sum(), x, { createGraph: true });
    approx(V(g), e.g, 'g');
    assert.equal(g.requiresGrad, e.g_requires_grad, 'g.requiresGrad');
    assertTree(g.gradFn, JSON.parse(e.tree), 'g.gradFn tree');
    if (e.gg !== undefined) {
      const [gg] = hg.grad(g.sum(), x, { allowUnused: true });
      // PyTorch's sgn derivative is a zero tensor; hookgrad's may be unused (null).
      approx(gg === null ? e.gg.map((r) => r.map(() => 0)) : V(gg), e.gg, 'gg');
    }
  });
}
