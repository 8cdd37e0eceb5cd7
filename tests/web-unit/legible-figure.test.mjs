// Issue 32's last gap, the pure parts: value labels keep the figure's
// smallest font and take lines instead of shrinking; the camera fits to the
// readable scale (11 px / 12.5 units) and counts labels only when the figure
// still reads with them. Expected values are hand calculations.
import test from 'node:test';
import assert from 'node:assert/strict';
import { labelLines, labelSize, LABEL_FONT, LABEL_LINE, PLACED_LABEL_W } from '../../web/src/model/edges.js';
import { labelWidth } from '../../web/src/model/edge-labels.js';
import { fitView, fitBounds } from '../../web/src/model/camera.js';
import { MIN_READABLE_K, MIN_FIGURE_FONT, MIN_TEXT_PX } from '../../web/src/model/records.js';

test('a value label is always set in the figure\'s smallest font, 12.5 units', () => {
  assert.equal(LABEL_FONT, MIN_FIGURE_FONT);
  for (const t of ['1.', '[5.0186, 4.1821, -10.1689]', '[[3.1590, -1.4379], [10.7934, -2.6467], [1.4480, 0.4741]]']) assert.equal(labelSize(t).font, 12.5);
});

test('a short label is one line; a wide matrix or vector fills lines of at most 26 characters', () => {
  assert.deepEqual(labelLines('[1.4600, 2.0396, -3.6025]'), ['[1.4600, 2.0396, -3.6025]']); // 25 chars: 202 ≤ 1.2 × 141.2
  assert.deepEqual(labelLines('[[3.1590, -1.4379], [10.7934, -2.6467], [1.4480, 0.4741]]'), ['[[3.1590, -1.4379],', ' [10.7934, -2.6467],', ' [1.4480, 0.4741]]']);
  assert.deepEqual(labelLines('[5.0186, 4.1821, -10.1689, 1.0000, 2.0000, 3.0000]'), ['[5.0186, 4.1821, -10.1689,', ' 1.0000, 2.0000, 3.0000]']);
  // A column takes two lines, not one a row (27 characters would be too wide for one line of three).
  assert.deepEqual(labelLines('[[-0.0078], [0.0252], [0.0004], [0.0004]]'), ['[[-0.0078], [0.0252],', ' [0.0004], [0.0004]]']);
  // before → after breaks before the arrow; each side breaks again only if it is wider than one line (26 characters).
  assert.deepEqual(labelLines('[[0.1000, 0.2000], [0.3000, 0.4000]] → [[1., 2.], [3., 4.]] (h)'), ['[[0.1000, 0.2000],', ' [0.3000, 0.4000]]', '→ [[1., 2.], [3., 4.]] (h)']);
  // Three lines: 19 for the first, 15 for each next; as wide as the widest line (20 chars · 7.6 + 12).
  const s = labelSize('[[3.1590, -1.4379], [10.7934, -2.6467], [1.4480, 0.4741]]');
  assert.equal(s.h, 19 + 2 * LABEL_LINE); assert.equal(s.w, 20 * 7.6 + 12);
  assert.equal(PLACED_LABEL_W, labelWidth('x'.repeat(18)));
});

test('the readable scale is 11 px over the smallest font', () => {
  assert.equal(MIN_TEXT_PX, 11); assert.equal(MIN_READABLE_K, 11 / 12.5);
  // A 1000-unit figure in a 616-px pane fits at 0.6: at minK it is drawn at 0.88, from the top.
  const v = fitView({ width: 1000, height: 300 }, { width: 616, height: 500 }, { minK: MIN_READABLE_K });
  assert.equal(v.k, 0.88); assert.equal(v.y, 8);
});

test('the fit counts value labels only when the figure still reads at 11 px with them', () => {
  const size = { width: 616, height: 500 }; // (616 - 16) / 600 = 1.0 for the figure alone
  const figure = { x: 0, y: 0, width: 600, height: 300 };
  const narrowLabels = { x: -20, y: 0, width: 640, height: 300 }; // 600 / 640 = 0.94 ≥ 0.88: counted
  const wideLabels = { x: -200, y: 0, width: 1000, height: 300 }; // 0.6 < 0.88: the figure alone
  assert.equal(fitBounds(figure, narrowLabels, size, MIN_READABLE_K), narrowLabels);
  assert.equal(fitBounds(figure, wideLabels, size, MIN_READABLE_K), figure);
  // A figure that does not read whole anyway keeps its labels in the fit (it is shown in part either way).
  const big = { x: 0, y: 0, width: 2000, height: 300 };
  assert.equal(fitBounds(big, { ...big, width: 2100 }, size, MIN_READABLE_K).width, 2100);
});
