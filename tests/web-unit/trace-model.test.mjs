import test from 'node:test';
import assert from 'node:assert/strict';
import { analyze, frameAt, revealStep, describeStep, isBackwardEvent } from '../../web/src/model/trace-model.js';
import { videoGraph, videoTrace, moduleGraph, moduleTrace } from './fixtures.mjs';

test('steps: one per event, forward part ends at the first backward event', () => {
  const m = analyze(videoGraph, videoTrace);
  assert.equal(m.steps.length, videoTrace.length);
  assert.equal(m.forwardEnd, 2);
  assert.equal(m.steps[0].label, 'c created from (a, b), grad_fn MulBackward0');
  assert.ok(isBackwardEvent(videoTrace[4]) && !isBackwardEvent(videoTrace[0]));
});

test('frame 0 has no grads written by the trace; the last frame has them all', () => {
  const m = analyze(videoGraph, videoTrace);
  const f0 = frameAt(m, 0);
  for (const id of [1, 2, 3, 4, 5]) assert.equal(f0.grads.get(id), null);
  const end = frameAt(m, m.steps.length);
  assert.deepEqual([1, 2, 3, 4, 5].map((id) => end.grads.get(id)), [30, 20, 10, 112, 1]);
});

test('stepping: focus, finished nodes, values on edges, hook before → after', () => {
  const m = analyze(videoGraph, videoTrace);
  const f = frameAt(m, 5); // after MulBackward0 of e ran
  assert.equal(f.focus.node, 13);
  assert.ok(f.done.has(13) && !f.done.has(10));
  assert.deepEqual(f.edges.map((e) => [e.to, e.value]), [[10, 8], [14, 12]]);
  assert.deepEqual(f.hookFires.get(6), { before: 1, after: 2, kind: 'tensor', step: 3, count: 1 });
  assert.equal(f.grads.get(5), 1, 'retain-grad ran first (1.x order)');
  const back = frameAt(m, 4);
  assert.equal(back.edges.length, 0);
  assert.ok(!back.done.has(13), 'step back undoes');
});

test('tensor hooks focus the node they run before; clamping', () => {
  const m = analyze(videoGraph, videoTrace);
  assert.deepEqual(frameAt(m, 9).focus, { tensor: 3, node: 10 });
  assert.equal(frameAt(m, 999).k, videoTrace.length);
  assert.equal(frameAt(m, -3).k, 0);
});

test('describeStep shows PyTorch-formatted values', () => {
  const m = analyze(videoGraph, videoTrace);
  assert.equal(describeStep(m, m.steps[8]), 'tensor hook on c: 8. → 10.');
  assert.equal(describeStep(m, m.steps[4]), 'MulBackward0 ran: grad_outputs (2.,) → grad_inputs (8., 12.)');
  assert.equal(describeStep(m, m.steps[6]), 'd.grad written: 112.');
});

test('module calls collect the ops run inside them; warnings pin to the module, errors to their node', () => {
  const m = analyze(moduleGraph, moduleTrace);
  assert.equal(m.moduleCalls.length, 1);
  const c = m.moduleCalls[0];
  assert.equal(c.key, 'm1.1');
  assert.deepEqual([...c.tensors], [3, 4]);
  assert.deepEqual([...c.nodes], [10, 11]);
  const f = frameAt(m, m.steps.length);
  assert.equal(f.pins.length, 2);
  assert.equal(f.pins[0].level, 'warning'); assert.equal(f.pins[0].module, 'm1.1');
  assert.equal(f.pins[1].level, 'error'); assert.equal(f.pins[1].node, 10);
  assert.equal(m.steps[7].focus.node, 11, 'the legacy hook event is located at the node it runs on');
  assert.equal(m.alias.get(7), 8, 'module handle 7 ↔ node row handle 8');
  assert.deepEqual(frameAt(m, 8).hookFires.get(8).before, [2, 6], 'the node row shows the hook values');
});

test('tensors/nodes are "future" until their op event', () => {
  const m = analyze(videoGraph, videoTrace);
  assert.equal(frameAt(m, 0).tensorCreated(3), false);
  assert.equal(frameAt(m, 1).tensorCreated(3), true);
  assert.equal(frameAt(m, 0).tensorCreated(1), true, 'leaves exist from the start');
  assert.equal(frameAt(m, 1).nodeCreated(13), false);
});

test('console lines are revealed with the hook that printed them', () => {
  const m = analyze(videoGraph, videoTrace);
  // user hook events: handles 6, 4, 1, 2 at steps 3, 5, 8, 9
  assert.equal(revealStep(m, { hook: 3, inHook: true }), 9);
  assert.equal(revealStep(m, { hook: 0, inHook: false }), 0);
  assert.equal(revealStep(m, { hook: 4, inHook: false }), m.steps.length, 'after the last hook: past the trailing backward events');
  assert.equal(revealStep(m, { hook: 9, inHook: true }), m.steps.length, 'a hook with no event (it threw) shows at the end');
});

test('empty data gives an empty model', () => {
  const m = analyze({ tensors: [], nodes: [] }, []);
  assert.equal(m.steps.length, 0);
  assert.equal(frameAt(m, 0).k, 0);
  assert.equal(describeStep(m, null), 'Ready.');
});

test('the same error at the same place is pinned once', () => {
  const trace = [...moduleTrace, { type: 'error', message: 'boom', node: 10 }];
  const m = analyze(moduleGraph, trace);
  assert.equal(frameAt(m, trace.length).pins.filter((p) => p.level === 'error').length, 1);
});
