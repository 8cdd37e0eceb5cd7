// Every op of the contract: values, backward-node names / next_functions
// edges, and gradients, against PyTorch (scenarios "ops", "inplace_nodes").
//
// Each fixture case carries its JS expression (field "js", written next to
// the Python expression in gen_fixtures.py), evaluated here over tensors made
// from the fixture's input data.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hg, S, V, approx, assertTree, none, shapeOf } from './helpers.mjs';

function evalJs(js, names, values) {
  // eslint-disable-next-line no-new-func
  return new Function(...names, `return ${js};`)(...values);
}

const ops = S('ops').cases;

for (const [name, c] of Object.entries(ops)) {
  test(`ops/${name}: ${c.js}`, () => {
    const names = Object.keys(c.inputs);
    const tensors = names.map((n) => hg.tensor(c.inputs[n].data, { requiresGrad: c.inputs[n].requires_grad }));
    const out = evalJs(c.js, names, tensors);
    assert.deepEqual(shapeOf(out), c.shape, 'shape');
    approx(V(out), c.out, 'output');
    assert.equal(out.requiresGrad, true, 'requiresGrad');
    assert.equal(out.isLeaf, false, 'isLeaf');
    assertTree(out.gradFn, c.grad_fn, 'grad_fn tree (names, next_functions, input_nr)');
    if (c.gradient === null) out.backward();
    else out.backward(hg.tensor(c.gradient));
    names.forEach((n, i) => approx(V(tensors[i].grad), c.grads[n], `${n}.grad`));
  });
}

const inplace = S('inplace_nodes').cases;

for (const [name, c] of Object.entries(inplace)) {
  test(`inplace_nodes/${name}: ${c.js}`, () => {
    const a = hg.tensor([1, 2, 3], { requiresGrad: true });
    const k = hg.tensor([0.5, -1, 2], { requiresGrad: true });
    const t = a.mul(2);
    const r = evalJs(c.js, ['c', 'k'], [t, k]);
    assert.equal(r.id === t.id, c.returns_self, 'in-place op returns the same tensor');
    approx(V(t), c.c, 'value after in-place');
    assert.equal(t.isLeaf, c.is_leaf);
    assertTree(t.gradFn, c.grad_fn, 'grad_fn tree after in-place');
    t.backward(hg.tensor(c.gradient));
    approx(V(a.grad), c.a_grad, 'a.grad');
    approx(V(k.grad), c.k_grad, 'k.grad');
  });
}

test('ops: number operand on either side gives the same node (2*a == a*2, 1+a == a+1)', () => {
  assert.deepEqual(ops.rmul_number.grad_fn, ops.mul_number.grad_fn);
  assert.deepEqual(ops.radd_number.grad_fn, ops.add_number.grad_fn);
  const a = hg.tensor([1, 2], { requiresGrad: true });
  const m = a.mul(2);
  assert.equal(m.gradFn.nextFunctions.length, 2, 'MulBackward0 with a number keeps two edges');
  assert.equal(none(m.gradFn.nextFunctions[1][0]), null, 'the number edge is null');
});

test('ops: op on tensors not requiring grad records nothing', () => {
  const x = hg.tensor([1, 2]);
  const y = x.mul(2).add(1);
  assert.equal(y.requiresGrad, false);
  assert.equal(none(y.gradFn), null);
  assert.equal(y.isLeaf, true);
  approx(V(y), [3, 5]);
});

test('tensor construction: zeros, ones, typed array with shape, randn determinism', () => {
  approx(V(hg.zeros([2, 3])), [[0, 0, 0], [0, 0, 0]]);
  approx(V(hg.ones([2])), [1, 1]);
  const z = hg.zeros([2], { requiresGrad: true });
  assert.equal(z.requiresGrad, true);
  const t = hg.tensor(new Float32Array([1, 2, 3, 4, 5, 6]), { shape: [2, 3] });
  assert.deepEqual(shapeOf(t), [2, 3]);
  approx(V(t), [[1, 2, 3], [4, 5, 6]]);
  approx(V(hg.tensor(2.5)), 2.5);
  assert.deepEqual(shapeOf(hg.tensor(2.5)), []);
  const r1 = hg.randn([3, 2], { seed: 7 });
  const r2 = hg.randn([3, 2], { seed: 7 });
  assert.deepEqual(shapeOf(r1), [3, 2]);
  assert.deepEqual(V(r1), V(r2), 'same seed, same numbers');
  assert.notDeepEqual(V(r1), V(hg.randn([3, 2], { seed: 8 })), 'different seed, different numbers');
});

test('tensor ids and names', () => {
  const a = hg.tensor(1, { name: 'a' });
  assert.equal(a.name, 'a');
  a.name = 'alpha';
  assert.equal(a.name, 'alpha');
  assert.equal(typeof a.id, 'number');
  const b = hg.tensor(1);
  assert.notEqual(a.id, b.id);
  assert.equal(a.id, a.id);
});

// PyTorch's engine runs ready nodes by priority (AccumulateGrad first, then
// the most recently created node); the order decides hook firing order.
const orderCases = S('node_execution_order').cases;
for (const [name, c] of Object.entries(orderCases)) {
  test(`node_execution_order/${name}: ${c.js}`, () => {
    const names = Object.keys(c.leaves);
    const ts = names.map((n) => hg.tensor(c.leaves[n], { requiresGrad: true }));
    const byId = new Map(ts.map((t, i) => [t.id, names[i]]));
    const out = evalJs(c.js, names, ts);
    const order = [];
    const seen = new Set();
    const stack = [out.gradFn];
    while (stack.length) {
      const node = stack.pop();
      if (node === null || node === undefined || seen.has(node.id)) continue;
      seen.add(node.id);
      let label = node.name;
      if (label === 'AccumulateGrad') label += `:${byId.get(node.variable.id)}`;
      node.registerPrehook(() => { order.push(label); });
      for (const [f] of node.nextFunctions) stack.push(f);
    }
    if (shapeOf(out).length === 0) out.backward();
    else out.backward(hg.ones(shapeOf(out)));
    assert.deepEqual(order, c.order, 'node execution order');
    names.forEach((n, i) => approx(V(ts[i].grad), c.grads[n], `${n}.grad`));
  });
}

test('nonleaf_hook_summed_grad', () => {
  const s = S('nonleaf_hook_summed_grad');
  const log = [];
  const a = hg.tensor(2, { requiresGrad: true });
  const c = a.mul(3);
  c.registerHook((g) => { log.push(V(g)); });
  c.mul(c).add(c).backward();
  approx(log, s.hook_log, 'one hook call with the summed gradient');
  approx(V(a.grad), s.a_grad);
});
