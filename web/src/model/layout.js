// Pure layout: analyzed model → dagre input → positions. Runs on the main
// thread for small graphs and in layout-worker.js for large ones.
//
// Like the 2021 video's diagrams, each tensor is drawn with its backward node
// (grad_fn, or AccumulateGrad for a leaf) right beside it, so a "unit" is a
// tensor box + node box. Layout edges go from inputs to outputs; the view
// draws next_functions edges between the node boxes on top of that.
import * as dagre from '@dagrejs/dagre';

import { tensorRecord, nodeRecord, mergedRecord, GAP } from './records.js';
import { layeredLayout } from './layered.js';
import { widestShown } from './shown-values.js';

/**
 * Above this many units a graph is "big": laid out by layered.js (dagre
 * takes ~10 s for 2,000 units and overflows its stack on a 1,000-op chain)
 * and drawn as a canvas overview with SVG records only near the view.
 */
export const BIG_UNITS = 400;

/** The layout for an input: dagre up to BIG_UNITS units, layered.js above (and when dagre fails). */
export function layoutFor(input) {
  // `fold`: a long chain folded into columns shaped like the pane (layered.js),
  // for small graphs that dagre draws too tall or too wide to read whole.
  if (input.units.length > BIG_UNITS || input.fold) return layeredLayout(input, { aspect: input.aspect || 1.3 });
  try { return computeLayout(input); } catch { return layeredLayout(input, { aspect: input.aspect || 1.3 }); }
}

export { GAP };
/** Box sizes of the records (records.js); `lod` is 'full' or 'compact'. */
export const tensorBoxSize = (t, lod = 'full', shown = null) => tensorRecord(t, lod, shown);
export const nodeBoxSize = (n, lod = 'full', shown = null) => nodeRecord(n, lod, shown);

/** Text of a node's hook row; a module's hook rows carry the module's name. */
export function nodeHookLabel(h) {
  const fn = h.name || '<lambda>';
  const name = h.module != null ? `${fn} of ${h.module}` : fn;
  return h.kind === 'module-backward' ? `⚠ legacy hook: ${name}`
    : h.kind === 'module-full-backward' ? `full backward hook: ${name}`
      : h.kind === 'module-full-backward-pre' ? `full backward pre-hook: ${name}` : name;
}

/**
 * Builds the layout input. `collapsed` is a set of module-call keys drawn as
 * a single box. Returns { units, edges, clusters }.
 */
export function buildLayoutInput(model, { collapsed = new Set(), lod = 'full', dir = 'TB' } = {}) {
  const units = new Map(); const unitOfNode = new Map(); const unitOfTensor = new Map();
  // Boxes wide enough for the short values they will show over the run.
  const shown = lod === 'full' ? widestShown(model) : null;
  for (const t of model.tensors.values()) {
    const pairId = t.gradFn != null && model.tensorOfNode.get(t.gradFn) === t.id ? t.gradFn : model.accOf.get(t.id) ?? null;
    const pair = pairId != null ? model.nodes.get(pairId) : null;
    const id = `t${t.id}`;
    if (lod === 'compact') {
      const m = mergedRecord(t, pair);
      units.set(id, { id, tensor: t.id, node: pair ? pair.id : null, tw: m.w, th: m.h, nw: 0, nh: 0, w: m.w, h: m.h, parent: null });
    } else {
      const tb = tensorBoxSize(t, lod, shown); const nb = pair ? nodeBoxSize(pair, lod, shown) : { w: 0, h: 0 };
      units.set(id, { id, tensor: t.id, node: pair ? pair.id : null, tw: tb.w, th: tb.h, nw: nb.w, nh: nb.h, w: tb.w + (pair ? GAP + nb.w : 0), h: Math.max(tb.h, nb.h), parent: null });
    }
    unitOfTensor.set(t.id, id); if (pair) unitOfNode.set(pair.id, id);
  }
  for (const n of model.nodes.values()) {
    if (unitOfNode.has(n.id)) continue;
    const nb = lod === 'compact' ? mergedRecord(null, n) : nodeBoxSize(n, lod, shown); const id = `n${n.id}`;
    units.set(id, { id, tensor: null, node: n.id, tw: 0, th: 0, nw: nb.w, nh: nb.h, w: nb.w, h: nb.h, parent: null });
    unitOfNode.set(n.id, id);
  }
  // Module calls → clusters; a unit belongs to the innermost call that created it.
  const calls = new Map(model.moduleCalls.map((c) => [c.key, c]));
  const clusters = [];
  for (const c of model.moduleCalls) {
    clusters.push({ id: c.key, label: c.label ?? c.name, name: c.name, moduleId: c.moduleId, parent: c.parent, collapsed: collapsed.has(c.key) });
    for (const tid of c.tensors) { const u = units.get(unitOfTensor.get(tid)); if (u && !u.parent) u.parent = c.key; }
    for (const nid of c.nodes) { const u = units.get(unitOfNode.get(nid)); if (u && !u.parent) u.parent = c.key; }
  }
  // The outermost collapsed ancestor of a cluster, if any.
  const collapsedRoot = (key) => {
    let found = null;
    for (let k = key; k; k = calls.get(k)?.parent) if (collapsed.has(k)) found = k;
    return found;
  };
  const remap = new Map();
  for (const u of units.values()) {
    const root = u.parent ? collapsedRoot(u.parent) : null;
    if (root) {
      const pid = `c${root}`;
      if (!units.has(pid)) units.set(pid, { id: pid, placeholder: root, tensor: null, node: null, w: Math.max(150, Math.round((calls.get(root).label || calls.get(root).name || '').length * 8.6 + 40)), h: 50, parent: calls.get(root).parent && !collapsedRoot(calls.get(root).parent) ? calls.get(root).parent : null, members: 0 });
      units.get(pid).members++;
      remap.set(u.id, pid);
    }
  }
  for (const id of remap.keys()) units.delete(id);
  const R = (id) => remap.get(id) ?? id;
  const seen = new Set(); const edges = [];
  const addEdge = (v, w, kind) => {
    v = R(v); w = R(w);
    if (!v || !w || v === w || !units.has(v) || !units.has(w)) return;
    const key = `${v}>${w}`; if (seen.has(key)) return; seen.add(key); edges.push({ v, w, kind });
  };
  for (const n of model.nodes.values()) for (const e of n.next || []) if (e.node != null) addEdge(unitOfNode.get(e.node), unitOfNode.get(n.id), 'next');
  for (const ev of model.trace) if (ev.type === 'op') for (const i of ev.inputs || []) addEdge(unitOfTensor.get(i), unitOfTensor.get(ev.output), 'op');
  const visibleClusters = clusters.filter((c) => !collapsedRoot(c.id));
  return { lod, dir, units: [...units.values()], edges, clusters: visibleClusters, unitOfNode: Object.fromEntries([...unitOfNode].map(([k, v]) => [k, R(v)])), unitOfTensor: Object.fromEntries([...unitOfTensor].map(([k, v]) => [k, R(v)])) };
}

/** Up to this many units, computeLayout also tries dagre's up-left alignment (a few ms each). */
const NARROW_TRY_UNITS = 40;

/**
 * Runs dagre on a layout input (plain data in, plain data out). A small
 * graph is laid out twice, with dagre's balanced alignment and with its
 * up-left one, and keeps the narrower across (when it saves at least 5%):
 * the balanced one often shifts a rank sideways by half a box (lesson 1:
 * 865 → 742 units wide), and a narrower figure is drawn larger, so its
 * text reads (issue 32: every text ≥ 11 px on screen).
 */
export function computeLayout(input) {
  const first = dagreLayout(input);
  if (input.units.length > NARROW_TRY_UNITS) return first;
  const across = (L) => (input.dir === 'LR' ? L.height : L.width);
  let other = null;
  try { other = dagreLayout(input, 'UL'); } catch { return first; }
  return across(other) < 0.95 * across(first) ? other : first;
}

function dagreLayout(input, align = undefined) {
  const g = new dagre.graphlib.Graph({ compound: true, multigraph: false });
  const compact = input.lod === 'compact';
  g.setGraph({ rankdir: input.dir === 'LR' ? 'LR' : 'TB', nodesep: compact ? 16 : 18, ranksep: compact ? 28 : 34, marginx: 10, marginy: 10, ...(align ? { align } : {}) });
  g.setDefaultEdgeLabel(() => ({}));
  for (const c of input.clusters) g.setNode(c.id, { label: c.label, paddingTop: 26 });
  for (const c of input.clusters) if (c.parent && input.clusters.some((p) => p.id === c.parent)) g.setParent(c.id, c.parent);
  for (const u of input.units) g.setNode(u.id, { width: u.w, height: u.h });
  for (const u of input.units) if (u.parent && g.hasNode(u.parent)) g.setParent(u.id, u.parent);
  for (const e of input.edges) g.setEdge(e.v, e.w);
  // Empty clusters confuse dagre: drop them.
  for (const c of input.clusters) if (!(g.children(c.id) || []).length) g.removeNode(c.id);
  dagre.layout(g);
  const pos = {};
  for (const u of input.units) { const n = g.node(u.id); pos[u.id] = { x: n.x - u.w / 2, y: n.y - u.h / 2, w: u.w, h: u.h }; }
  const clusters = {};
  for (const c of input.clusters) if (g.hasNode(c.id)) { const n = g.node(c.id); clusters[c.id] = { x: n.x - n.width / 2, y: n.y - n.height / 2 - 10, w: n.width, h: n.height + 10 }; }
  orderLeafInputs(input, pos);
  return normalize(pos, clusters);
}

/**
 * Leaves that feed one node are drawn in the order of its inputs: p above q
 * for `p * q`, as the code and the lessons' tables list them. Dagre's
 * crossing minimisation leaves their order to chance (it drew q above p).
 * Only leaves whose one consumer is that node move, and only when they stand
 * together in one rank with nothing between them, so no edge crosses anew.
 */
export function orderLeafInputs(input, pos) {
  const cross = input.dir === 'LR' ? 'y' : 'x'; const along = cross === 'y' ? 'x' : 'y';
  const size = cross === 'y' ? 'h' : 'w'; const depth = cross === 'y' ? 'w' : 'h';
  const succ = new Map(); const preds = new Map();
  for (const e of input.edges) {
    if (!succ.has(e.v)) succ.set(e.v, []); succ.get(e.v).push(e.w);
    if (!preds.has(e.w)) preds.set(e.w, []); preds.get(e.w).push(e.v);
  }
  const mid = (b) => b[along] + b[depth] / 2;
  for (const inputs of preds.values()) {
    const group = inputs.filter((v) => !preds.has(v) && succ.get(v).length === 1 && pos[v]);
    if (group.length < 2) continue;
    const m = mid(pos[group[0]]);
    if (group.some((v) => Math.abs(mid(pos[v]) - m) > 1)) continue; // not one rank
    const slots = group.map((v) => pos[v]).sort((a, b) => a[cross] - b[cross]);
    const lo = slots[0][cross]; const hi = slots.at(-1)[cross] + slots.at(-1)[size];
    const inGroup = new Set(group);
    const between = Object.entries(pos).some(([id, b]) => !inGroup.has(id) && b[along] <= m && b[along] + b[depth] >= m && b[cross] < hi && b[cross] + b[size] > lo);
    if (between) continue;
    const gaps = slots.slice(1).map((b, i) => b[cross] - (slots[i][cross] + slots[i][size]));
    let at = lo;
    group.forEach((v, i) => { pos[v][cross] = at; at += pos[v][size] + (gaps[i] ?? 0); });
  }
}

/** Shifts everything so the drawing starts at (M, M); width/height cover every box and cluster. */
function normalize(pos, clusters, M = 8) {
  const boxes = [...Object.values(pos), ...Object.values(clusters)];
  if (!boxes.length) return { pos, clusters, width: 0, height: 0 };
  let x0 = Infinity; let y0 = Infinity; let x1 = -Infinity; let y1 = -Infinity;
  for (const b of boxes) { x0 = Math.min(x0, b.x); y0 = Math.min(y0, b.y); x1 = Math.max(x1, b.x + b.w); y1 = Math.max(y1, b.y + b.h); }
  const dx = M - x0; const dy = M - y0;
  for (const b of boxes) { b.x += dx; b.y += dy; }
  return { pos, clusters, width: x1 - x0 + 2 * M, height: y1 - y0 + 2 * M };
}
