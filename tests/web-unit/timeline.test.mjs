// The hook timeline's model (web/src/model/timeline.js) on real engine runs:
// for every lesson under both semantics its marks are exactly the trace's
// hook, accumulate and grad-set events, in the trace's order, and the lanes
// and cursor are what the lessons' programs say (hand-checked below).
import test from 'node:test';
import assert from 'node:assert/strict';
import { LESSONS } from '../../web/src/model/lessons.js';
import { flipSwitch } from '../../web/src/model/lesson-switch.js';
import { runProgram } from '../../web/src/model/run-program.js';
import { analyze } from '../../web/src/model/trace-model.js';
import { buildTimeline, cursorAt, neighbourMark, isMarkEvent } from '../../web/src/model/timeline.js';
import { hg, VIDEO } from './fixtures.mjs';

const timelineOf = (program, semantics) => {
  const r = runProgram(hg, program, { semantics });
  const model = analyze(r.graph, r.trace);
  return { r, model, tl: buildTimeline(model) };
};

for (const lesson of LESSONS) {
  for (const semantics of ['pytorch-2', 'pytorch-1']) {
    test(`lesson ${lesson.n} (${lesson.id}), ${semantics}: the marks are the trace's hook and .grad events, in its order`, () => {
      // Lesson inplace-after-hook as written stops at PyTorch's error before
      // backward: no marks; its switched side is the run that has them.
      const raises = lesson.id === 'inplace-after-hook';
      if (raises) {
        const written = timelineOf(lesson.program, semantics);
        assert.match(written.r.error?.message ?? '', /is a view and is being modified inplace/);
        assert.deepEqual(written.tl.marks, []);
      }
      const { r, model, tl } = timelineOf(raises ? flipSwitch(lesson.program, lesson.switch.js) : lesson.program, semantics);
      assert.equal(r.error, null, r.error?.message);
      const expected = model.trace.map((ev, i) => ({ ev, i })).filter(({ ev, i }) => i >= model.figureStart && isMarkEvent(ev)).map(({ i }) => i);
      // (Lesson no-grad-hooks as written records no graph: nothing fires, its switch shows the hooks.)
      assert.ok(expected.length > 0 || lesson.id === 'no-grad-hooks', 'the lesson fires hooks or writes a .grad');
      assert.deepEqual(tl.marks.map((m) => m.step), expected);
      for (const m of tl.marks) {
        assert.equal(m.k, m.step + 1, 'the player frame that shows the mark');
        assert.ok(m.lane >= 0 && m.lane < tl.lanes.length);
        assert.ok(m.tag && m.tag.length <= 6, `a short tag: ${m.tag}`);
        assert.ok(m.detail.length > 0);
      }
      // Lanes appear in the order of their first mark.
      const firstLane = []; for (const m of tl.marks) if (!firstLane.includes(m.lane)) firstLane.push(m.lane);
      assert.deepEqual(firstLane, tl.lanes.map((_, i) => i));
    });
  }
}

test('the video example: PyTorch 2 moves retain_grad on e after the doubling hook; 1.x keeps it where it was called', () => {
  const order = (semantics) => {
    const { tl } = timelineOf(VIDEO, semantics);
    const lane = tl.lanes.findIndex((l) => l.label === 'e');
    return tl.marks.filter((m) => m.lane === lane).map((m) => m.tag);
  };
  // VIDEO: e.retainGrad() then e.registerHook(double).
  assert.deepEqual(order('pytorch-1'), ['R', 'T']);
  assert.deepEqual(order('pytorch-2'), ['T', 'R']);
});

test('lanes: tensors, nodes and modules; .grad writes on their tensor; backward passes start with a divider', () => {
  const lesson = LESSONS.find((l) => l.id === 'node-hooks');
  const { tl } = timelineOf(lesson.program, 'pytorch-2');
  const labels = tl.lanes.map((l) => `${l.of}:${l.label}`);
  // Program: pre-hook and hook on c's MulBackward0, a hook on a's AccumulateGrad, a post-accumulate hook on a.
  assert.ok(labels.includes('node:MulBackward0'), labels.join());
  assert.ok(labels.includes('node:AccumulateGrad'), labels.join());
  assert.ok(labels.includes('tensor:a') && labels.includes('tensor:b'), labels.join());
  const a = tl.lanes.findIndex((l) => l.label === 'a');
  // On a: .grad is written, then the post-accumulate hook sees it.
  assert.deepEqual(tl.marks.filter((m) => m.lane === a).map((m) => m.kind), ['accumulate', 'post-accumulate']);
  assert.equal(tl.marks.filter((m) => m.passStart).length, 0, 'one backward pass, its first mark needs no divider');

  const handles = LESSONS.find((l) => l.id === 'handles');
  const two = timelineOf(handles.program, 'pytorch-2').tl;
  // Two backward passes: the second starts with a divider; addTwo fires only in the first.
  assert.equal(two.marks.filter((m) => m.passStart).length, 1);
  assert.equal(two.marks.filter((m) => m.kind === 'tensor').length, 1);
  // Between them the program sets a.grad, b.grad, d.grad to None: three 'set' marks.
  assert.equal(two.marks.filter((m) => m.kind === 'grad-set').length, 3);
});

test('the cursor: marks shown before frame k, the current one at its own frame', () => {
  const { tl } = timelineOf(VIDEO, 'pytorch-2');
  assert.deepEqual(cursorAt(tl, 0), { shown: 0, current: -1 });
  const m = tl.marks[2];
  assert.deepEqual(cursorAt(tl, m.k), { shown: 3, current: 2 });
  assert.equal(cursorAt(tl, m.step).shown, 2, 'the frame before it: two marks shown');
  assert.equal(cursorAt(tl, 1e9).shown, tl.marks.length);
  // Keyboard: ← → in trace order, clamped; ↑ ↓ to the nearest mark of the next lane.
  assert.equal(neighbourMark(tl, 0, { d: -1 }), 0);
  assert.equal(neighbourMark(tl, tl.marks.length - 1, { d: 1 }), tl.marks.length - 1);
  const down = neighbourMark(tl, 0, { dl: 1 });
  assert.ok(tl.marks[down].lane > tl.marks[0].lane);
});
