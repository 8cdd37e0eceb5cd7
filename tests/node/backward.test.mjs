// backward(), hg.grad, noGrad, tensor properties, repr, detach and storage
// sharing, against PyTorch (tests/fixtures/pytorch.json).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hg, S, V, approx, leaf, assertTree, quiet, none, normName } from './helpers.mjs';

test('backward_accumulates', () => {
  const s = S('backward_accumulates');
  const x = leaf(2);
  x.mul(x).backward();
  approx(V(x.grad), s.after_first, 'after first');
  x.mul(x).backward();
  approx(V(x.grad), s.after_second, 'after second (accumulated)');
  x.grad = null;
  assert.equal(none(x.grad), null);
  const y = x.mul(x).mul(x);
  y.backward(hg.tensor(3), { retainGraph: true });
  approx(V(x.grad), s.after_clear_and_y_with_3, 'gradient 3');
  y.backward();
  approx(V(x.grad), s.after_y_again, 'second backward with retained graph');
});

test('grad_buffer_versions: a later gradient is added in place where nothing else holds the buffer\'s', () => {
  // PyTorch's InputBuffer::accumulate adds in place (a version bump) when
  // the buffer alone holds the earlier gradient, and AccumulateGrad steals
  // the sum; a shared one (AddBackward0 hands one tensor to both inputs, the
  // root gradient) makes a new tensor. The hooks put hookgrad on its tensor path.
  const s = S('grad_buffer_versions').cases;
  const hk = (t) => { t.registerHook(() => {}); return t; };
  const got = {};
  let x = leaf(1.5);
  const y = hk(x.mul(x)).mul(2);
  y.backward(undefined, { retainGraph: true });
  const v1 = x.grad.version;
  y.backward();
  got['x*x, twice'] = [v1, x.grad.version];
  x = leaf([1, 2]);
  hk(x.mul(2)).add(x.mul(3)).add(x.mul(4)).sum().backward();
  got['x*2 + x*3 + x*4'] = [x.grad.version];
  x = leaf(1.5);
  hk(x.add(x)).backward();
  got['x + x'] = [x.grad.version];
  x = leaf(1.5);
  hk(x.mul(2).add(x)).backward();
  got['x*2 + x'] = [x.grad.version];
  x = leaf(1.5);
  let sum = x.mul(0);
  for (let i = 0; i < 4; i++) sum = sum.add(x.mul(i));
  hk(sum).backward();
  got['x*0 + x*0 + x*1 + x*2 + x*3'] = [x.grad.version];
  x = leaf(1.5);
  const b = x.mul(3);
  const seen = [];
  b.registerHook((g) => { seen.push(g.version); });
  b.add(b).backward();
  got['b + b, hook on b'] = seen;
  assert.deepEqual(got, Object.fromEntries(Object.entries(s).map(([k, c]) => [k, c.versions])));
});

test('grad_buffer_versions_unhooked: the scalar path counts the same in-place sums, steals and copies', () => {
  // The programs of grad_buffer_versions and more, without hooks: hookgrad
  // computes them on numbers (scalar_backward.rs), which must show the
  // `.grad.version` PyTorch's tensors would.
  const s = S('grad_buffer_versions_unhooked').cases;
  const threeSamples = (w, b) => {
    let total = null;
    for (const x of [1, 2, 3]) {
      const d = b.add(w.mul(x)).tanh().sub(1);
      total = total === null ? d.mul(d) : total.add(d.mul(d));
    }
    return total;
  };
  const sharedThenAdded = (l0, l2) => {
    const v3 = l0.add(l2);
    const v4 = v3.tanh();
    const v5 = l2.sub(0.25);
    const sum = v3.add(v4).add(v5).add(v5.sub(l0)).add(l2.sub(0.25)).add(v3.add(l0)).add(l2.add(v4));
    return sum.mul(2);
  };
  const programs = {
    'x*x': (x) => x.mul(x),
    'x*2 + x*3 + x*4': (x) => x.mul(2).add(x.mul(3)).add(x.mul(4)),
    'x + x': (x) => x.add(x),
    '(x + x)*2': (x) => x.add(x).mul(2),
    'x*2 + x': (x) => x.mul(2).add(x),
    '(x*2 + x)*2': (x) => x.mul(2).add(x).mul(2),
    'a + b': (a, b) => a.add(b),
    '(a+b)*(a+b)': (a, b) => a.add(b).mul(a.add(b)),
    'c*3 + c, c = a+b': (a, b) => a.add(b).mul(3).add(a.add(b)),
    '(a-b)*(a+b)': (a, b) => a.sub(b).mul(a.add(b)),
    '((a+a)*b + (a+a))*2': (a, b) => a.add(a).mul(b).add(a.add(a)).mul(2),
    'a neuron over three samples': threeSamples,
    '(x-1)*(x-1)': (x) => x.sub(1).mul(x.sub(1)),
    '(x+1)*1': (x) => x.add(1).mul(1),
    'outputs held until routed': sharedThenAdded,
  };
  assert.deepEqual(Object.keys(programs), Object.keys(s));
  for (const [name, f] of Object.entries(programs)) {
    const leaves = s[name].inputs.map((v) => leaf(v));
    f(...leaves).backward();
    assert.deepEqual(leaves.map((t) => t.grad.version), s[name].versions, name);
  }
});

test('grad_versions_random_scalar_programs: 100 random 0-d programs give PyTorch\'s .grad.version', () => {
  const s = S('grad_versions_random_scalar_programs');
  for (const { plan, versions } of s.programs) {
    const leaves = s.leaves.map((v) => leaf(v));
    const vals = [...leaves];
    for (const step of plan.split(', ')) {
      const [op, i, j] = step.split(' ').map(Number);
      const a = vals[i % vals.length];
      const b = vals[j % vals.length];
      const make = { 0: () => a.add(b), 1: () => a.add(b), 2: () => a.sub(b), 3: () => a.mul(b), 4: () => a.add(0.5), 5: () => a.sub(0.25), 6: () => a.tanh() };
      vals.push(make[op]());
    }
    let root = vals[3];
    for (const v of vals.slice(4)) root = root.add(v);
    root.mul(2).backward();
    assert.deepEqual(leaves.map((t) => (t.grad === null || t.grad === undefined ? null : t.grad.version)), versions, plan);
  }
});

test('backward gradient given as a number or nested array', () => {
  const s = S('backward_accumulates');
  const x = leaf(2);
  x.mul(x).mul(x).backward(3);
  approx(V(x.grad), s.after_clear_and_y_with_3, 'number gradient');
  const s2 = S('backward_nonscalar_with_gradient');
  const z = leaf([[1, 2], [3, 4]]);
  z.mul(z).backward([[1, 0.5], [0.25, 2]]);
  approx(V(z.grad), s2.x_grad, 'nested-array gradient');
});

test('backward_nonscalar_with_gradient', () => {
  const s = S('backward_nonscalar_with_gradient');
  const x = leaf([[1, 2], [3, 4]]);
  x.mul(x).backward(hg.tensor([[1, 0.5], [0.25, 2]]));
  approx(V(x.grad), s.x_grad);
});

test('backward_one_element: a [1,1] tensor takes the implicit gradient', () => {
  const s = S('backward_one_element');
  const x = leaf([[3]]);
  x.mul(x).backward();
  approx(V(x.grad), s.x_grad);
});

test('backward_inputs', () => {
  const s = S('backward_inputs');
  const a = leaf(2); const b = leaf(3);
  a.mul(b).backward(undefined, { inputs: [a] });
  approx(V(a.grad), s.a_grad);
  approx(V(b.grad), s.b_grad);
});

test('autograd_grad (hg.grad)', () => {
  const s = S('autograd_grad');
  const x = leaf([1, 2, 3]);
  const w = leaf(2);
  const z = leaf(5);
  const y = x.mul(w).sum();
  const [gx, gw] = hg.grad(y, [x, w], { retainGraph: true });
  approx(V(gx), s.gx, 'gx');
  approx(V(gw), s.gw, 'gw');
  assert.equal(gx.requiresGrad, s.gx_requires_grad);
  const [gx2, gz] = hg.grad([y], [x, z], { allowUnused: true, retainGraph: true });
  approx(V(gx2), s.gx2, 'gx2');
  assert.equal(none(gz), s.gz, 'unused input gives null');
  const v = x.mul(w);
  const [gv] = hg.grad(v, x, { gradOutputs: hg.tensor([1, 10, 100]) });
  approx(V(gv), s.gv, 'grad with gradOutputs');
  const [gm, gwm] = hg.grad([x.mul(2), x.mul(x).sum()], [x, w], {
    gradOutputs: [hg.tensor([1, 0.5, 0.25]), hg.tensor(3)], allowUnused: true,
  });
  approx(V(gm), s.multi_outputs_gx, 'two outputs with gradOutputs');
  assert.equal(none(gwm), s.multi_outputs_gw, 'unused w');
  assert.equal(none(x.grad), s.x_grad, 'x.grad untouched');
  assert.equal(none(w.grad), s.w_grad, 'w.grad untouched');
});

test('autograd_grad_runs_hooks: tensor hooks run, post-accumulate hooks do not', () => {
  const s = S('autograd_grad_runs_hooks');
  const log = [];
  const x = leaf(2);
  x.registerHook((g) => { log.push(['x_hook', V(g)]); return g.mul(10); });
  x.registerPostAccumulateGradHook(() => { log.push(['x_post_acc']); });
  const c = x.mul(3);
  c.registerHook((g) => { log.push(['c_hook', V(g)]); return g.add(1); });
  const [g] = hg.grad(c.mul(c), x);
  assert.deepEqual(log.map((e) => e[0]), s.log.map((e) => e[0]));
  approx(log.map((e) => e.slice(1)), s.log.map((e) => e.slice(1)));
  approx(V(g), s.grad);
  assert.equal(none(x.grad), s.x_grad);
});

test('autograd_grad_nonleaf_input: hg.grad w.r.t. a non-leaf', () => {
  const s = S('autograd_grad_nonleaf_input');
  const log = [];
  const x = leaf(2);
  const c = x.mul(3);
  c.registerHook((g) => { log.push(V(g)); return g.mul(10); });
  c.retainGrad();
  const e = c.mul(c);
  const [g] = hg.grad(e, c, { retainGraph: true });
  approx(V(g), s.first.grad, 'grad after c\'s hooks');
  approx(log, s.first.log, 'hook log');
  approx(V(c.grad), s.first.c_grad, 'c.grad (retain_grad)');
  assert.equal(none(x.grad), s.first.x_grad);
  const [g2] = hg.grad(e, x);
  approx(V(g2), s.second.grad, 'grad w.r.t. x');
  approx(log, s.second.log, 'hook log');
  approx(V(c.grad), s.second.c_grad, 'c.grad accumulates');
  assert.equal(none(x.grad), s.second.x_grad);
});

test('no_grad', () => {
  const s = S('no_grad');
  const x = leaf([1, 2]);
  const y = hg.noGrad(() => x.mul(2));
  approx(V(y), s.y);
  assert.equal(y.requiresGrad, s.requires_grad);
  assert.equal(none(y.gradFn), s.grad_fn);
  assert.equal(y.isLeaf, s.is_leaf);
  // recording is back on afterwards (hand: x*2 requires grad)
  assert.equal(x.mul(2).requiresGrad, true);
});

test('tensor_properties', () => {
  const s = S('tensor_properties');
  const a = leaf(2);
  const k = leaf(3, false);
  const c = a.mul(k);
  c.retainGrad();
  const d = c.detach();
  const kk = k.mul(2);
  for (const [nm, t] of Object.entries({ a, k, c, d, kk })) {
    const e = s[nm];
    assert.equal(t.isLeaf, e.is_leaf, `${nm}.isLeaf`);
    assert.equal(t.requiresGrad, e.requires_grad, `${nm}.requiresGrad`);
    assert.equal(t.retainsGrad, e.retains_grad, `${nm}.retainsGrad`);
    assert.equal(none(t.gradFn) === null ? null : t.gradFn.name, e.grad_fn, `${nm}.gradFn`);
  }
  c.retainGrad();
  assert.equal(c.retainsGrad, s.c_retains_grad_after_second_call);
  a.retainGrad();
  assert.equal(a.retainsGrad, s.a_retains_grad_after_retain_grad, 'retainGrad on a leaf is a no-op');
});

test('requiresGrad can be set on a leaf', () => {
  const x = hg.tensor([1]);
  x.requiresGrad = true;
  assert.equal(x.requiresGrad, true);
  x.mul(3).sum().backward();
  approx(V(x.grad), [3]);
});

test('grad is settable', () => {
  const x = leaf([1, 2]);
  x.grad = hg.tensor([5, 6]);
  x.mul(2).sum().backward();
  approx(V(x.grad), [7, 8], 'accumulates into the assigned grad (5+2, 6+2)');
});

test('repr (toString)', () => {
  const s = S('repr');
  const a = leaf(2); const b = leaf(3);
  const c = a.mul(b);
  const v = leaf([1, 2]);
  const m = hg.tensor([[1, 2.5], [3, 4]]);
  assert.equal(a.toString(), s.leaf_0d);
  assert.equal(c.toString(), s.mul_0d);
  assert.equal(v.toString(), s.leaf_1d);
  assert.equal(m.toString(), s.plain_2d);
  assert.equal(v.mul(2).sum().toString(), s.sum);
  assert.equal(hg.tensor(6).toString(), s.const_0d);
  assert.equal(v.mul(2).toString(), s.v_times_2);
  assert.equal(hg.tensor([-0.5, 1.25, 3]).toString(), s.neg_fraction);
});

test('repr_more: float formatting like PyTorch', async (t) => {
  const cases = S('repr_more').cases;
  for (const [name, c] of Object.entries(cases)) {
    await t.test(name, () => {
      // eslint-disable-next-line no-new-func
      const x = new Function('hg', `return ${c.js};`)(hg);
      assert.equal(x.toString(), c.repr, c.js);
    });
  }
});

test('item() on a one-element tensor of any rank', () => {
  // hand: PyTorch returns the single value
  assert.equal(hg.tensor([[3]]).item(), 3);
  assert.equal(hg.tensor([2.5]).item(), 2.5);
});

test('detach', () => {
  const s = S('detach');
  const x = leaf([1, 2]);
  const y = x.mul(2);
  const d = y.detach();
  assert.equal(d.requiresGrad, s.requires_grad);
  assert.equal(d.isLeaf, s.is_leaf);
  assert.equal(none(d.gradFn), s.grad_fn);
  approx(V(d), s.d);
  d.add_(1);
  approx(V(y), s.y_after_d_add_, 'detach shares storage');
});

test('inplace_version_ok', () => {
  const s = S('inplace_version_ok');
  const a = leaf([1, 2]);
  const c = a.add(1);
  c.mul_(2);
  assertTree(c.gradFn, s.grad_fn);
  c.sum().backward();
  approx(V(a.grad), s.a_grad);
  approx(V(c), s.c);
});

test('inplace_leaf_no_grad: in-place update of a leaf under noGrad', () => {
  const s = S('inplace_leaf_no_grad');
  const w = leaf([1, 2]);
  w.mul(w).sum().backward();
  hg.noGrad(() => { w.sub_(w.grad.mul(0.5)); });
  approx(V(w), s.w);
  approx(V(w.grad), s.w_grad);
  assert.equal(w.requiresGrad, s.requires_grad);
  assert.equal(w.isLeaf, s.is_leaf);
  assert.equal(none(w.gradFn), s.grad_fn);
});

test('view_shares_storage', () => {
  const s = S('view_shares_storage');
  const x = hg.tensor([[1, 2], [3, 4]]);
  const v = x.reshape([4]);
  const t = x.t();
  x.add_(10);
  approx(V(v), s.v, 'reshape view');
  approx(V(t), s.t, 't view');
});

test('nothing traps: calls keep working after errors', () => {
  for (let i = 0; i < 3; i++) {
    assert.throws(() => hg.tensor([1, 2]).item());
    assert.throws(() => leaf([1, 2]).mul(2).backward());
    assert.throws(() => {
      const a = leaf(1);
      const c = a.mul(2);
      c.registerHook(() => { throw new Error('boom'); });
      c.backward();
    });
  }
  const a = leaf(2);
  a.mul(a).backward();
  approx(V(a.grad), 4);
  quiet(() => {});
});

test('graph(): plain description of tensors and nodes', () => {
  const a = hg.tensor(2, { requiresGrad: true, name: 'a' });
  const b = hg.tensor(3, { requiresGrad: true, name: 'b' });
  const c = a.mul(b);
  c.name = 'c';
  const g = hg.graph([c]);
  assert.ok(Array.isArray(g.tensors) && Array.isArray(g.nodes));
  const byName = Object.fromEntries(g.tensors.map((t) => [t.name, t]));
  for (const n of ['a', 'b', 'c']) assert.ok(byName[n], `tensor ${n} present`);
  assert.equal(byName.c.gradFn, c.gradFn.id);
  assert.equal(byName.a.isLeaf, true);
  const mul = g.nodes.find((n) => n.id === c.gradFn.id);
  assert.equal(mul.name, 'MulBackward0');
  assert.equal(mul.next.length, 2);
  const acc = g.nodes.find((n) => n.id === mul.next[0].node);
  assert.equal(acc.name, 'AccumulateGrad');
  assert.equal(acc.variable, a.id);
  JSON.stringify(g); // plain data
});

test('contract: absent values are null, not undefined', () => {
  const a = leaf(2);
  assert.strictEqual(a.grad, null, 'grad of a leaf before backward');
  assert.strictEqual(a.gradFn, null, 'gradFn of a leaf');
  const c = a.mul(2);
  assert.strictEqual(c.gradFn.nextFunctions[1][0], null, 'number operand edge');
  const z = leaf(1);
  const [, gz] = hg.grad(c, [a, z], { allowUnused: true });
  assert.strictEqual(gz, null, 'hg.grad unused input');
});

test('inplace_through_views: in-place via a view of a non-leaf, and on the base of a view', async (t) => {
  const cases = S('inplace_through_views').cases;
  const setup = () => {
    const a = leaf([[1, 2], [3, 4]]);
    return { a, c: a.mul(2) };
  };
  await t.test('view_mul_', () => {
    const e = cases.view_mul_;
    const { a, c } = setup();
    const v = c.reshape([4]);
    v.mul_(hg.tensor([1, 2, 3, 4]));
    approx(V(v), e.view, 'view values');
    approx(V(c), e.c, 'base sees the write through the view');
    c.sum().backward();
    approx(V(a.grad), e.a_grad, 'a.grad');
    assert.equal(c.gradFn.name, normName(e.c_grad_fn), 'base grad_fn');
    assert.equal(v.gradFn.name, e.view_grad_fn, 'view grad_fn');
  });
  await t.test('base_add_then_view', () => {
    const e = cases.base_add_then_view;
    const { a, c } = setup();
    const tv = c.t();
    c.add_(1);
    approx(V(tv), e.view, 'view sees the write to its base');
    tv.sum().backward();
    approx(V(a.grad), e.a_grad, 'a.grad');
    assert.equal(tv.gradFn.name, e.view_grad_fn, 'view grad_fn');
    assert.equal(c.gradFn.name, normName(e.c_grad_fn), 'base grad_fn');
  });
  await t.test('t_view_mul_', () => {
    const e = cases.t_view_mul_;
    const { a, c } = setup();
    const tv = c.t();
    tv.mul_(hg.tensor([[1, 10], [100, 1000]]));
    approx(V(tv), e.view, 'view values');
    approx(V(c), e.c, 'base sees the write through the view');
    c.mul(hg.tensor([[1, 2], [3, 4]])).sum().backward();
    approx(V(a.grad), e.a_grad, 'a.grad');
    assert.equal(c.gradFn.name, normName(e.c_grad_fn), 'base grad_fn');
    assert.equal(tv.gradFn.name, e.view_grad_fn, 'view grad_fn');
  });
});

test('noGrad restores recording when fn throws (hand)', () => {
  const x = leaf(2);
  assert.throws(() => hg.noGrad(() => { throw new Error('inside'); }), /inside/);
  assert.equal(x.mul(2).requiresGrad, true, 'recording is on again');
  const nested = hg.noGrad(() => hg.noGrad(() => x.mul(2)));
  assert.equal(nested.requiresGrad, false);
  assert.equal(x.mul(2).requiresGrad, true);
});
