// PyTorch-generated random programs (tests/fixtures/random_programs.json,
// written by tests/fixtures/pyfixtures/random_programs.py with a fixed
// seed) replayed through hookgrad: every tensor's backward node name, shape,
// strides and contiguity after the forward (in-place ops through views
// included), the output's value and the leaves' gradients after
// out.sum().backward() must be PyTorch's; then, on a fresh replay, the
// second order: g = hg.grad(out.sum(), leaves, {createGraph}) (each g's node
// name and value) and gg = hg.grad(sum of the g that require grad, leaves).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { hg, root, V, approx, normName } from './helpers.mjs';

const fx = JSON.parse(fs.readFileSync(path.join(root, 'tests/fixtures/random_programs.json'), 'utf8'));

/** One instruction of random_programs.py in hookgrad's spelling. */
function runOp(op, args, p) {
  const [a, b] = args;
  switch (op) {
    case 'mulScalar': return a.mul(p.c);
    case 'addScalar': return a.add(p.c);
    case 'pow': return a.pow(p.e);
    case 'transpose': return a.transpose(p.d0, p.d1);
    case 'reshape': case 'expand': return a[op](p.shape);
    case 'unsqueeze': case 'softmax': case 'logSoftmax': return a[op](p.dim);
    case 'squeeze': return p.dim === undefined ? a.squeeze() : a.squeeze(p.dim);
    case 'sum': case 'mean': return p.dim === undefined ? a[op]() : a[op](p.dim, p.keepdim);
    case 'cat': case 'stack': return hg[op](args, p.dim);
    case 'mseLoss': return hg.nn.functional.mseLoss(a, b, { reduction: p.reduction });
    case 'add': case 'sub': case 'mul': case 'div': case 'matmul': return a[op](b);
    default: return a[op]();
  }
}

const zerosLike = (v) => (Array.isArray(v) ? v.map(zerosLike) : 0);

/** The program as JS source, printed when it fails (paste into the playground). */
function source(prog) {
  const L = prog.leaves.map((l, i) => `const t${i} = hg.tensor(${JSON.stringify(l.data)}, { requiresGrad: ${l.requires_grad} });`);
  for (const ins of prog.ins) {
    if (ins[0] === 'inplace') L.push(`t${ins[1]}.${ins[2]}(${ins[3]});`);
    else L.push(`const t${ins[0]} = ${ins[1]}(${ins[2].map((i) => `t${i}`).join(', ')}, ${JSON.stringify(ins[3])});`);
  }
  L.push(`t${prog.out}.sum().backward();`);
  return L.join('\n');
}

test('40 PyTorch-generated programs are present', () => {
  assert.equal(fx.programs.length, 40);
  assert.match(fx.meta.torch, /^2\./);
});

/** The program's tensors, built from its data. */
function replay(prog) {
  const ts = prog.leaves.map((l) => hg.tensor(l.data, { requiresGrad: l.requires_grad }));
  for (const ins of prog.ins) {
    if (ins[0] === 'inplace') ts[ins[1]][ins[2]](ins[3]);
    else ts[ins[0]] = runOp(ins[1], ins[2].map((i) => ts[i]), ins[3]);
  }
  return ts;
}

fx.programs.forEach((prog, k) => {
  test(`PyTorch random program ${k}: second order (createGraph) names and values`, () => {
    const ts = replay(prog);
    const msg = (what) => `${what}\n--- program ${k} ---\n${source(prog)}`;
    const leaves = ts.slice(0, prog.leaves.length).filter((t) => t.requiresGrad);
    const gs = hg.grad(ts[prog.out].sum(), leaves, { createGraph: true, allowUnused: true });
    assert.equal(gs.length, prog.second.g.length);
    prog.second.g.forEach((e, i) => {
      if (e === null) { assert.equal(gs[i], null, msg(`g${i}`)); return; }
      assert.equal(gs[i].gradFn ? gs[i].gradFn.name : null, normName(e[0]), msg(`g${i} gradFn`));
      approx(V(gs[i]), e[1], msg(`g${i}`));
    });
    const live = gs.filter((g) => g !== null && g.requiresGrad);
    assert.equal(live.length > 0, prog.second.gg !== undefined, msg('some g requires grad'));
    if (!live.length) return;
    const total = live.map((g) => g.sum()).reduce((a, b) => a.add(b));
    const ggs = hg.grad(total, leaves, { allowUnused: true });
    prog.second.gg.forEach((e, i) => {
      // PyTorch's zero-tensor derivatives (sgn, threshold) are unused here.
      const got = ggs[i] === null ? null : V(ggs[i]);
      if (e === null) assert.equal(got, null, msg(`gg${i}`));
      else approx(got ?? zerosLike(e), e, msg(`gg${i}`));
    });
  });

  test(`PyTorch random program ${k}: node names, strides, value and grads`, () => {
    const ts = replay(prog);
    const msg = (what) => `${what}\n--- program ${k} ---\n${source(prog)}`;
    prog.tensors.forEach(([name, shape, stride, contiguous], i) => {
      const t = ts[i];
      assert.equal(t.gradFn ? t.gradFn.name : null, normName(name), msg(`t${i} gradFn`));
      assert.deepEqual(t.shape, shape, msg(`t${i} shape`));
      assert.deepEqual(t.stride(), stride, msg(`t${i} stride`));
      assert.equal(t.isContiguous(), contiguous, msg(`t${i} isContiguous`));
    });
    const out = ts[prog.out];
    const s = out.sum();
    approx(V(s), prog.out_value, msg('out.sum()'));
    s.backward();
    prog.grads.forEach((g, i) => {
      if (g === null) assert.equal(ts[i].grad, null, msg(`t${i}.grad`));
      else approx(V(ts[i].grad), g, msg(`t${i}.grad`));
    });
  });
});
