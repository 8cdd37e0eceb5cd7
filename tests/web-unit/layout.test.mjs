import test from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../web/src/model/trace-model.js';
import { buildLayoutInput, computeLayout, tensorBoxSize, nodeBoxSize, nodeHookLabel } from '../../web/src/model/layout.js';
import { video, module, full, tid } from './fixtures.mjs';

const videoGraph = video.graph; const videoTrace = video.trace; const moduleGraph = module.graph; const moduleTrace = module.trace;
const T = (name) => `t${tid(video, name)}`;
const node = (name) => videoGraph.tensors.find((t) => t.name === name).gradFn;

test('each tensor is a unit with its grad_fn / AccumulateGrad beside it', () => {
  const input = buildLayoutInput(analyze(videoGraph, videoTrace));
  const byId = Object.fromEntries(input.units.map((u) => [u.id, u]));
  assert.deepEqual(Object.keys(byId).sort(), ['a', 'b', 'c', 'd', 'e'].map(T).sort());
  const acc = (name) => videoGraph.nodes.find((n) => n.variable === tid(video, name)).id;
  assert.equal(byId[T('a')].node, acc('a')); assert.equal(byId[T('c')].node, node('c')); assert.equal(byId[T('e')].node, node('e'));
  assert.ok(byId[T('c')].w > byId[T('c')].tw, 'unit is wider than its tensor box');
});

test('layout edges go from inputs to outputs, without duplicates', () => {
  const input = buildLayoutInput(analyze(videoGraph, videoTrace));
  const edges = input.edges.map((e) => `${e.v}>${e.w}`).sort();
  assert.deepEqual(edges, [`${T('a')}>${T('c')}`, `${T('b')}>${T('c')}`, `${T('c')}>${T('e')}`, `${T('d')}>${T('e')}`].sort());
});

test('box heights grow with hook lists', () => {
  const t = videoGraph.tensors.find((x) => x.name === 'c');
  assert.ok(tensorBoxSize(t).h > tensorBoxSize({ ...t, hooks: [] }).h);
  const n = { name: 'MulBackward0', preHooks: [{}], postHooks: [] };
  assert.ok(nodeBoxSize(n).h > nodeBoxSize({ ...n, preHooks: [] }).h);
});

test('dagre places inputs above outputs and inside the graph size', () => {
  const input = buildLayoutInput(analyze(videoGraph, videoTrace));
  const L = computeLayout(input);
  assert.ok(L.pos[T('a')].y < L.pos[T('c')].y && L.pos[T('c')].y < L.pos[T('e')].y);
  for (const p of Object.values(L.pos)) assert.ok(p.x >= 0 && p.y >= 0 && p.x + p.w <= L.width + 1 && p.y + p.h <= L.height + 1);
});

test('modules become clusters around their units; collapsing replaces them by one box', () => {
  const m = analyze(moduleGraph, moduleTrace);
  const key = m.moduleCalls[0].key;
  const inner = moduleGraph.tensors.find((t) => t.name == null).id; const out = tid(module, 'out');
  const input = buildLayoutInput(m);
  assert.deepEqual(input.clusters.map((c) => c.id), [key]);
  assert.deepEqual(input.units.filter((u) => u.parent === key).map((u) => u.id).sort(), [`t${inner}`, `t${out}`].sort());
  const L = computeLayout(input);
  const c = L.clusters[key];
  for (const id of [`t${inner}`, `t${out}`]) assert.ok(L.pos[id].x >= c.x && L.pos[id].x + L.pos[id].w <= c.x + c.w + 1);
  const col = buildLayoutInput(m, { collapsed: new Set([key]) });
  assert.equal(col.clusters.length, 0);
  const ph = col.units.find((u) => u.placeholder === key);
  assert.equal(ph.members, 2);
  assert.equal(col.unitOfTensor[out], ph.id);
  assert.deepEqual(col.edges.map((e) => `${e.v}>${e.w}`).sort(), [`t${tid(module, 'x')}>c${key}`, `t${tid(module, 'y')}>c${key}`].sort());
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

test('module hook rows are labelled from the row\'s module field', () => {
  const rows = (r) => r.graph.nodes.flatMap((n) => [...n.preHooks, ...n.postHooks]);
  assert.deepEqual(rows(module).map(nodeHookLabel).sort(), ['boom', '⚠ legacy hook: legacyHook of Mul3']);
  assert.deepEqual(rows(full).map(nodeHookLabel), ['full backward hook: fullHook of Mul3']);
  assert.equal(nodeHookLabel({ kind: 'module-full-backward-pre', name: '', module: 'M' }), 'full backward pre-hook: <lambda> of M');
});

test('leaves feeding one node stand in the order of its inputs (p before q for p * q), across and down', () => {
  // The video's graph: c = a * b. Whatever order dagre picks, a comes first.
  for (const dir of ['TB', 'LR']) {
    const L = computeLayout({ ...buildLayoutInput(analyze(videoGraph, videoTrace)), dir });
    const cross = dir === 'LR' ? 'y' : 'x';
    assert.ok(L.pos[T('a')][cross] < L.pos[T('b')][cross], `${dir}: a before b`);
  }
  // Three leaves into one node, given to dagre in reverse: still drawn u, v, w.
  const input = {
    dir: 'LR', lod: 'full', clusters: [],
    units: ['w', 'v', 'u', 'm'].map((id) => ({ id, w: 120, h: 40, parent: null })),
    edges: ['u', 'v', 'w'].map((v) => ({ v, w: 'm', kind: 'next' })),
  };
  const L = computeLayout(input);
  assert.ok(L.pos.u.y < L.pos.v.y && L.pos.v.y < L.pos.w.y, JSON.stringify(L.pos));
  for (const id of ['u', 'v']) assert.ok(L.pos[id].y + L.pos[id].h <= L.pos[id === 'u' ? 'v' : 'w'].y, 'no overlap');
});
