// Second-order graphs against PyTorch (tests/fixtures/double_backward.json,
// written by tests/fixtures/pyfixtures/double_backward.py):
// for each op, g = hg.grad(op(x).sum(), x, {createGraph}) has PyTorch's node
// tree — the fused backward nodes (TanhBackwardBackward0,
// ThresholdBackwardBackward0, SoftmaxBackwardDataBackward0,
// MseLossBackwardBackward0, NllLossBackwardBackward0, …) where
// derivatives.yaml names a backward function, plain ops (MulBackward1 for a
// scalar factor inside a formula) elsewhere — and g, gg = grad(g.sum(), x)
// have PyTorch's values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { hg, root, V, approx, assertTree } from './helpers.mjs';

const T = [[1.0, 0.5, -0.5], [0.0, 2.0, 1.0]];
const X = [[0.5, -1.2, 2.0], [1.5, 0.3, -0.7]];
const W = [[0.2, -0.4, 0.6], [0.1, 0.3, -0.5]];
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
  div_tensor: (x) => x.div(x.mul(x).add(1)),
  mm_self: (x) => x.matmul(x.t()),
  mm_const: (x) => x.matmul(hg.tensor(W).t()),
  cat: (x) => hg.cat([x.mul(x), x]),
  stack: (x) => hg.stack([x.mul(x), x], 1),
  sum_dim: (x) => x.mul(x).sum(1),
  squeeze: (x) => x.mul(x).unsqueeze(1).squeeze(1),
  transpose_exp: (x) => x.t().exp(),
  softmax_t: (x) => x.t().softmax(0).mul(hg.tensor(X).t()),
  clone_pow: (x) => x.clone().pow(3),
  mean_sq: (x) => x.mean().pow(2),
  mean_dim_sq: (x) => x.mean(1).pow(2),
  squeeze_sq: (x) => x.unsqueeze(1).squeeze().pow(2),
  expand_sq: (x) => x.unsqueeze(0).expand([2, 2, 3]).pow(2),
  stack_sq: (x) => hg.stack([x, x.exp()]).pow(2),
  cat_sq: (x) => hg.cat([x, x.exp()], 1).pow(2),
  bcast_row_sq: (x) => x.mul(x.sum(0)).pow(2),
  bcast_col_sq: (x) => x.add(x.sum(1, true)).pow(2),
  t_reshape_sq: (x) => x.t().reshape([6]).pow(2),
  mse_sq: (x) => F().mseLoss(x, hg.tensor(T)).pow(2),
  cross_entropy_sq: (x) => F().crossEntropy(x, [0, 2]).pow(2),
  mul_inplace: (x) => { const y = x.mul(2); y.mul_(x); return y; },
  div_inplace: (x) => { const y = x.mul(2); y.div_(x.mul(x).add(1)); return y; },
};

const scen = JSON.parse(fs.readFileSync(path.join(root, 'tests/fixtures/double_backward.json'), 'utf8'));
const fx = scen.ops;

test('every op of the fixture has a hookgrad spelling, and back', () => {
  assert.match(scen.meta.torch, /^2\./);
  assert.deepEqual(Object.keys(OPS).sort(), Object.keys(fx).sort());
});

for (const [key, e] of Object.entries(fx)) {
  test(`double backward of ${key}: node tree, g and gg as PyTorch's`, () => {
    const x = hg.tensor(scen.inputs[e.x], { requiresGrad: true });
    const [g] = hg.grad(OPS[key](x).sum(), x, { createGraph: true });
    approx(V(g), e.g, 'g');
    assert.equal(g.requiresGrad, e.g_requires_grad, 'g.requiresGrad');
    assertTree(g.gradFn, e.tree, 'g.gradFn tree');
    if (e.gg !== undefined) {
      const [gg] = hg.grad(g.sum(), x, { allowUnused: true });
      // PyTorch's sgn derivative is a zero tensor; hookgrad's may be unused (null).
      approx(gg === null ? e.gg.map((r) => r.map(() => 0)) : V(gg), e.gg, 'gg');
    }
  });
}
