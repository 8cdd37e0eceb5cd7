// The surprise lessons (web/src/model/lessons-surprises.js) against real
// PyTorch: each lesson's Python program, as written and with its switch
// flipped, runs in hookgrad's Python mode and prints exactly what PyTorch
// printed, with PyTorch's warnings and PyTorch's exception where PyTorch
// raised one (tests/fixtures/surprises.json, from tests/fixtures/pyfixtures/surprises.py).
// Its JavaScript twin gives the same trace on both sides (lesson-twins.test.mjs).
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SURPRISES } from '../../web/src/model/lessons-surprises.js';
import { LESSONS } from '../../web/src/model/lessons.js';
import { flipSwitch } from '../../web/src/model/lesson-switch.js';
import { runProgram } from '../../web/src/model/run-program.js';
import { withEpilogue } from '../../web/src/model/python-epilogue.js';
import { loadPackage, pkgUrl } from '../load-package.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const FIX = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'fixtures', 'surprises.json'), 'utf8')).lessons;
let hg; let py;

before(async () => {
  ({ hg } = await loadPackage());
  const { loadPython } = await import(pkgUrl('python.js'));
  py = await loadPython({ hg });
});

for (const lesson of SURPRISES) {
  for (const side of ['off', 'on']) {
    test(`${lesson.id}, switch ${side}: hookgrad's Python prints what PyTorch printed, with its warnings`, () => {
      const want = FIX[lesson.id]?.[side];
      assert.ok(want, 'a fixture from real PyTorch');
      const program = side === 'on' ? flipSwitch(lesson.python, lesson.switch.python) : lesson.python;
      const p = py.run(withEpilogue(py.pyodide, program), { semantics: 'pytorch-2', filename: 'main.py' });
      if (want.exception) {
        assert.deepEqual(p.exception && { class: p.exception.type, message: p.exception.message },
          { class: want.exception.class, message: want.exception.message }, p.stderr);
      } else {
        assert.equal(p.exception, null, p.stderr);
      }
      assert.deepEqual(p.stdout.split('\n').filter((l) => l !== ''), want.stdout);
      const warned = p.trace.filter((ev) => ev.type === 'warning').map((ev) => ev.message);
      // PyTorch's C++ warnings end with where its own build raised them: not part of the message.
      assert.deepEqual(warned, want.warnings.map((w) => w.message.replace(/ \(Triggered internally at [^)]*\)$/, '')));
      // The JavaScript twin runs too, on this side of the switch: without an
      // error, or with PyTorch's (after the modules it passed through, named).
      const js = runProgram(hg, side === 'on' ? flipSwitch(lesson.program, lesson.switch.js) : lesson.program, { semantics: 'pytorch-2' });
      if (want.exception) assert.ok(js.error?.message.endsWith(`: ${want.exception.message}`), js.error?.message);
      else assert.equal(js.error, null, js.error?.message);
    });
  }
}

test('the surprises are lessons with numbers after the others, each with a one-line "what you will see"', () => {
  const ids = SURPRISES.map((l) => l.id);
  const shown = LESSONS.filter((l) => ids.includes(l.id));
  assert.deepEqual(shown.map((l) => l.id), ids);
  for (const l of shown) {
    assert.equal(l.group, 'surprises');
    assert.ok(l.see.length > 10 && l.see.length < 100, l.see);
    assert.equal(typeof l.python, 'string');
    for (const [prog, pair] of [[l.python, l.switch.python], [l.program, l.switch.js]]) {
      assert.equal(prog.split(pair[0]).length, 2, `the switch's text occurs once: ${pair[0]}`);
    }
  }
});

// Facts the lessons' text states that printed lines do not show: from the engine's runs.
const jsRun = (lesson, side, semantics = 'pytorch-2') => runProgram(hg, side === 'on' ? flipSwitch(lesson.program, lesson.switch.js) : lesson.program, { semantics });
const byId = (id) => SURPRISES.find((l) => l.id === id);

test('forward-skips-hooks: model(x) wraps the module in BackwardHookFunctionBackward nodes; forward(x) records no module at all', () => {
  const names = (r) => r.graph.nodes.map((n) => n.name);
  const off = jsRun(byId('forward-skips-hooks'), 'off'); const on = jsRun(byId('forward-skips-hooks'), 'on');
  assert.ok(names(off).includes('BackwardHookFunctionBackward'));
  assert.ok(off.trace.some((ev) => ev.type === 'module'));
  assert.ok(!names(on).includes('BackwardHookFunctionBackward'));
  assert.ok(!on.trace.some((ev) => ev.type === 'module' || ev.type === 'hook'));
});

test('nonleaf-grad, switched: retain_grad runs after h\'s hook under PyTorch 2, before it (where it was called) under 1.x', () => {
  const kinds = (semantics) => jsRun(byId('nonleaf-grad'), 'on', semantics).trace.filter((ev) => ev.type === 'hook').map((ev) => ev.kind);
  assert.deepEqual(kinds('pytorch-2'), ['tensor', 'retain-grad']);
  assert.deepEqual(kinds('pytorch-1'), ['retain-grad', 'tensor']);
});

test('no-grad-hooks: under no_grad no backward hook runs; with grad the module\'s full backward hook and the hook on y do', () => {
  const hooks = (side) => jsRun(byId('no-grad-hooks'), side).trace.filter((ev) => ev.type === 'hook').map((ev) => ev.kind);
  assert.deepEqual(hooks('off'), []);
  assert.deepEqual(hooks('on').sort(), ['module-full-backward', 'tensor']);
});

test('inplace-after-hook: inplace=True raises at y = act(h), before backward (no hook, no .grad); inplace=False runs the full hook once', () => {
  const l = byId('inplace-after-hook');
  const names = (r) => r.graph.nodes.map((n) => n.name);
  const off = jsRun(l, 'off'); const on = jsRun(l, 'on');
  assert.equal(off.error?.line, l.program.split('\n').findIndex((t) => t.startsWith('const y = act.call(h)')) + 1);
  assert.ok(!off.trace.some((ev) => ev.type === 'hook' || ev.type === 'accumulate'));
  assert.ok(names(off).includes('BackwardHookFunctionBackward'));
  assert.ok(!names(off).includes('ReluBackward0'), 'nothing was written: no ReluBackward0');
  assert.deepEqual(on.trace.filter((ev) => ev.type === 'hook').map((ev) => ev.kind), ['module-full-backward']);
  assert.ok(names(on).includes('ReluBackward0'));
  // Python raises at the same line of its program.
  const p = py.run(withEpilogue(py.pyodide, l.python), { semantics: 'pytorch-2', filename: 'main.py' });
  assert.equal(p.exception?.line, l.python.split('\n').indexOf('y = act(h)') + 1);
});
