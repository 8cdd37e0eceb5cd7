// Tensor hooks, retain_grad, node pre/post hooks, AccumulateGrad hooks and
// post-accumulate hooks against PyTorch (tests/fixtures/pytorch.json).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hg, S, V, Vs, approx, leaf, normName, assertTree, none, thrown } from './helpers.mjs';

/** The 2021 video's graph, translated line by line. */
function videoGraph({ removeCHook = false, useAdd = false, inplaceD = false } = {}) {
  const log = [];
  const a = leaf(2);
  const b = leaf(3);
  const c = a.mul(b);
  const h = c.registerHook(function c_hook(grad) {
    log.push(['c_hook', V(grad)]);
    return grad.add(2);
  });
  c.registerHook((grad) => { log.push(['c_print', V(grad)]); });
  c.retainGrad();
  const d = leaf(4);
  if (inplaceD) {
    d.registerHook((grad) => { log.push(['d_hook', V(grad)]); grad.mul_(100); });
  } else {
    d.registerHook((grad) => { log.push(['d_hook', V(grad)]); return grad.add(100); });
  }
  const e = useAdd ? c.add(d) : c.mul(d);
  e.retainGrad();
  e.registerHook((grad) => { log.push(['e_hook', V(grad)]); return grad.mul(2); });
  e.retainGrad();
  if (removeCHook) h.remove();
  e.backward();
  return { a, b, c, d, e, log };
}

function checkVideo(r, s) {
  approx(V(r.a.grad), s.a_grad, 'a.grad');
  approx(V(r.b.grad), s.b_grad, 'b.grad');
  approx(V(r.c.grad), s.c_grad, 'c.grad');
  approx(V(r.d.grad), s.d_grad, 'd.grad');
  approx(V(r.e.grad), s.e_grad, 'e.grad');
  approx(V(r.c), s.c, 'c');
  approx(V(r.e), s.e, 'e');
  assert.equal(r.c.gradFn.name, s.c_grad_fn);
  assert.equal(r.e.gradFn.name, s.e_grad_fn);
  assert.deepEqual(r.log.map((x) => x[0]), s.hook_log.map((x) => x[0]), 'hook order');
  approx(r.log.map((x) => x[1]), s.hook_log.map((x) => x[1]), 'values seen by hooks');
}

test('video_tensor_hooks (pytorch-2 semantics, the default)', () => {
  const s = S('video_tensor_hooks');
  checkVideo(videoGraph(), s);
});

test('video_tensor_hooks under setSemantics("pytorch-1") (hand values from the video)', () => {
  const s = S('video_tensor_hooks');
  const p1 = s.pytorch1_expected_by_hand;
  hg.setSemantics('pytorch-1');
  try {
    const r = videoGraph();
    approx(V(r.a.grad), p1.a_grad, 'a.grad');
    approx(V(r.b.grad), p1.b_grad, 'b.grad');
    approx(V(r.c.grad), p1.c_grad, 'c.grad');
    approx(V(r.d.grad), p1.d_grad, 'd.grad');
    approx(V(r.e.grad), p1.e_grad, 'e.grad (retain_grad ran before the g*2 hook)');
    assert.deepEqual(r.log.map((x) => x[0]), s.hook_log.map((x) => x[0]), 'same hook order');
  } finally {
    hg.setSemantics('pytorch-2');
  }
  // and back to PyTorch 2
  const r2 = videoGraph();
  approx(V(r2.e.grad), s.e_grad, 'e.grad after switching back');
});

test('video_handle_remove', () => {
  checkVideo(videoGraph({ removeCHook: true }), S('video_handle_remove'));
});

test('video_inplace_hazard: in-place mul_ in d\'s hook leaks into c\'s branch', () => {
  checkVideo(videoGraph({ useAdd: true, inplaceD: true }), S('video_inplace_hazard'));
});

test('inplace_hazard_plain', () => {
  const s = S('inplace_hazard_plain');
  const log = [];
  const a = leaf(2); const b = leaf(3);
  const c = a.mul(b);
  c.retainGrad();
  const d = leaf(4);
  d.registerHook((g) => { log.push(['d_hook', V(g)]); g.mul_(100); });
  c.registerHook((g) => { log.push(['c_hook', V(g)]); });
  const e = c.add(d);
  e.backward();
  approx(V(a.grad), s.a_grad, 'a.grad');
  approx(V(b.grad), s.b_grad, 'b.grad');
  approx(V(c.grad), s.c_grad, 'c.grad');
  approx(V(d.grad), s.d_grad, 'd.grad');
  assert.deepEqual(log.map((x) => x[0]), s.hook_log.map((x) => x[0]));
  approx(log.map((x) => x[1]), s.hook_log.map((x) => x[1]));
});

test('remove_later_hook_mid_backward: removing a later hook of the same tensor during backward', () => {
  const s = S('remove_later_hook_mid_backward');
  const log = [];
  const a = leaf(2); const b = leaf(3);
  const c = a.mul(b);
  const handles = {};
  c.registerHook((g) => { log.push('h1'); handles.h2.remove(); return g.add(1); });
  handles.h2 = c.registerHook((g) => { log.push('h2'); return g.mul(10); });
  c.registerHook(() => { log.push('h3'); return null; });
  c.backward(undefined, { retainGraph: true });
  assert.deepEqual(log, s.nonleaf.log, 'first pass: hook order');
  approx(V(a.grad), s.nonleaf.a_grad, 'a.grad');
  approx(V(b.grad), s.nonleaf.b_grad, 'b.grad');
  log.length = 0;
  c.backward();
  assert.deepEqual(log, s.nonleaf_second_backward.log, 'second pass');
  approx(V(a.grad), s.nonleaf_second_backward.a_grad, 'a.grad after second');
  approx(V(b.grad), s.nonleaf_second_backward.b_grad, 'b.grad after second');

  const llog = [];
  const x = leaf(1);
  const lh = {};
  x.registerHook(() => { llog.push('k1'); lh.k2.remove(); });
  lh.k2 = x.registerHook((g) => { llog.push('k2'); return g.mul(10); });
  x.mul(3).backward();
  assert.deepEqual(llog, s.leaf_first_backward.log, 'leaf first pass');
  approx(V(x.grad), s.leaf_first_backward.x_grad, 'x.grad');
  llog.length = 0;
  x.mul(3).backward();
  assert.deepEqual(llog, s.leaf_second_backward.log, 'leaf second pass');
  approx(V(x.grad), s.leaf_second_backward.x_grad, 'x.grad after second');
});

test('remove_earlier_hook_mid_backward (and remove() is idempotent)', () => {
  const s = S('remove_earlier_hook_mid_backward');
  const log = [];
  const a = leaf(2); const b = leaf(3);
  const c = a.mul(b);
  const hs = {};
  hs.h1 = c.registerHook((g) => { log.push('h1'); return g.mul(2); });
  hs.h2 = c.registerHook((g) => {
    log.push('h2');
    hs.h1.remove();
    hs.h2.remove();
    hs.h2.remove();
    return g.add(1);
  });
  c.backward(undefined, { retainGraph: true });
  assert.deepEqual(log, s.first.log);
  approx(V(a.grad), s.first.a_grad, 'a.grad');
  log.length = 0;
  c.backward();
  assert.deepEqual(log, s.second.log);
  approx(V(a.grad), s.second.a_grad, 'a.grad after second');
});

test('register_hook_mid_backward', () => {
  const s = S('register_hook_mid_backward');
  const log = [];
  const a = leaf(2); const b = leaf(3);
  const c = a.mul(b);
  const e = c.mul(4);
  const cLater = (g) => { log.push('c_added_by_e_hook'); return g.add(1); };
  const selfAdded = (g) => { log.push('c_added_by_c_hook'); return g.mul(100); };
  c.registerHook(() => { log.push('c_hook'); c.registerHook(selfAdded); });
  e.registerHook(() => { log.push('e_hook'); c.registerHook(cLater); });
  e.backward(undefined, { retainGraph: true });
  assert.deepEqual(log, s.first.log, 'first pass');
  approx(V(a.grad), s.first.a_grad, 'a.grad');
  approx(V(b.grad), s.first.b_grad, 'b.grad');
  log.length = 0;
  a.grad = null;
  b.grad = null;
  assert.equal(none(a.grad), null, 'a.grad = null clears');
  e.backward();
  assert.deepEqual(log, s.second.log, 'second pass');
  approx(V(a.grad), s.second.a_grad, 'a.grad second');
  approx(V(b.grad), s.second.b_grad, 'b.grad second');
});

test('leaf_hook_register_mid_backward', () => {
  const s = S('leaf_hook_register_mid_backward');
  const log = [];
  const x = leaf(1);
  const k2 = (g) => { log.push('k2'); return g.mul(10); };
  x.registerHook(() => { log.push('k1'); x.registerHook(k2); });
  x.mul(3).backward();
  assert.deepEqual(log, s.log);
  approx(V(x.grad), s.x_grad, 'x.grad');
});

test('retain_grad_vs_node_prehook: retain_grad stores the value after tensor hooks, before node pre-hooks', () => {
  const s = S('retain_grad_vs_node_prehook');
  const log = [];
  const a = leaf(2); const b = leaf(3);
  const c = a.mul(b);
  c.retainGrad();
  c.gradFn.registerPrehook((go) => { log.push(['node_pre', Vs(go)]); return [go[0].mul(10)]; });
  c.registerHook((g) => { log.push(['tensor_hook', V(g)]); return g.add(1); });
  const e = c.mul(4);
  e.backward();
  assert.deepEqual(log.map((x) => x[0]), s.log.map((x) => x[0]), 'order');
  approx(log.map((x) => x[1]), s.log.map((x) => x[1]), 'values seen');
  approx(V(c.grad), s.c_grad, 'c.grad');
  approx(V(a.grad), s.a_grad, 'a.grad');
  approx(V(b.grad), s.b_grad, 'b.grad');
});

test('hook_kinds_order: tensor hooks, retain_grad, node pre/post, AccumulateGrad hooks, post-accumulate', () => {
  const s = S('hook_kinds_order');
  const log = [];
  const a = leaf(2); const b = leaf(3);
  const c = a.mul(b);
  const fn = c.gradFn;
  fn.registerHook((gi, go) => { log.push(['c_node_post', Vs(gi), Vs(go)]); });
  fn.registerPrehook((go) => { log.push(['c_node_pre1', Vs(go)]); });
  c.registerHook((g) => { log.push(['c_t1', V(g)]); return g.add(1); });
  c.retainGrad();
  c.registerHook((g) => { log.push(['c_t2', V(g)]); return g.mul(2); });
  fn.registerPrehook((go) => { log.push(['c_node_pre2', Vs(go)]); });
  const accA = fn.nextFunctions[0][0];
  accA.registerHook((gi, go) => { log.push(['a_acc_post', Vs(gi), Vs(go)]); });
  accA.registerPrehook((go) => { log.push(['a_acc_pre', Vs(go)]); });
  a.registerPostAccumulateGradHook((t) => { log.push(['a_post_acc', V(t.grad)]); });
  a.registerHook((g) => { log.push(['a_tensor', V(g)]); return g.add(1000); });
  const e = c.mul(2);
  e.backward();
  assert.deepEqual(log.map((x) => x[0]), s.log.map((x) => x[0]), 'order');
  approx(log.map((x) => x.slice(1)), s.log.map((x) => x.slice(1)), 'values seen');
  approx(V(c.grad), s.c_grad, 'c.grad');
  approx(V(a.grad), s.a_grad, 'a.grad');
  approx(V(b.grad), s.b_grad, 'b.grad');
  assert.equal(accA.name, normName(s.acc_a_name));
  assert.equal(s.acc_a_variable_is_a, true);
  assert.equal(accA.variable.id, a.id, 'AccumulateGrad.variable is a');
});

test('node_post_hook: (grad_inputs, grad_outputs) and replacing grad_inputs', () => {
  const s = S('node_post_hook');
  const seen = {};
  const a = leaf(2); const b = leaf(3);
  const c = a.mul(b);
  c.gradFn.registerHook((gi, go) => {
    seen.gi = Vs(gi); seen.go = Vs(go);
    return [gi[0].mul(10), gi[1].add(1)];
  });
  c.retainGrad();
  c.mul(5).backward();
  assert.equal(seen.gi.length, s.len_gi);
  assert.equal(seen.go.length, s.len_go);
  approx(seen.gi, s.grad_inputs, 'grad_inputs');
  approx(seen.go, s.grad_outputs, 'grad_outputs');
  approx(V(a.grad), s.a_grad, 'a.grad');
  approx(V(b.grad), s.b_grad, 'b.grad');
  approx(V(c.grad), s.c_grad, 'c.grad');
});

test('node_post_hook_number_operand: a*2 has a null grad_input for the number', () => {
  const s = S('node_post_hook_number_operand');
  const seen = {};
  const a = leaf(3);
  const c = a.mul(2);
  c.gradFn.registerHook((gi, go) => { seen.gi = Vs(gi); seen.go = Vs(go); });
  c.backward();
  approx(seen.gi, s.grad_inputs, 'grad_inputs');
  approx(seen.go, s.grad_outputs, 'grad_outputs');
  approx(V(a.grad), s.a_grad, 'a.grad');
});

test('accumulate_grad_node_hooks', () => {
  const s = S('accumulate_grad_node_hooks');
  const seen = {};
  const a = leaf(2); const b = leaf(3);
  const c = a.mul(b);
  const acc = c.gradFn.nextFunctions[0][0];
  acc.registerHook((gi, go) => {
    seen.post_gi = Vs(gi); seen.post_go = Vs(go); seen.a_grad_in_post = V(a.grad);
  });
  acc.registerPrehook((go) => { seen.pre_go = Vs(go); return [go[0].mul(10)]; });
  c.backward();
  assert.equal(acc.name, normName(s.name));
  assert.deepEqual(acc.nextFunctions, s.next);
  assert.equal(acc.variable.id, a.id, 'variable is a');
  assert.equal(c.gradFn.nextFunctions[0][0].id, acc.id, 'same node id on each access');
  approx(seen.pre_go, s.pre_grad_outputs, 'pre-hook grad_outputs');
  approx(seen.post_gi, s.post_grad_inputs, 'post-hook grad_inputs');
  approx(seen.post_go, s.post_grad_outputs, 'post-hook grad_outputs');
  approx(seen.a_grad_in_post, s.a_grad_in_post, 'a.grad inside the post-hook');
  approx(V(a.grad), s.a_grad, 'a.grad');
  approx(V(b.grad), s.b_grad, 'b.grad');
});

test('post_accumulate_grad_hook', () => {
  const s = S('post_accumulate_grad_hook');
  const log = [];
  const x = leaf([1, 2]);
  x.registerPostAccumulateGradHook((t) => { log.push(['post_acc', V(t.grad), t.id === x.id]); });
  x.registerHook((g) => { log.push(['tensor_hook', V(g)]); });
  x.mul(x).sum().backward();
  x.mul(x).sum().backward();
  assert.deepEqual(log.map((e) => e[0]), s.log.map((e) => e[0]));
  approx(log.map((e) => e[1]), s.log.map((e) => e[1]));
  assert.deepEqual(log.filter((e) => e[0] === 'post_acc').map((e) => e[2]),
    s.log.filter((e) => e[0] === 'post_acc').map((e) => e[2]), 'hook gets the leaf itself');
  approx(V(x.grad), s.x_grad, 'x.grad');
});

test('hook_on_leaf_before_accumulation', () => {
  const s = S('hook_on_leaf_before_accumulation');
  const x = leaf(3);
  x.registerHook((g) => g.mul(0.5));
  x.mul(x).backward();
  approx(V(x.grad), s.x_grad);
});

test('hook_stored_tensors: tensors handed to hooks stay valid', () => {
  const s = S('hook_stored_tensors');
  const stored = [];
  const a = leaf([1, 2]); const b = leaf([3, 4]);
  const c = a.mul(b);
  c.registerHook((g) => { stored.push(g); });
  a.registerHook((g) => { stored.push(g); });
  c.mul(c).sum().backward();
  approx(stored.map(V), s.stored, 'stored grads');
  approx(V(a.grad), s.a_grad);
  approx(V(b.grad), s.b_grad);
});

test('same_leaf_twice: both edges go to one AccumulateGrad; one hook call with the sum', () => {
  const s = S('same_leaf_twice');
  const log = [];
  const a = leaf(3);
  a.registerHook((g) => { log.push(V(g)); });
  const c = a.mul(a);
  const [n0, n1] = c.gradFn.nextFunctions;
  assert.equal(n0[0].id === n1[0].id, s.same_node, 'same AccumulateGrad node');
  c.backward();
  approx(V(a.grad), s.a_grad);
  approx(log, s.hook_log);
});

test('hook handles: {id, remove()}, distinct ids, hooks returning undefined keep the value', () => {
  const a = leaf(2);
  const c = a.mul(3);
  const h1 = c.registerHook(() => undefined);
  const h2 = c.registerHook(() => null);
  assert.equal(typeof h1.id, 'number');
  assert.notEqual(h1.id, h2.id);
  assert.equal(typeof h1.remove, 'function');
  c.backward();
  // hand calculation: d(3a)/da = 3, hooks change nothing
  approx(V(a.grad), 3);
});

test('hooks_and_inplace: hooks registered before an in-place op stay on the old node', () => {
  const s = S('hooks_and_inplace');
  const log = [];
  const a = leaf([1, 2]);
  const c = a.mul(2);
  c.registerHook((g) => { log.push(['h1', V(g)]); return g.add(1); });
  c.retainGrad();
  c.add_(1);
  c.registerHook((g) => { log.push(['h2', V(g)]); return g.mul(10); });
  assertTree(c.gradFn, s.grad_fn);
  c.backward(hg.tensor([1, 2]));
  assert.deepEqual(log.map((e) => e[0]), s.log.map((e) => e[0]));
  approx(log.map((e) => e[1]), s.log.map((e) => e[1]));
  approx(V(c.grad), s.c_grad, 'c.grad');
  approx(V(a.grad), s.a_grad, 'a.grad');
  assert.equal(c.retainsGrad, s.retains_grad);
});

test('retain_grad_accumulates', () => {
  const s = S('retain_grad_accumulates');
  const a = leaf(2);
  const c = a.mul(3);
  c.retainGrad();
  const e = c.mul(c);
  e.backward(undefined, { retainGraph: true });
  approx(V(c.grad), s.c_grad_first);
  e.backward();
  approx(V(c.grad), s.c_grad_second);
  approx(V(a.grad), s.a_grad);
});

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
  const a = leaf(2); const b = leaf(3);
  const c = a.mul(b);
  const fn = c.gradFn;
  fn.registerHook(() => {});
  fn.registerPrehook(() => {});
  c.registerHook((g) => g.add(1));
  c.retainGrad();
  c.registerHook((g) => g.mul(2));
  fn.registerPrehook(() => {});
  const accA = fn.nextFunctions[0][0];
  accA.registerHook(() => {});
  accA.registerPrehook(() => {});
  a.registerPostAccumulateGradHook(() => {});
  a.registerHook((g) => g.add(1000));
  const e = c.mul(2);
  const events = hg.trace(() => e.backward());
  const kinds = events.filter((ev) => ev.type === 'hook').map((ev) => ev.kind);
  assert.deepEqual(kinds, expected);
  const accs = events.filter((ev) => ev.type === 'accumulate');
  const accA_ev = accs.find((ev) => ev.tensor === a.id);
  assert.ok(accA_ev, 'accumulate event for a');
  approx(accA_ev.grad, s.a_grad, 'accumulate event carries the value now in a.grad');
  JSON.stringify(events); // plain data
});

// hookgrad-specific: trace `node` events follow PyTorch's engine order
// (node_execution_order/video) and `accumulate` events carry the final
// .grad values of the video walkthrough (video_tensor_hooks).
test('trace: node and accumulate events of the video walkthrough', () => {
  const order = S('node_execution_order').cases.video.order;
  const s = S('video_tensor_hooks');
  let r;
  const events = hg.trace(() => { r = videoGraph(); });
  const nodeNames = events.filter((e) => e.type === 'node').map((e) => e.name);
  assert.deepEqual(nodeNames, order.map((l) => l.replace(/:.*$/, '')), 'node events in engine order');
  const acc = events.filter((e) => e.type === 'accumulate');
  const want = order.filter((l) => l.startsWith('AccumulateGrad:')).map((l) => l.split(':')[1]);
  const ids = { a: r.a.id, b: r.b.id, d: r.d.id };
  assert.deepEqual(acc.map((e) => e.tensor), want.map((n) => ids[n]), 'accumulate events: d, a, b');
  approx(acc.map((e) => e.grad), want.map((n) => s[`${n}_grad`]), 'accumulated values');
});

test('retain_grad_inplace (test_autograd.py)', () => {
  const s = S('retain_grad_inplace');
  const a = leaf([1]).clone();
  a.retainGrad();
  a.mul_(2);
  a.sum().backward();
  approx(V(a.grad), s.a_grad);
  approx(V(a), s.a);
  assert.equal(a.gradFn.name, s.grad_fn);
});

test('post_accumulate_hooks_order: removal mid-backward', () => {
  const s = S('post_accumulate_hooks_order');
  const log = [];
  const x = leaf([1, 2]);
  const hs = {};
  x.registerPostAccumulateGradHook(() => { log.push('p1'); hs.p3.remove(); });
  x.registerPostAccumulateGradHook(() => { log.push('p2'); });
  hs.p3 = x.registerPostAccumulateGradHook(() => { log.push('p3'); });
  x.mul(2).sum().backward();
  assert.deepEqual(log, s.first, 'first backward');
  log.length = 0;
  x.mul(2).sum().backward();
  assert.deepEqual(log, s.second, 'second backward');
  approx(V(x.grad), s.x_grad);
});

test('grad_mode_in_hooks: backward hooks run with recording off', () => {
  const s = S('grad_mode_in_hooks');
  const log = [];
  const a = leaf(2);
  const x = leaf(3);
  const c = a.mul(5);
  c.registerHook((g) => { log.push(['tensor_hook', x.mul(x).requiresGrad, g.requiresGrad]); return g.mul(2); });
  c.gradFn.registerHook(() => { log.push(['node_post', x.mul(x).requiresGrad]); });
  a.registerPostAccumulateGradHook(() => { log.push(['post_acc', x.mul(x).requiresGrad]); });
  c.mul(c).backward();
  assert.deepEqual(log, s.tensor_hooks.log);
  approx(V(a.grad), s.tensor_hooks.a_grad);
  // recording is back on after backward (hand)
  assert.equal(x.mul(x).requiresGrad, true);

  const mlog = [];
  const m = new hg.Module('Double', (t) => t.mul(2));
  m.registerFullBackwardHook(() => { mlog.push(['full_backward', x.mul(x).requiresGrad]); });
  m.registerForwardHook(() => { mlog.push(['forward', x.mul(x).requiresGrad]); });
  m.call(leaf(1)).backward();
  assert.deepEqual(mlog, s.module_hooks);

  const b = leaf(2);
  const d = b.mul(5);
  d.registerHook(() => { x.mul(x).backward(); });
  const msg = thrown(() => d.backward());
  assert.ok(msg.includes(s.backward_inside_hook_error.message),
    `error should include "${s.backward_inside_hook_error.message}", got "${msg}"`);
});

test('reentrant_backward: backward() called from inside a hook', () => {
  const s = S('reentrant_backward');
  const log = [];
  const a = leaf(2);
  const c = a.mul(3);
  let n = 0;
  c.registerHook((g) => {
    n += 1;
    log.push(['enter', n, V(g)]);
    if (n === 1) c.backward(hg.tensor(10), { retainGraph: true });
    log.push(['exit', n]);
  });
  c.backward(undefined, { retainGraph: true });
  assert.deepEqual(log.map((e) => e.slice(0, 2)), s.same_graph.log.map((e) => e.slice(0, 2)), 'enter/exit order');
  approx(log.filter((e) => e[0] === 'enter').map((e) => e[2]),
    s.same_graph.log.filter((e) => e[0] === 'enter').map((e) => e[2]), 'grads seen');
  approx(V(a.grad), s.same_graph.a_grad, 'a.grad');

  const x = leaf(3);
  const y = x.mul(x);
  const a2 = leaf(2);
  const c2 = a2.mul(3);
  c2.registerHook(() => { y.backward(); });
  c2.backward();
  approx(V(a2.grad), s.independent.a_grad, 'a2.grad');
  approx(V(x.grad), s.independent.x_grad, 'x.grad from the inner backward');
});

// The player names a tensor that hg.tidy released before graph() was taken
// from its hook events (web/src/model/trace-model.js): each tensor hook event
// carries the tensor's name as it was when the hook ran.
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
