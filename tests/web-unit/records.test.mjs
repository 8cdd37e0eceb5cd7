// Pure figure model: value abbreviation, badge labels, camera framing, LOD rule.
import test from 'node:test';
import assert from 'node:assert/strict';
import { abbreviate, badgeLabel, shapeText, readsWhole, fitScale, TITLE_PX, MIN_READABLE_K } from '../../web/src/model/records.js';
import { panToInclude, fitView, unionBox } from '../../web/src/model/camera.js';

test('abbreviate keeps short values whole and never cuts inside a number', () => {
  assert.equal(abbreviate(2), '2.');
  assert.equal(abbreviate([1, 0.5, -1], 30), '[1.0000, 0.5000, -1.0000]');
  assert.equal(abbreviate([1, 0.5, -1], 24), '[1.0000, 0.5000, -1.0000]', 'at most 6 numbers: whole, whatever the room');
  assert.equal(abbreviate([1, 0.5, -1, 2, 3, 4, 5], 24), '[1.0000, …, 5.0000]');
  assert.equal(abbreviate([1, 2, 3, 4, 5, 6, 7, 8, 9], 16), '[1., 2., …, 9.]');
  assert.equal(abbreviate([[1, 2, 3, 4], [4, 5, 6, 7]], 16), '[[1., …, 4.], …]');
  assert.equal(abbreviate([[1, 2, 3, 4], [4, 5, 6, 7]], 14), '[[1., …], …]');
  assert.equal(abbreviate(null), 'None');
  for (const s of [abbreviate([0.1234, 5.5, -7.25, 1e-6, 2, 3, 4], 12), abbreviate([[0.25, -0.5, -0.25, 1, 2, 3, 4]], 12)]) {
    assert.ok(s.length <= 12, s);
    assert.doesNotMatch(s, /\d…|…\d/, `no number cut: ${s}`);
  }
});

test('badge labels: kind then function name; strides only when not contiguous', () => {
  assert.equal(badgeLabel({ kind: 'tensor', name: 'cHook' }), 'hook · cHook');
  assert.equal(badgeLabel({ kind: 'retain-grad' }), 'retain_grad');
  assert.equal(badgeLabel({ kind: 'module-backward', name: 'legacyHook', module: 'Mul3', moduleId: 2 }), '⚠ legacy hook · legacyHook');
  assert.equal(shapeText({ shape: [2, 3], stride: [3, 1] }), '[2, 3]');
  assert.equal(shapeText({ shape: [3, 2], stride: [1, 3] }), '[3, 2] stride (1, 3)');
});

test('level of detail: a layout reads whole when its smallest text (12.5 units) fits at ≥ 11 px', () => {
  const pane = { width: 640, height: 540 };
  assert.ok(readsWhole({ width: 600, height: 500 }, pane));
  assert.ok(!readsWhole({ width: 2400, height: 500 }, pane));
  // 624 / 700 = 0.89 ≥ 11/12.5 = 0.88; 624 / 720 = 0.867 is not (titles would still be 13.9 px).
  assert.ok(readsWhole({ width: 700, height: 300 }, pane));
  assert.ok(!readsWhole({ width: 720, height: 300 }, pane));
  assert.ok(fitScale({ width: 720, height: 300 }, pane) * TITLE_PX >= 11);
  assert.equal(MIN_READABLE_K, 11 / 12.5);
});

test('camera: stays put when the boxes are visible, pans minimally, zooms out only if needed', () => {
  const size = { width: 600, height: 400 };
  const view = { x: 0, y: 0, k: 1 };
  assert.equal(panToInclude(view, [{ x: 50, y: 50, w: 100, h: 40 }], size), null);
  const v = panToInclude(view, [{ x: 650, y: 50, w: 100, h: 40 }], size);
  assert.equal(v.k, 1); assert.equal(v.y, 0);
  assert.ok(650 + v.x >= 12 && 750 + v.x <= 588, 'now inside');
  const z = panToInclude(view, [{ x: 0, y: 0, w: 100, h: 40 }, { x: 1000, y: 0, w: 100, h: 40 }], size);
  assert.ok(z.k < 1 && 1100 * z.k <= 576 + 1e-9);
  assert.deepEqual(unionBox([null, { x: 1, y: 2, w: 3, h: 4 }]), { x: 1, y: 2, w: 3, h: 4 });
  const f = fitView({ width: 1200, height: 400 }, size);
  assert.ok(f.k * 1200 <= 600 - 16 + 1e-9 && f.x >= 0);
});

test('an overview record of a node alone fits its name, drawn as the 16 px title', async () => {
  const { mergedRecord, TITLE_CHAR, LABEL_X } = await import('../../web/src/model/records.js');
  for (const name of ['AddmmBackward0', 'TBackward0', 'BackwardHookFunctionBackward']) {
    const { w } = mergedRecord(null, { name, preHooks: [], postHooks: [] });
    assert.ok(w >= name.length * TITLE_CHAR + 2 * LABEL_X, `${name}: ${w}`);
  }
});
