// Pure figure geometry: where warning/error pins and edge value labels go.
import test from 'node:test';
import assert from 'node:assert/strict';
import { wrapText, placePins, figureBounds } from '../../web/src/model/pins.js';
import { fitView } from '../../web/src/model/camera.js';
import { cubicAt, labelPoint, placeLabels } from '../../web/src/model/edge-labels.js';

const overlaps = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

test('wrapText breaks at spaces, cuts an over-long word, and ends a cut message with …', () => {
  assert.deepEqual(wrapText('the size of tensor a must match', 12), ['the size of', 'tensor a', 'must match']);
  assert.deepEqual(wrapText('abcdefghij', 4), ['abcd', 'efgh', 'ij']);
  assert.deepEqual(wrapText('one two three four five six', 7, 2), ['one two', 'three…']);
  assert.deepEqual(wrapText('', 10), ['']);
});

test('pins sit above the layout, never over a box, each with a leader to its box', () => {
  // Two boxes in the layout's top row (y = 8, the layout's margin), as in a forward error on a.mul(b).
  const a = { x: 8, y: 8, w: 120, h: 60 }; const b = { x: 150, y: 8, w: 150, h: 60 };
  const msg = 'The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0';
  const pins = [{ level: 'error', message: msg, tensor: 2 }, { level: 'warning', message: 'short', tensor: 1 }];
  const placed = placePins(pins, (p) => (p.tensor === 2 ? b : a), { textWidth: (t) => t.length * 6 });
  for (const p of placed) {
    assert.ok(p.y + p.h <= 8, `pin ends above the top row (y + h = ${p.y + p.h})`);
    assert.ok(!overlaps(p, a) && !overlaps(p, b));
    assert.ok(p.x >= 0, 'not left of the figure');
  }
  const [err, warn] = placed;
  assert.equal(err.lines.length, 3); // 2 + 90 characters at 40 a line
  assert.equal(err.h, 3 * 16 + 12); // 16-unit lines (12.5-px text), 6 above and below
  assert.equal(err.w, Math.max(...err.lines.map((l) => l.length)) * 6 + 20);
  // Its right end is over b's right edge + 10, unless that would put it left of 0.
  assert.equal(err.x, Math.max(0, 150 + 150 + 10 - err.w));
  // The leader runs from the pin's bottom to the top of its box, inside both.
  assert.equal(err.leader.y1, err.y + err.h); assert.equal(err.leader.y2, b.y);
  assert.ok(err.leader.x2 >= b.x && err.leader.x2 <= b.x + b.w);
  assert.ok(err.leader.x1 >= err.x && err.leader.x1 <= err.x + err.w);
  // The warning overlaps the error horizontally, so it goes a row up.
  assert.ok(overlaps({ ...warn, y: err.y }, err), 'they would overlap in one row');
  assert.ok(warn.y + warn.h <= err.y, 'a row above');
});

test('pins that do not overlap share a row; a pin pointing at nothing has no leader', () => {
  const boxes = [{ x: 0, y: 8, w: 100, h: 40 }, { x: 400, y: 8, w: 100, h: 40 }];
  const pins = [{ level: 'warning', message: 'a', node: 0 }, { level: 'warning', message: 'b', node: 1 }, { level: 'error', message: 'c', node: null }];
  const placed = placePins(pins, (p) => boxes[p.node] || null);
  assert.equal(placed[0].y, placed[1].y);
  assert.equal(placed[2].leader, null);
});

test('compact: a box\'s pins are badges on its top-right corner, right to left', () => {
  const box = { x: 100, y: 50, w: 80, h: 30 };
  const placed = placePins([{ level: 'warning', message: 'x' }, { level: 'error', message: 'y' }], () => box, { compact: true });
  // Radius 9 (a 12.5-px icon): the first centred 9 in from the corner (171, 50), the next 2·9 + 2 to its left.
  assert.deepEqual(placed.map((p) => [p.x, p.y, p.w, p.h]), [[162, 41, 18, 18], [142, 41, 18, 18]]);
  assert.deepEqual(placed.map((p) => p.lines[0]), ['⚠', '✖']);
});

test('Fit shows the pins: the figure\'s bounds grow to hold them', () => {
  const layout = { width: 300, height: 80 };
  const placed = [{ x: 0, y: -60, w: 420, h: 54 }];
  const bounds = figureBounds(layout, placed);
  assert.deepEqual(bounds, { x: 0, y: -60, width: 420, height: 140 });
  const size = { width: 600, height: 400 };
  const v = fitView(bounds, size);
  // Every corner of the bounds lands inside the pane (margin 8).
  for (const [x, y] of [[0, -60], [420, 80]]) {
    assert.ok(x * v.k + v.x >= 8 - 1e-9 && x * v.k + v.x <= 592 + 1e-9, `x ${x}`);
    assert.ok(y * v.k + v.y >= 8 - 1e-9 && y * v.k + v.y <= 392 + 1e-9, `y ${y}`);
  }
  assert.deepEqual(figureBounds(layout), { x: 0, y: 0, width: 300, height: 80 });
});

test('a value label leaves the middle of its edge when a box is there, and keeps off other labels', () => {
  // A straight vertical curve from (50, 200) up to (50, 0); a box covers y 80..120 around its middle.
  const c = [50, 200, 50, 150, 50, 50, 50, 0];
  assert.deepEqual(cubicAt(c, 0.5), { x: 50, y: 100 });
  const box = { x: 0, y: 80, w: 100, h: 40 };
  const p = labelPoint(c, [box]);
  assert.ok(p.y + 9.5 + 2 <= 80 || p.y - 9.5 - 2 >= 120, `clear of the box: y ${p.y}`);
  // With nothing in the way it is the midpoint; the ends' own boxes do not count.
  assert.deepEqual(labelPoint(c, [{ x: 0, y: 200, w: 100, h: 30 }, { x: 0, y: -30, w: 100, h: 30 }]), { x: 50, y: 100 });
  // Two edges along the same curve: the second label moves off the first.
  const at = placeLabels([{ key: 'a', c, next: true }, { key: 'b', c, next: true }, { key: 'op', c, next: false }], []);
  assert.equal(at.size, 2);
  assert.ok(!overlaps(at.get("a").box, at.get("b").box), "labels do not overlap");
});

test('a curve that runs through a box end to end puts its label on the box\'s lower rows, not its title', () => {
  const c = [50, 200, 50, 150, 50, 50, 50, 0];
  const box = { x: 0, y: 10, w: 100, h: 180 }; // covers every candidate point
  const p = labelPoint(c, [box]);
  assert.ok(p.y - 9.5 - 2 >= box.y + 22, `below the title row: y ${p.y}`);
});

test('a wide label stays off the title of its own edge\'s end box', () => {
  // An almost flat edge from inside a box (its end) out to the right; the
  // midpoint of the curve lies in that box's title row.
  const c = [150, 100, 200, 100, 260, 98, 320, 96];
  const end = { x: 0, y: 88, w: 220, h: 40 };
  const w = 200; // a wide matrix value
  const p = labelPoint(c, [end], [], w);
  const label = { x: p.x - w / 2, y: p.y - 9.5, w, h: 19 };
  const title = { x: end.x, y: end.y, w: end.w, h: 22 };
  assert.ok(!overlaps(label, title), `label ${JSON.stringify(label)} clear of the title ${JSON.stringify(title)}`);
});
