// Tensor hooks, retain_grad, node pre/post hooks, AccumulateGrad hooks and
// post-accumulate hooks against PyTorch (tests/fixtures/pytorch.json): the
// 2021 video's walkthrough and PyTorch's hook-order scenarios. Handles,
// in-place ops and re-entrant backward: tensor_hook_lifecycle.test.mjs;
// hook trace events: tensor_hook_events.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hg, S, V, Vs, approx, leaf, normName, none } from './helpers.mjs';

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
