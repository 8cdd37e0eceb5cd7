import test from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../web/src/model/trace-model.js';
import { buildLayoutInput, computeLayout, tensorBoxSize, nodeBoxSize } from '../../web/src/model/layout.js';
import { videoGraph, videoTrace, moduleGraph, moduleTrace } from './fixtures.mjs';

test('each tensor is a unit with its grad_fn / AccumulateGrad beside it', () => {
  const input = buildLayoutInput(analyze(videoGraph, videoTrace));
  const byId = Object.fromEntries(input.units.map((u) => [u.id, u]));
  assert.deepEqual(Object.keys(byId).sort(), ['t1', 't2', 't3', 't4', 't5']);
  assert.equal(byId.t1.node, 11); assert.equal(byId.t3.node, 10); assert.equal(byId.t5.node, 13);
  assert.ok(byId.t3.w > byId.t3.tw, 'unit is wider than its tensor box');
});

test('layout edges go from inputs to outputs, without duplicates', () => {
  const input = buildLayoutInput(analyze(videoGraph, videoTrace));
  const edges = input.edges.map((e) => `${e.v}>${e.w}`).sort();
  assert.deepEqual(edges, ['t1>t3', 't2>t3', 't3>t5', 't4>t5']);
});

test('box heights grow with hook lists', () => {
  const t = videoGraph.tensors[2];
  assert.ok(tensorBoxSize(t).h > tensorBoxSize({ ...t, hooks: [] }).h);
  const n = { name: 'MulBackward0', preHooks: [{}], postHooks: [] };
  assert.ok(nodeBoxSize(n).h > nodeBoxSize({ ...n, preHooks: [] }).h);
});

test('dagre places inputs above outputs and inside the graph size', () => {
  const input = buildLayoutInput(analyze(videoGraph, videoTrace));
  const L = computeLayout(input);
  assert.ok(L.pos.t1.y < L.pos.t3.y && L.pos.t3.y < L.pos.t5.y);
  for (const p of Object.values(L.pos)) assert.ok(p.x >= 0 && p.y >= 0 && p.x + p.w <= L.width + 1 && p.y + p.h <= L.height + 1);
});

test('modules become clusters around their units; collapsing replaces them by one box', () => {
  const m = analyze(moduleGraph, moduleTrace);
  const input = buildLayoutInput(m);
  assert.deepEqual(input.clusters.map((c) => c.id), ['m1.1']);
  assert.deepEqual(input.units.filter((u) => u.parent === 'm1.1').map((u) => u.id).sort(), ['t3', 't4']);
  const L = computeLayout(input);
  const c = L.clusters['m1.1'];
  for (const id of ['t3', 't4']) assert.ok(L.pos[id].x >= c.x && L.pos[id].x + L.pos[id].w <= c.x + c.w + 1);
  const col = buildLayoutInput(m, { collapsed: new Set(['m1.1']) });
  assert.equal(col.clusters.length, 0);
  const ph = col.units.find((u) => u.placeholder === 'm1.1');
  assert.equal(ph.members, 2);
  assert.equal(col.unitOfTensor[4], ph.id);
  assert.deepEqual(col.edges.map((e) => `${e.v}>${e.w}`).sort(), ['t1>cm1.1', 't2>cm1.1']);
  computeLayout(col);
});

test('a 500-node chain lays out (the page does this in a worker)', () => {
  const tensors = []; const nodes = []; const trace = [];
  for (let i = 1; i <= 250; i++) {
    tensors.push({ id: i, name: `t${i}`, shape: [], data: i, requiresGrad: true, isLeaf: i === 1, retainsGrad: false, gradFn: i === 1 ? null : 1000 + i, grad: null, hooks: [] });
    nodes.push({ id: 1000 + i, name: i === 1 ? 'AccumulateGrad' : 'MulBackward0', next: i === 1 ? [] : [{ node: 1000 + i - 1, inputNr: 0 }], variable: i === 1 ? 1 : null, preHooks: [], postHooks: [] });
    if (i > 1) trace.push({ type: 'op', node: 1000 + i, name: 'mul', inputs: [i - 1], output: i });
  }
  const t0 = Date.now();
  const L = computeLayout(buildLayoutInput(analyze({ tensors, nodes }, trace)));
  assert.equal(Object.keys(L.pos).length, 250);
  assert.ok(Date.now() - t0 < 20000);
});
