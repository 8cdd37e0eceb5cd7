// A surprise lesson's switch (web/src/model/lesson-switch.js): the flip is
// exact and reversible, the side is read back from the program, and the
// before / after summary is the engine's run (values by hand below).
import test from 'node:test';
import assert from 'node:assert/strict';
import { SURPRISES } from '../../web/src/model/lessons-surprises.js';
import { flipSwitch, switchSide, runSummary } from '../../web/src/model/lesson-switch.js';
import { runProgram } from '../../web/src/model/run-program.js';
import { analyze } from '../../web/src/model/trace-model.js';
import { hg } from './fixtures.mjs';
import { isBuiltInScenario } from '../../web/src/model/trust.js';

const summary = (program) => { const r = runProgram(hg, program, { semantics: 'pytorch-2' }); return runSummary(analyze(r.graph, r.trace), r.error); };

test('flip and flip back give the program as written; the side is read from the program', () => {
  for (const l of SURPRISES) {
    for (const [prog, pair] of [[l.program, l.switch.js], [l.python, l.switch.python]]) {
      const on = flipSwitch(prog, pair);
      assert.notEqual(on, prog);
      assert.equal(flipSwitch(on, pair, true), prog);
      assert.equal(switchSide(prog, pair), 'off', `${l.id}: as written`);
      assert.equal(switchSide(on, pair), 'on', `${l.id}: switched`);
      assert.equal(switchSide('edited away', pair), null);
    }
  }
  assert.throws(() => flipSwitch('x', ['y', 'z']), /not in the program once/);
});

test('hooks-pile-up: with remove() one call per step, w.grad 4; without, 1 + 2 + 3 calls and w.grad 16', () => {
  const l = SURPRISES.find((x) => x.id === 'hooks-pile-up');
  // By hand: d(2w)/dw = 2, doubled by each `double` hook that is registered: 2·2 = 4; forgotten: 2·2³ = 16 at step 2.
  const off = summary(l.program); const on = summary(flipSwitch(l.program, l.switch.js));
  assert.deepEqual(off.grads, ['w.grad = 4.']);
  assert.deepEqual(on.grads, ['w.grad = 16.']);
  const calls = (s) => s.hooks.filter((t) => t.startsWith('tensor hook double')).map((t) => Number(/×(\d+)$/.exec(t)?.[1] ?? 1));
  assert.deepEqual(calls(off), [1, 1, 1]);
  assert.deepEqual(calls(on), [1, 2, 3]);
});

test('grad-ready-in-hook: w.grad is written before the module hook, or after it once w also makes the input', () => {
  const l = SURPRISES.find((x) => x.id === 'grad-ready-in-hook');
  const off = summary(l.program); const on = summary(flipSwitch(l.program, l.switch.js));
  const order = (s) => s.hooks.filter((t) => t === 'w.grad written' || t.startsWith('full backward hook'));
  assert.deepEqual(order(off), ['w.grad written', 'full backward hook checkGrad on Scale']);
  assert.deepEqual(order(on), ['full backward hook checkGrad on Scale', 'w.grad written']);
  // By hand: y = x·w, x = 2a: dL/dw = x = [2, 6]; with x = a·w: dL/dw = 2·a·w = [4, -6], dL/da = w² = [4, 1].
  assert.ok(off.grads.includes('w.grad = [2., 6.]'), off.grads.join());
  assert.ok(on.grads.includes('w.grad = [4., -6.]') && on.grads.includes('a.grad = [4., 1.]'), on.grads.join());
});

test('a link to a surprise lesson on either side of its switch is the lesson\'s own program: it runs at once', () => {
  const l = SURPRISES[0];
  for (const program of [l.program, flipSwitch(l.program, l.switch.js), l.python, flipSwitch(l.python, l.switch.python)]) {
    assert.equal(isBuiltInScenario({ lesson: l.id, program }), true);
  }
  assert.equal(isBuiltInScenario({ lesson: l.id, program: `${l.program}\nconsole.log(1);` }), false);
});
