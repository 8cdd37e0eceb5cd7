// One step, one cause (issue 32): the frames follow the trace's order (a
// post-hook's change shows on the edges after the node ran), short values are
// printed whole, and the step sentences read as English. Programs run through
// the built engine; expected values are hand calculations.
import test from 'node:test';
import assert from 'node:assert/strict';
import { analyze, frameAt, describeStep } from '../../web/src/model/trace-model.js';
import { runProgram } from '../../web/src/model/run-program.js';
import { backwardSummary, stepSentence } from '../../web/src/model/step-text.js';
import { abbreviate } from '../../web/src/model/records.js';
import { badgeText, widestShown } from '../../web/src/model/shown-values.js';
import { edgeLabelText } from '../../web/src/model/edges.js';
import { hg } from './fixtures.mjs';

const run = (program) => { const r = runProgram(hg, program, { semantics: 'pytorch-2' }); assert.equal(r.error ?? null, null); return analyze(r.graph, r.trace); };
const tid = (m, name) => [...m.tensors.values()].find((t) => t.name === name)?.id;

// By hand: c = a·b with a = 2, b = 3; MulBackward0 computes (b, a) = (3, 2);
// its post-hook times10 returns (30, 2), so a.grad = 30, b.grad = 2.
const POST = `const a = hg.tensor(2, { requiresGrad: true, name: 'a' });
const b = hg.tensor(3, { requiresGrad: true, name: 'b' });
const c = a.mul(b); c.name = 'c';
c.gradFn.registerHook(function times10(gradInputs) { return [gradInputs[0].mul(10), gradInputs[1]]; });
c.backward();`;

test('a node runs, then its post-hook: the edges carry what the node computed, then what the hook returned', () => {
  const m = run(POST);
  const cNode = m.tensors.get(tid(m, 'c')).gradFn;
  const nodeStep = m.steps.findIndex((s) => s.event.type === 'node' && s.event.node === cNode);
  const hookStep = m.steps.findIndex((s) => s.event.type === 'hook' && s.event.kind === 'node-post');
  assert.equal(hookStep, nodeStep + 1, 'the hook right after its node');
  const ran = frameAt(m, nodeStep + 1);
  assert.deepEqual(ran.edges.map((e) => [e.value, e.before]), [[3, undefined], [2, undefined]]);
  assert.equal(describeStep(m, ran.step), 'MulBackward0 ran: grad_outputs (1.,) → grad_inputs (3., 2.)');
  const hooked = frameAt(m, hookStep + 1);
  assert.deepEqual(hooked.edges.map((e) => [e.value, e.before]), [[30, 3], [2, undefined]], 'only the changed edge shows before → after');
  assert.deepEqual(hooked.nodeIO.get(cNode).gradInputs, [30, 2]);
  assert.equal(describeStep(m, hooked.step), 'node hook times10 on MulBackward0: (3., 2.) → (30., 2.)');
  // One step later the edges are no longer "hot", and the values stay the hook's.
  assert.deepEqual(frameAt(m, hookStep + 2).nodeIO.get(cNode).gradInputs, [30, 2]);
});

test('short values (≤ 6 numbers) are never abbreviated; longer ones are, never inside a number', () => {
  assert.equal(abbreviate([5.0186, -0.324, 1.25], 12), '[5.0186, -0.3240, 1.2500]');
  assert.equal(abbreviate([[0.1]], 4), '[[0.1000]]');
  assert.equal(abbreviate([[1, 2, 3], [4, 5, 6]], 8), '[[1., 2., 3.], [4., 5., 6.]]');
  assert.equal(abbreviate([1, 2, 3, 4, 5, 6, 7], 16), '[1., 2., …, 7.]');
});

test('a badge shows before → after when the hook changed the value, else the value once', () => {
  assert.equal(badgeText('node-post', [4, 6], [4, 6]), '(4., 6.)');
  assert.equal(badgeText('tensor', 1, 100), '1. → 100.');
  assert.equal(badgeText('tensor', [[1]], [[0.1]]), '[[1.]] → [[0.1000]]');
  // A tuple whose short parts do not fit is named, not cut.
  assert.equal(badgeText('node-post', [[1, 2, 3], [4, 5, 6]], [[1, 2, 3], [4, 5, 6]], 12), '(2 values)');
});

test('boxes are sized for the short values they will show', () => {
  const m = run(POST);
  const w = widestShown(m);
  assert.equal(w.grad.get(tid(m, 'a')), '30.'.length);
  const handle = m.graph.nodes.flatMap((n) => n.postHooks).find((h) => h.name === 'times10').handle;
  assert.equal(w.badge.get(handle), '(3., 2.) → (30., 2.)'.length);
});

// By hand: y = sum(exp(x·x)) saves x twice (mul) and exp's result: three packs
// at forward, three unpacks at backward.
const SAVED = `const x = hg.tensor([0.5, -1, 1.5], { requiresGrad: true, name: 'x' });
function pack(t) { return t.toArray(); }
function unpack(values) { return hg.tensor(values); }
const y = hg.savedTensorsHooks(pack, unpack, () => x.mul(x).exp().sum()); y.name = 'y';
y.backward();`;

test('pack and unpack steps read as sentences, and the summary counts them', () => {
  const m = run(SAVED);
  const labels = m.steps.filter((s) => s.event.type === 'hook').map((s) => s.label);
  assert.equal(labels.length, 6);
  for (const l of labels) assert.doesNotMatch(l, /^(pack pack|unpack unpack)|on $/, l);
  assert.ok(labels.some((l) => l.startsWith('pack hook on x')), labels.join(' | '));
  const end = frameAt(m, m.steps.length);
  const summary = backwardSummary(m, end);
  assert.equal(summary.hooks.length, 6, 'three packs and three unpacks fired');
  assert.doesNotMatch(stepSentence(m, m.steps.length, end).text, /No hook/);
});

test('a multi-grad hook names the tensors it watches', () => {
  const m = run(`const a = hg.tensor([1, 2], { requiresGrad: true, name: 'a' });
const b = hg.tensor([3, -4], { requiresGrad: true, name: 'b' });
hg.registerMultiGradHook([a, b], function firstGrad(g) {}, { mode: 'any' });
a.mul(b).sum().backward();`);
  const step = m.steps.find((s) => s.event.type === 'hook' && s.event.kind === 'multi-grad');
  assert.match(step.label, /^multi-grad hook firstGrad on a, b$/);
  // By hand: a.mul(b).sum() gives a the gradient b = [3, -4]; 'any' sees that one, as a tuple.
  assert.equal(describeStep(m, step), 'multi-grad hook firstGrad on a, b: sees ([3., -4.],) and leaves it unchanged');
});

test("a multi-grad hook's missing gradient reads None, as PyTorch prints it", () => {
  const m = run(`const a = hg.tensor([1, 2], { requiresGrad: true, name: 'a' });
const b = hg.tensor([3, -4], { requiresGrad: true, name: 'b' });
hg.registerMultiGradHook([a, b], function bothGrads(grads) {});
a.mul(2).sum().backward();`);
  const step = m.steps.find((s) => s.event.type === 'hook' && s.event.kind === 'multi-grad');
  assert.equal(describeStep(m, step), 'multi-grad hook bothGrads on a, b: sees ([2., 2.], None) and leaves it unchanged');
});

test('a forward-only program opens with a forward story, and ends saying so', () => {
  const m = run(`const net = new hg.Module('Net', (a) => a.mul(2));
net.registerForwardHook(function addHundred(mod, args, out) { return out.add(100); });
const d = net.call(hg.tensor(1, { requiresGrad: true, name: 'a' })); d.name = 'd';`);
  const start = stepSentence(m, 0, frameAt(m, 0)).text;
  assert.match(start, /runs forward only/); assert.match(start, /1 hook call/);
  assert.match(stepSentence(m, m.steps.length, frameAt(m, m.steps.length)).text, /never calls backward\(\)/);
});

// By hand (lesson 3): e = c + d, c = a·b. AddBackward0 hands one tensor (1.)
// to both edges; d's AccumulateGrad runs first (the later node), and dHook
// multiplies that tensor by 100 in place, so MulBackward0 receives 100.
const INPLACE = `const a = hg.tensor(2, { requiresGrad: true, name: 'a' });
const b = hg.tensor(3, { requiresGrad: true, name: 'b' });
const c = a.mul(b); c.name = 'c';
const d = hg.tensor(4, { requiresGrad: true, name: 'd' });
const e = c.add(d); e.name = 'e';
d.registerHook(function dHook(grad) { grad.mul_(100); });
e.backward();`;

test('a hook that changes its gradient in place changes the other edge at its own step, drawn 1. → 100.', () => {
  const m = run(INPLACE);
  const add = m.tensors.get(tid(m, 'e')).gradFn; const mul = m.tensors.get(tid(m, 'c')).gradFn;
  const hook = m.steps.findIndex((s) => s.event.type === 'hook' && s.event.name === 'dHook');
  assert.deepEqual(m.inPlace.get(hook), [{ from: add, to: mul, index: 0, before: 1, after: 100, by: 'dHook' }]);
  const f = frameAt(m, hook + 1);
  assert.deepEqual(f.edges.map((e) => [e.from, e.to, e.before, e.value, e.by]), [[add, mul, 1, 100, 'dHook']]);
  assert.equal(edgeLabelText(f.edges[0].value, f.edges[0].before, f.edges[0].by), '1. → 100. (dHook)');
  assert.equal(f.nodeIO.get(add).gradInputs[0], 100, 'the edge carries 100 from then on');
  assert.match(describeStep(m, f.step), /^tensor hook dHook on d: 1\. → 100\., changed in place — the same tensor is on the edge AddBackward0 → MulBackward0, which now carries 100\. too$/);
  assert.equal(frameAt(m, hook).nodeIO.get(add).gradInputs[0], 1, 'before the hook: 1.');
});

test('the legacy hook step says whose gradients it sees: the grad_inputs of the node it sits on', () => {
  // By hand: Mul3(p=2, q=3, r=4) = (p·q)·r; the last MulBackward0's inputs
  // are x·y = p·q = 6 and r = 4, so it computes (r, x·y) = (4, 6).
  const m = run(`function mul3(x, y, z) { const xy = x.mul(y); xy.name = 'x·y'; return xy.mul(z); }
const m3 = new hg.Module('Mul3', mul3);
m3.registerBackwardHook(function legacyHook() {});
const [p, q, r] = [2, 3, 4].map((v, i) => hg.tensor(v, { requiresGrad: true, name: 'pqr'[i] }));
const out = m3.call(p, q, r); out.name = 'out';
out.backward();`);
  const step = m.steps.find((s) => s.event.kind === 'module-backward');
  assert.equal(describeStep(m, step), 'legacy backward hook legacyHook on Mul3: sees (4., 6.), the grad_inputs of out’s MulBackward0: 4. for x·y, 6. for r — one per input of that node, not of Mul3 (x·y was made inside it).');
});

test('tensors made by forward (pre-)hooks are marked with the hook that made them', () => {
  // By hand: the pre-hook makes a + 10 (a new tensor), the forward hook output + 100.
  const m = run(`const net = new hg.Module('Net', (a) => a.mul(2));
net.registerForwardPreHook(function plusTen(mod, args) { return [args[0].add(10)]; });
net.registerForwardHook(function plusHundred(mod, args, out) { return out.add(100); });
const a = hg.tensor(1, { requiresGrad: true, name: 'a' });
const d = net.call(a); d.name = 'd';`);
  const by = [...m.madeByHook.values()].map((x) => [x.kind, x.name]);
  assert.deepEqual(by, [['module-pre', 'plusTen'], ['module-forward', 'plusHundred']]);
  assert.equal(m.madeByHook.get(tid(m, 'd')).name, 'plusHundred');
  assert.match(m.steps[m.createdAt.tensor.get(tid(m, 'd'))].label, /^d created from \(t\d+\) by the forward hook plusHundred, grad_fn AddBackward0$/);
});

test('the player starts no earlier than the first step the figure shows (a training loop: its last pass)', async () => {
  const { Player } = await import('../../web/src/view/player.js');
  const seen = [];
  const p = new Player({ onFrame: (k) => seen.push(k) });
  p.load(20, 15, 12);
  p.seek(0); assert.equal(p.k, 12, 'Home goes to the first shown step');
  p.seek(20); p.play(); p.pause(); assert.equal(p.k, 12, 'playing from the end starts over at the first shown step');
  assert.deepEqual(seen, [15, 12, 20, 12]);
});

test('lesson 5 asks for a prediction right before the Mul3 legacy hook fires; both choices come from the run', async () => {
  const { LESSONS } = await import('../../web/src/model/lessons.js');
  const { predictionAt } = await import('../../web/src/model/predict.js');
  const lesson = LESSONS.find((l) => l.id === 'legacy-hook');
  const m = run(lesson.program);
  const at = m.steps.findIndex((s) => s.event.kind === 'module-backward' && s.event.module === 'Mul3');
  assert.equal(predictionAt(m, at - 1, lesson.predict), null);
  const p = predictionAt(m, at, lesson.predict); // frame `at`: the hook's event is the next step
  // PyTorch (module_legacy_Mul3): the hook sees (4, 6); the inputs' .grad are (12, 8, 6).
  assert.deepEqual(p.choices.map((c) => [c.text, c.right]), [['(12., 8., 6.), one per input (p, q, r)', false], ['(4., 6.)', true]]);
});
