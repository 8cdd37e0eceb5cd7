// The model layer on real engine output (fixtures.mjs runs the programs);
// expected values are the hand calculations written next to each program.
import test from 'node:test';
import assert from 'node:assert/strict';
import { analyze, frameAt, consoleLines, describeStep, isBackwardEvent } from '../../web/src/model/trace-model.js';
import { runProgram } from '../../web/src/model/run-program.js';
import { backwardSummary, summaryParts } from '../../web/src/model/step-text.js';
import { video, module, full, loop, hg, tid } from './fixtures.mjs';

const V = analyze(video.graph, video.trace);
const at = (m, pred) => m.steps.findIndex((s) => pred(s.event));
const hookStep = (m, name) => { const row = [...m.graph.tensors.flatMap((t) => t.hooks), ...m.graph.nodes.flatMap((n) => [...n.preHooks, ...n.postHooks])].find((h) => h.name === name); return { row, step: at(m, (e) => e.type === 'hook' && e.handle === row.handle) }; };

test('steps: one per non-log event; the forward part ends at the first backward event', () => {
  assert.equal(V.steps.length, video.trace.filter((e) => e.type !== 'log').length);
  assert.ok(!V.steps.some((s) => s.event.type === 'log'), 'console lines are not steps');
  assert.equal(V.forwardEnd, 2, 'two ops (c = a·b, e = c·d), then backward');
  assert.equal(V.steps[0].label, 'c created from (a, b), grad_fn MulBackward0');
  assert.ok(isBackwardEvent(V.steps[V.forwardEnd].event) && !isBackwardEvent(V.steps[0].event));
});

test('frame 0 has no grads written by the trace; the last frame has the hand-computed ones', () => {
  const ids = ['a', 'b', 'c', 'd', 'e'].map((n) => tid(video, n));
  const f0 = frameAt(V, 0);
  for (const id of ids) assert.equal(f0.grads.get(id), null);
  const end = frameAt(V, V.steps.length);
  assert.deepEqual(ids.map((id) => end.grads.get(id)), [30, 20, 10, 112, 1]);
});

test('stepping: focus, finished nodes, values on edges, hook before → after', () => {
  const eNode = V.tensors.get(tid(video, 'e')).gradFn; const cNode = V.tensors.get(tid(video, 'c')).gradFn;
  const k = at(V, (e) => e.type === 'node' && e.node === eNode) + 1; // after e's MulBackward0 ran
  const f = frameAt(V, k);
  assert.equal(f.focus.node, eNode);
  assert.ok(f.done.has(eNode) && !f.done.has(cNode));
  // grad_inputs of e = c·d with grad 2: (2·d, 2·c) = (8, 12), to c's node and d's AccumulateGrad.
  assert.deepEqual(f.edges.map((e) => [e.to, e.value]), [[cNode, 8], [V.accOf.get(tid(video, 'd')), 12]]);
  const dbl = hookStep(V, 'double');
  assert.deepEqual(f.hookFires.get(dbl.row.handle), { before: 1, after: 2, kind: 'tensor', step: dbl.step, count: 1 });
  assert.equal(f.grads.get(tid(video, 'e')), 1, 'retain-grad ran first (1.x order)');
  const back = frameAt(V, k - 1);
  assert.equal(back.edges.length, 0);
  assert.ok(!back.done.has(eNode), 'step back undoes');
});

test('tensor hooks focus the node they run before; clamping', () => {
  const { step } = hookStep(V, 'printGrad');
  assert.deepEqual(frameAt(V, step + 1).focus, { tensor: tid(video, 'c'), node: V.tensors.get(tid(video, 'c')).gradFn });
  assert.equal(frameAt(V, 999).k, V.steps.length);
  assert.equal(frameAt(V, -3).k, 0);
});

test('describeStep shows PyTorch-formatted values', () => {
  assert.equal(describeStep(V, V.steps[hookStep(V, 'cHook').step]), 'tensor hook cHook on c: 8. → 10.');
  const eNode = V.tensors.get(tid(video, 'e')).gradFn;
  assert.equal(describeStep(V, V.steps[at(V, (e) => e.type === 'node' && e.node === eNode)]), 'MulBackward0 ran: grad_outputs (2.,) → grad_inputs (8., 12.)');
  assert.equal(describeStep(V, V.steps[at(V, (e) => e.type === 'accumulate' && e.tensor === tid(video, 'd'))]), 'd.grad written: 112.');
});

test('module calls collect the ops run inside them; warnings pin to the module, errors to their node', () => {
  const m = analyze(module.graph, module.trace);
  assert.equal(m.moduleCalls.length, 1);
  const c = m.moduleCalls[0];
  assert.equal(c.name, 'Mul3');
  assert.equal(c.tensors.size, 2, 'x·y and (x·y)·x');
  assert.equal(c.nodes.size, 2);
  const inner = [...c.nodes].find((n) => m.nodes.get(n).next.every((e) => m.nodes.get(e.node)?.name === 'AccumulateGrad'));
  const f = frameAt(m, m.steps.length);
  assert.equal(f.pins.length, 2);
  assert.equal(f.pins[0].level, 'warning'); assert.equal(f.pins[0].module, c.key);
  assert.equal(f.pins[1].level, 'error'); assert.equal(f.pins[1].node, inner, 'the throwing hook was on the inner mul');
});

test('a legacy module hook: its node row and its event share the handle', () => {
  const m = analyze(module.graph, module.trace);
  const { row, step } = hookStep(m, 'legacyHook');
  assert.equal(row.kind, 'module-backward'); assert.equal(row.module, 'Mul3');
  const outNode = m.tensors.get(tid(module, 'out')).gradFn;
  assert.equal(m.steps[step].focus.node, outNode, 'located at the node it runs on: the output grad_fn');
  assert.equal(m.steps[step].focus.module, m.moduleCalls[0].key);
  assert.deepEqual(frameAt(m, step + 1).hookFires.get(row.handle).before, [2, 6], '(x, x·y) = (2, 6)');
});

test('a full backward hook row lights up when the hook fires', () => {
  const m = analyze(full.graph, full.trace);
  const { row, step } = hookStep(m, 'fullHook');
  assert.equal(row.kind, 'module-full-backward'); assert.equal(row.module, 'Mul3');
  assert.ok(step > 0, 'the trace names the row\'s handle');
  assert.equal(frameAt(m, step).hookFires.get(row.handle), undefined, 'not before it fires');
  assert.deepEqual(frameAt(m, step + 1).hookFires.get(row.handle).before, [12, 8, 6], '(yz, xz, xy)');
  assert.equal(m.steps[step].label, 'full backward hook fullHook on Mul3');
});

test('tensors/nodes are "future" until their op event', () => {
  const c = tid(video, 'c'); const eNode = V.tensors.get(tid(video, 'e')).gradFn;
  assert.equal(frameAt(V, 0).tensorCreated(c), false);
  assert.equal(frameAt(V, 1).tensorCreated(c), true);
  assert.equal(frameAt(V, 0).tensorCreated(tid(video, 'a')), true, 'leaves exist from the start');
  assert.equal(frameAt(V, 1).nodeCreated(eNode), false);
});

test('console lines come from the trace: a hook\'s line appears with that hook\'s step', () => {
  const lines = consoleLines(V, null);
  assert.deepEqual(lines.map((l) => l.text), ['before backward', 'cHook got tensor(8.)', 'printGrad got tensor(10.)', 'a.grad tensor(30.)']);
  assert.equal(lines[0].at, V.forwardEnd, 'printed after the forward ops, before backward');
  assert.equal(lines[1].at, hookStep(V, 'cHook').step + 1);
  assert.equal(lines[1].hook, hookStep(V, 'cHook').row.handle);
  assert.equal(lines[2].at, hookStep(V, 'printGrad').step + 1);
  assert.equal(lines[3].at, V.steps.length);
  const m = analyze(module.graph, module.trace);
  const ml = consoleLines(m, module.error);
  assert.deepEqual(ml.map((l) => [l.level, l.source]), [['warn', 'engine'], ['log', 'program'], ['error', 'page']]);
  assert.equal(ml[0].at, at(m, (e) => e.type === 'warning') + 1);
  assert.equal(ml[2].at, m.steps.length);
});

test('empty data gives an empty model', () => {
  const m = analyze({ tensors: [], nodes: [] }, []);
  assert.equal(m.steps.length, 0);
  assert.equal(frameAt(m, 0).k, 0);
  assert.equal(describeStep(m, null), 'Ready.');
});

test('the same error at the same place is pinned once', () => {
  const trace = [...module.trace, module.trace.find((e) => e.type === 'error')];
  const m = analyze(module.graph, trace);
  assert.equal(frameAt(m, m.steps.length).pins.filter((p) => p.level === 'error').length, 1);
});

test('a training loop in hg.tidy: the player starts before the backward pass the figure shows, and only drawn module calls are frames', () => {
  const m = analyze(loop.graph, loop.trace);
  assert.equal(loop.error, null);
  // Four backward passes ran; only the last one's nodes are in the graph.
  const backwardPasses = m.steps.filter((s) => s.event.type === 'node' && s.event.name === 'PowBackward0').length;
  assert.equal(backwardPasses, 4);
  const first = m.steps[m.forwardEnd].event;
  assert.ok(isBackwardEvent(first) && m.nodes.has(first.node), 'starts at a backward event of a drawn node');
  // Each released pass ran PowBackward0, SubBackward0, MulBackward0 and w's AccumulateGrad.
  assert.equal(m.steps.slice(0, m.forwardEnd).filter((s) => s.event.type === 'node').length, 3 * 4, 'the three released passes come before it');
  // The console lines of the three steps are all shown at the start.
  assert.deepEqual(consoleLines(m).filter((l) => l.at <= m.forwardEnd).map((l) => l.text), ['step 0', 'step 1', 'step 2']);
  // Lin was called four times; the last call's tensors are drawn, and it keeps its number.
  assert.deepEqual(m.moduleCalls.map((c) => [c.name, c.callNr]), [['Lin', 4]]);
  const end = frameAt(m, m.steps.length);
  assert.ok(Math.abs(end.grads.get(tid(loop, 'w')) - 0.032) < 1e-5, `w.grad ${end.grads.get(tid(loop, 'w'))}`);
});

test('grad-set: `w.grad = null` between the loop\'s steps shows None until the next backward writes w.grad', () => {
  const m = analyze(loop.graph, loop.trace);
  const w = tid(loop, 'w');
  const sets = m.steps.filter((s) => s.event.type === 'grad-set');
  assert.deepEqual(sets.map((s) => [s.event.tensor, s.event.grad]), [[w, null], [w, null], [w, null], [w, null]], 'one per `w.grad = null`');
  const acc = m.steps.filter((s) => s.event.type === 'accumulate').map((s) => s.index);
  // By hand (fixtures.mjs): the steps' gradients are 4, 0.8, 0.16, then 0.032.
  const near = (v, x) => v !== null && Math.abs(v - x) < 1e-5;
  assert.ok(near(frameAt(m, acc[0] + 1).grads.get(w), 4));
  assert.equal(frameAt(m, sets[1].index + 1).grads.get(w), null, 'after step 1\'s w.grad = null');
  assert.ok(near(frameAt(m, sets[3].index).grads.get(w), 0.16), 'step 2\'s gradient until the last assignment');
  // Where the player starts (the drawn pass): None, not step 2's stale 0.16.
  assert.ok(sets[3].index < m.forwardEnd);
  assert.equal(frameAt(m, m.forwardEnd).grads.get(w), null);
  assert.ok(near(frameAt(m, m.steps.length).grads.get(w), 0.032));
  assert.equal(sets[3].label, 'w.grad set to None');
  assert.equal(describeStep(m, sets[3]), 'w.grad set to None: the next backward that writes w.grad starts from nothing instead of adding to the old value.');
  assert.deepEqual(sets[3].focus, { tensor: w, node: m.accOf.get(w) });
  assert.ok(!isBackwardEvent(sets[3].event));
});

test('grad-set with a value: the inspector shows it, and the step says the next backward adds to it', () => {
  const r = runProgram(hg, `const a = hg.tensor(2, { requiresGrad: true, name: 'a' });
a.grad = hg.tensor(10);
const y = a.mul(3); y.name = 'y';
y.backward();`);
  const m = analyze(r.graph, r.trace);
  const a = tid(r, 'a');
  const set = m.steps.find((s) => s.event.type === 'grad-set');
  assert.equal(frameAt(m, 0).grads.get(a), null, 'written by the trace: None before it');
  assert.equal(frameAt(m, set.index + 1).grads.get(a), 10);
  assert.equal(describeStep(m, set), 'a.grad assigned: 10.; the next backward that writes a.grad adds to this value.');
  assert.equal(frameAt(m, m.steps.length).grads.get(a), 13, 'by hand: 10 + dy/da = 10 + 3');
});

test('the backward summary lists a hook that fired in every step of a loop once, with its count', () => {
  // A hook on the leaf w lives through five tidy steps and a last pass: six in a row.
  const r = runProgram(hg, `const w = hg.tensor(1, { requiresGrad: true, name: 'w' });
w.registerHook(function seen() {});
for (let i = 0; i < 5; i++) hg.tidy(() => { w.mul(2).backward(); });
const y = w.mul(2); y.name = 'y'; y.backward();`);
  const m = analyze(r.graph, r.trace);
  const parts = summaryParts(backwardSummary(m, frameAt(m, m.steps.length)));
  assert.deepEqual(parts.hooks, ['seen (w) × 6']);
  assert.deepEqual(parts.leaves, ['w = 12.'], 'w.grad: six passes of dy/dw = 2, never zeroed');
});

test('a hook removed before graph() was taken keeps its function\'s name in the backward summary', () => {
  const r = runProgram(hg, `const w = hg.tensor(1, { requiresGrad: true, name: 'w' });
const h = w.registerHook(function seen() {});
const y = w.mul(2); y.name = 'y';
y.registerHook(function halve(g) { return g.mul(0.5); }).remove();
const once = y.registerHook(function once() {});
y.backward();
once.remove(); h.remove();`);
  const m = analyze(r.graph, r.trace);
  assert.ok(![...m.tensors.values()].some((t) => t.hooks.length), 'the final graph lists no hook');
  const parts = summaryParts(backwardSummary(m, frameAt(m, m.steps.length)));
  assert.deepEqual(parts.hooks, ['once (y)', 'seen (w)']);
});

test('a hook on a tensor that tidy released before graph() was taken is labelled with the tensor\'s name', () => {
  const r = runProgram(hg, `const w = hg.tensor([1, 2], { requiresGrad: true, name: 'w' });
for (let i = 0; i < 2; i++) hg.tidy(() => {
  const h = w.mul(3); h.name = 'h';
  h.registerHook(function double(g) { return g.mul(2); });
  h.sum().backward();
});
const y = w.mul(2); y.name = 'y'; y.backward(hg.tensor([1, 1]));`);
  const m = analyze(r.graph, r.trace);
  const hooks = m.steps.filter((s) => s.event.type === 'hook');
  assert.equal(hooks.length, 2, 'one per tidied step');
  assert.ok(hooks.every((s) => !m.tensors.has(s.event.tensor)), 'the final graph does not hold the tidied h');
  assert.deepEqual(hooks.map((s) => s.label), ['tensor hook double on h', 'tensor hook double on h']);
  assert.equal(describeStep(m, hooks[0]), 'tensor hook double on h: [1., 1.] → [2., 2.]');
});

test('a module call is labelled by its name in its caller, then its class', async () => {
  const { callLabel } = await import('../../web/src/model/trace-model.js');
  assert.equal(callLabel({ name: 'Linear', path: 'encoder' }), 'encoder: Linear');
  assert.equal(callLabel({ name: 'Layer', path: 'layers.0', callNr: 2 }), 'layers.0: Layer (call 2)');
  assert.equal(callLabel({ name: 'Mul3' }), 'Mul3');
  // From a real run: Net calls its children encoder and head, both Linear.
  const { hg } = await import('./fixtures.mjs');
  const { runProgram } = await import('../../web/src/model/run-program.js');
  const r = runProgram(hg, `const encoder = new hg.nn.Linear(2, 2, { seed: 1 }); const head = new hg.nn.Linear(2, 1, { seed: 2 });
const net = new hg.Module('Net', (x) => head.call(encoder.call(x)));
net.addModule('encoder', encoder); net.addModule('head', head);
net.call(hg.tensor([[1, 2]])).sum().backward();`);
  assert.equal(r.error, null, r.error?.message);
  const m = analyze(r.graph, r.trace);
  assert.deepEqual(m.moduleCalls.map((c) => c.label).sort(), ['Net', 'encoder: Linear', 'head: Linear']);
});
