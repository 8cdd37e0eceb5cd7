import test from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../web/src/model/trace-model.js';
import { compareColumns } from '../../web/src/view/compare-view.js';
import { legacyHandles } from '../../web/src/session.js';
import { moduleGraph, moduleTrace } from './fixtures.mjs';

test('the comparison finds what the legacy hook reported and the node it ran on', () => {
  const m = analyze(moduleGraph, moduleTrace);
  const cols = [{ kind: 'module-backward', module: 'Mul3', label: 'legacy' }, { kind: 'module-full-backward', module: 'Mul3', label: 'full' }];
  const before = compareColumns(m, 5, cols);
  assert.equal(before[0].hit, null, 'nothing before backward');
  const after = compareColumns(m, m.steps.length, cols);
  assert.deepEqual(after[0].hit.ev.before, [2, 6]);
  assert.equal(after[0].node, 11, 'the last MulBackward0, not the module');
  assert.equal(after[1].hit, null);
});

test('legacy hook handles are known by module name', () => {
  const m = analyze(moduleGraph, moduleTrace);
  const l = legacyHandles(m);
  assert.equal(l.get(7), 'Mul3');
  assert.ok(l.has(8), 'the node row of the legacy hook too');
});
