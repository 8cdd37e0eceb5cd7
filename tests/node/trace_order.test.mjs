// hg.trace() tells each backward step in the order PyTorch's engine runs it
// (engine.cpp call_function): tensor hooks → retain_grad → node pre-hooks →
// the node computes (its `node` event) → node post-hooks (the legacy module
// hook is one); AccumulateGrad: its `node` event → `.grad` written →
// post-accumulate-grad hooks → its post-hooks. PyTorch's hook calls and the
// values they saw come from tests/fixtures/pytorch.json; where the node
// itself runs among them is PyTorch's engine, not hookgrad's output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hg, S, approx, leaf, hookKindsOrderRun } from './helpers.mjs';

/** One line per backward event: "node Name", "hook kind", "accumulate". */
const story = (events) => events.filter((e) => e.type === 'node' || e.type === 'hook' || e.type === 'accumulate')
  .map((e) => (e.type === 'node' ? `node ${e.name}` : e.type === 'hook' ? `hook ${e.kind}` : 'accumulate'));

test('hook_kinds_order: each node event sits between its pre-hooks and its post-hooks', () => {
  const s = S('hook_kinds_order');
  const { a, c, fn, accA, events } = hookKindsOrderRun();

  // c's MulBackward0: from its first tensor hook to its post-hook.
  const onC = events.filter((ev) => (ev.type === 'hook' && (ev.tensor === c.id || ev.node === fn.id)) || (ev.type === 'node' && ev.node === fn.id));
  assert.deepEqual(story(onC), ['hook tensor', 'hook tensor', 'hook retain-grad', 'hook node-pre', 'hook node-pre', 'node MulBackward0', 'hook node-post']);
  // The node event carries what the node computed: PyTorch's post-hook saw
  // grad_inputs (18, 12) for grad_outputs (6,).
  const post = s.log.find(([label]) => label === 'c_node_post');
  const node = onC.find((ev) => ev.type === 'node');
  approx(node.gradInputs, post[1], 'grad_inputs as the post-hook saw them');
  approx(node.gradOutputs, post[2], 'grad_outputs as the post-hook saw them');

  // AccumulateGrad of a: tensor hook → its pre-hook → it runs → a.grad →
  // post-accumulate hook → its post-hook (fixture: a_tensor, a_acc_pre,
  // a_post_acc, a_acc_post; .grad 1018 before a_post_acc).
  const onA = events.filter((ev) => (ev.type === 'hook' && (ev.tensor === a.id || ev.node === accA.id)) || (ev.type === 'node' && ev.node === accA.id) || (ev.type === 'accumulate' && ev.tensor === a.id));
  assert.deepEqual(story(onA), ['hook tensor', 'hook node-pre', 'node AccumulateGrad', 'accumulate', 'hook post-accumulate', 'hook node-post']);
  approx(onA[3].grad, s.a_grad, 'a.grad written before the post-accumulate hook');
  // Across nodes: every step of c's node comes before a's AccumulateGrad runs.
  assert.ok(events.indexOf(onC.at(-1)) < events.indexOf(onA[0]));
});

test('module_legacy_Mul3: the legacy hook fires right after the node it reports', () => {
  const s = S('module_legacy_Mul3');
  const m = new hg.Module('Mul3', (x, y, z) => x.mul(y).mul(z));
  m.registerBackwardHook(() => {});
  const [x, y, z] = [2, 3, 4].map((v) => leaf(v));
  const out = m.call(x, y, z);
  const last = out.gradFn;
  const events = hg.trace(() => out.backward());
  const i = events.findIndex((ev) => ev.type === 'node' && ev.node === last.id);
  const j = events.findIndex((ev) => ev.type === 'hook' && ev.kind === 'module-backward');
  assert.ok(i >= 0 && j >= 0, 'both events are recorded');
  assert.equal(j, i + 1, 'the hook fires right after its node computed');
  approx(events[i].gradInputs, s.grad_input, 'the node computed (4, 6)');
  approx(events[j].before, s.grad_input, 'and the hook saw (4, 6)');
});

test('module_legacy_return_modifies: the node event keeps what the node computed, the hook event what it returned', () => {
  const s = S('module_legacy_return_modifies');
  const m = new hg.Module('Mul2', (x, y) => x.mul(y));
  m.registerBackwardHook((mod, gi) => [gi[0].mul(0), gi[1].mul(10)]);
  const a = leaf(2); const b = leaf(3);
  const out = m.call(a, b);
  const events = hg.trace(() => out.backward());
  const node = events.find((ev) => ev.type === 'node' && ev.node === out.gradFn.id);
  const hook = events.find((ev) => ev.type === 'hook' && ev.kind === 'module-backward');
  // By hand: Mul2(a=2, b=3) computes (b, a) = (3, 2); the hook returns (0, 20).
  approx(node.gradInputs, [3, 2]);
  approx(hook.after, [s.a_grad, s.b_grad]);
  assert.ok(events.indexOf(node) < events.indexOf(hook));
  approx([a.grad.item(), b.grad.item()], [s.a_grad, s.b_grad]);
});
