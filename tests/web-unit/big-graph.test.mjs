// Pure parts of the big-graph view: the layered layout (layered.js), label
// placement of the canvas overview, search matching, minimap geometry.
// Expected values are worked out by hand from the small inputs below.
import test from 'node:test';
import assert from 'node:assert/strict';
import { layeredLayout, rankUnits, foldRanks } from '../../web/src/model/layered.js';
import { placeLabels } from '../../web/src/view/overview-canvas.js';
import { findMatches } from '../../web/src/view/search.js';
import { minimapGeometry, showsWhole, minimapSide } from '../../web/src/view/minimap.js';

/** A chain of n adds, each with a leaf: x0 → s1 ← x1, s1 → s2 ← x2, … (the 2,000-node test's shape). */
function chain(n) {
  const units = [{ id: 'x0', w: 80, h: 46 }]; const edges = []; let prev = 'x0';
  for (let i = 1; i < n; i++) {
    units.push({ id: `x${i}`, w: 80, h: 46 }, { id: `s${i}`, w: 110, h: 46 });
    edges.push({ v: prev, w: `s${i}` }, { v: `x${i}`, w: `s${i}` }); prev = `s${i}`;
  }
  return { units, edges, clusters: [] };
}

const overlap = (a, b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

test('ranks: longest path from the inputs; a leaf sits one rank above its consumer', () => {
  // 0 → 2, 1 → 2, 2 → 3, 4 → 3 (4 is a leaf consumed by 3)
  const succ = [[2], [2], [3], [], [3]]; const pred = [[], [], [0, 1], [2, 4], []];
  assert.deepEqual([...rankUnits(5, succ, pred)], [0, 0, 1, 2, 1]);
});

test('a 1,000-add chain: no overlaps, leaves beside their add, folded to the pane’s shape', () => {
  const input = chain(1000);
  const L = layeredLayout(input, { aspect: 640 / 540 });
  const boxes = Object.values(L.pos);
  assert.equal(boxes.length, input.units.length);
  // Boxes of one rank never overlap (checked pairwise within rows of equal y).
  const rows = new Map(); for (const b of boxes) { const k = Math.round(b.y); if (!rows.has(k)) rows.set(k, []); rows.get(k).push(b); }
  for (const row of rows.values()) for (let i = 0; i < row.length; i++) for (let j = i + 1; j < row.length; j++) assert.ok(!overlap(row[i], row[j]), 'overlapping boxes');
  // s_i is exactly one rank (46 + 28 px) below s_{i-1} inside a column: no sideways drift.
  assert.equal(L.pos.s2.y - L.pos.s1.y, 74);
  assert.equal(L.pos.s2.x, L.pos.s1.x);
  // Folded: the whole figure is neither a hairline nor a strip (the pane is 640 × 540).
  const ratio = L.width / L.height;
  assert.ok(ratio > 0.5 && ratio < 2.5, `aspect ${ratio.toFixed(2)}`);
});

test('folding prefers module boundaries', () => {
  // 12 ranks of equal size; a module changes at rank 5: two columns cut at 5, not at 6.
  const w = new Array(12).fill(100); const h = new Array(12).fill(46);
  const starts = foldRanks(w, h, 0.55, [5]);
  assert.deepEqual(starts, [0, 5]);
});

test('a module folded over two columns gets a frame in each', () => {
  const input = chain(300);
  for (const u of input.units) u.parent = 'm1.1';
  input.clusters = [{ id: 'm1.1', parent: null }];
  const L = layeredLayout(input, { aspect: 2 });
  const frames = [L.clusters['m1.1'], ...(L.clusterParts['m1.1'] || [])];
  assert.ok(frames.length > 1);
  for (const b of Object.values(L.pos)) assert.ok(frames.some((f) => b.x >= f.x && b.y >= f.y && b.x + b.w <= f.x + f.w && b.y + b.h <= f.y + f.h), 'a box outside its module');
});

test('labels: by priority, never overlapping, and off-screen boxes get none', () => {
  const items = [
    { title: 'loss', box: { x: 0, y: 0, w: 10, h: 10 }, prio: 90 },
    { title: 'near', box: { x: 2, y: 1, w: 10, h: 10 }, prio: 10 }, // same place: loses to loss
    { title: 'far', box: { x: 300, y: 0, w: 10, h: 10 }, prio: 10 },
    { title: 'gone', box: { x: 5000, y: 0, w: 10, h: 10 }, prio: 99 },
  ].sort((a, b) => b.prio - a.prio);
  const placed = placeLabels(items, { x: 20, y: 20, k: 1 }, { width: 400, height: 200 });
  assert.deepEqual(placed.map((p) => p.item.title), ['loss', 'far']);
  // At most maxGeneric unnamed ("generic") labels.
  const many = Array.from({ length: 10 }, (_, i) => ({ title: 'AddBackward0', generic: true, box: { x: i * 200, y: 0, w: 10, h: 10 }, prio: 0 }));
  assert.equal(placeLabels(many, { x: 0, y: 20, k: 1 }, { width: 3000, height: 100 }, { maxGeneric: 3 }).length, 3);
});

test('search: exact name first, then prefix, then substring; case-insensitive', () => {
  const idx = [{ label: 'x10' }, { label: 'x1' }, { label: 'ax1' }, { label: 'X100' }, { label: 'loss' }];
  assert.deepEqual(findMatches(idx, 'X1').map((e) => e.label), ['x1', 'x10', 'X100', 'ax1']);
  assert.deepEqual(findMatches(idx, '  '), []);
  assert.deepEqual(findMatches(idx, 'nothing'), []);
});

test('minimap: fits 168 × 120 keeping the aspect; hidden only when the view shows everything', () => {
  const g = minimapGeometry({ width: 4000, height: 1000 });
  assert.equal(g.s, 168 / 4000); assert.equal(g.w, 168); assert.equal(g.h, 42);
  const layout = { width: 1000, height: 500 };
  assert.ok(showsWhole(layout, { x: 10, y: 10, k: 0.5 }, { width: 600, height: 300 }));
  assert.ok(!showsWhole(layout, { x: 10, y: 10, k: 1 }, { width: 600, height: 300 }));
});

test('the minimap moves to the other bottom corner rather than cover what the step is about, and stays put otherwise', () => {
  // A 600×300 pane at scale 1, the view at the origin; a 168×120 minimap (right: x 424–592, y 172–292).
  const geo = { w: 168, h: 120 }; const view = { x: 0, y: 0, k: 1 }; const size = { width: 600, height: 300 };
  const underRight = { x: 500, y: 250, w: 60, h: 20 };
  const underLeft = { x: 20, y: 250, w: 60, h: 20 };
  const top = { x: 300, y: 20, w: 60, h: 20 };
  assert.equal(minimapSide('right', geo, view, size, [top]), 'right');
  assert.equal(minimapSide('right', geo, view, size, [underRight]), 'left');
  assert.equal(minimapSide('left', geo, view, size, [underRight]), 'left', 'stays left while the right is busy');
  assert.equal(minimapSide('left', geo, view, size, [underLeft]), 'right');
  assert.equal(minimapSide('right', geo, view, size, [underRight, underLeft]), 'right', 'both covered: it does not jump');
  // Graph coordinates go through the view: at k = 2 shifted by -400, graph x 450 is screen x 500.
  assert.equal(minimapSide('right', geo, { x: -400, y: 0, k: 2 }, size, [{ x: 450, y: 125, w: 10, h: 10 }]), 'left');
});
