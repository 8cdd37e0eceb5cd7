import test from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../web/src/model/trace-model.js';
import { compareColumns } from '../../web/src/view/compare-view.js';
import { legacyHandles } from '../../web/src/session.js';
import { module, full } from './fixtures.mjs';

const moduleGraph = module.graph; const moduleTrace = module.trace;

test('the comparison finds what the legacy hook reported and the node it ran on', () => {
  const m = analyze(moduleGraph, moduleTrace);
  const cols = [{ kind: 'module-backward', module: 'Mul3', label: 'legacy' }, { kind: 'module-full-backward', module: 'Mul3', label: 'full' }];
  const before = compareColumns(m, m.forwardEnd, cols);
  assert.equal(before[0].hit, null, 'nothing before backward');
  const after = compareColumns(m, m.steps.length, cols);
  assert.deepEqual(after[0].hit.ev.before, [2, 6]);
  assert.equal(after[0].node, moduleGraph.tensors.find((t) => t.name === 'out').gradFn, 'the last MulBackward0, not the module');
  assert.equal(after[1].hit, null);
  const f = analyze(full.graph, full.trace);
  assert.deepEqual(compareColumns(f, f.steps.length, cols)[1].hit.ev.before, [12, 8, 6], 'the full hook: (yz, xz, xy)');
});

test('legacy hook handles are known by module name', () => {
  const m = analyze(moduleGraph, moduleTrace);
  const l = legacyHandles(m);
  const row = moduleGraph.nodes.flatMap((n) => n.postHooks).find((h) => h.kind === 'module-backward');
  assert.equal(l.get(row.handle), 'Mul3', 'one handle: the row\'s is the event\'s');
  assert.equal(l.size, 1);
});
