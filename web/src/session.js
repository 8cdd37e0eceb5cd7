// Turns a worker result into everything the views need: the analyzed model,
// the layout (off the main thread for big graphs) and console reveal steps.
import { analyze, consoleLines, runPins } from './model/trace-model.js';
import { placePins, figureBounds } from './model/pins.js';
import { buildLayoutInput, layoutFor, BIG_UNITS } from './model/layout.js';
import { readsWhole, fitScale } from './model/records.js';

export const WORKER_LAYOUT_UNITS = 120;
let layoutWorker = null; let layoutSeq = 0;

/** Lays out in a worker when the graph is large, synchronously otherwise. */
export function layoutAsync(input) {
  if (input.units.length < WORKER_LAYOUT_UNITS || typeof Worker !== 'function') return Promise.resolve(layoutFor(input));
  layoutWorker ||= new Worker(new URL('./workers/layout-worker.js', import.meta.url), { type: 'module' });
  const id = ++layoutSeq;
  return new Promise((resolve, reject) => {
    const onMsg = (ev) => {
      if (ev.data.id !== id) return;
      layoutWorker.removeEventListener('message', onMsg);
      if (ev.data.error) reject(new Error(ev.data.error)); else resolve(ev.data.layout);
    };
    layoutWorker.addEventListener('message', onMsg);
    layoutWorker.postMessage({ id, input });
  });
}

let warmed = false; let warmLeft = [];
/**
 * Runs the layout code on a few boxes that are never drawn (a chain and a
 * fork: top-down, left-to-right, folded), so its first real use does not
 * pay for compiling it: on a cold page dagre's first layout takes several
 * times the next one (bench/PROFILE.md, "First graph"). The controller
 * calls it while the first run is in the sandbox and the page waits. One
 * layout per idle callback, none once a run's result is being laid out
 * (buildSession). Nothing
 * of it reaches the figure: that is laid out from the run.
 */
export function warmLayout() {
  if (warmed) return;
  warmed = true;
  const box = (i) => ({ id: `w${i}`, tensor: i, node: i, tw: 100, th: 60, nw: 140, nh: 32, w: 248, h: 60, parent: null });
  const units = [1, 2, 3, 4].map(box);
  const edges = [{ v: 'w1', w: 'w3', kind: 'next' }, { v: 'w2', w: 'w3', kind: 'next' }, { v: 'w3', w: 'w4', kind: 'next' }];
  warmLeft = [{ dir: 'TB' }, { dir: 'LR' }, { dir: 'TB', fold: true, aspect: 1.3 }];
  // In idle time only: a message from the sandbox (files to hand in, the
  // result) never waits behind a warm-up that had not started.
  const later = (f) => (typeof requestIdleCallback === 'function' ? requestIdleCallback(f) : setTimeout(f, 0));
  const next = () => {
    const extra = warmLeft.shift();
    if (!extra) return;
    try { layoutFor({ lod: 'full', units, edges, clusters: [], ...extra }); } catch { /* only a warm-up */ }
    if (warmLeft.length) later(next);
  };
  later(next);
}

/** Lets the page handle input and paint between two pieces of work (each stays a short task). */
export const yieldToPage = () => new Promise((resolve) => { setTimeout(resolve, 0); });

/** Hook handles of legacy module backward hooks → module name (for highlighting). */
export function legacyHandles(model) {
  const m = new Map();
  for (const ev of model.trace) {
    if (ev.type === 'hook' && ev.kind === 'module-backward') {
      const call = model.moduleCalls.find((c) => c.moduleId === ev.moduleId);
      m.set(ev.handle, call?.name ?? String(ev.module ?? 'module'));
    }
  }
  for (const n of model.nodes.values()) for (const h of [...(n.preHooks || []), ...(n.postHooks || [])]) {
    if (h.kind === 'module-backward' && !m.has(h.handle)) m.set(h.handle, 'module');
  }
  return m;
}

/**
 * Level of detail for the first view: full records if the whole graph reads
 * in the pane (every text ≥ 11 px, records.readsWhole), else compact records (titles only), else
 * compact with the outermost modules collapsed. Big graphs (laid out in the
 * worker) go straight to compact. `keep`: the lesson's module name, collapsed
 * last. Returns { input, layout, collapsed }.
 */
export async function chooseLayout(model, { collapsed = new Set(), pane = null, keep = null } = {}) {
  const big = model.tensors.size + model.nodes.size >= 2 * WORKER_LAYOUT_UNITS;
  // Full records first, then the merged overview; top-down, then left-to-right
  // (many leaves make a wide graph: LR stacks them); finally modules collapsed.
  const hasChild = new Set(model.moduleCalls.map((c) => c.parent).filter(Boolean));
  // Innermost module calls, largest first: collapsed one by one until the figure reads.
  const size = (c) => c.tensors.size + c.nodes.size;
  // The lesson's module (`keep`, its first call above all) is collapsed last: it holds the lesson's key node.
  const firstKept = model.moduleCalls.find((c) => c.name === keep);
  const rankOf = (c) => (c === firstKept ? 2 : c.name === keep ? 1 : 0);
  const inner = model.moduleCalls.filter((c) => !hasChild.has(c.key)).sort((a, b) => rankOf(a) - rankOf(b) || size(b) - size(a));
  const sets = [new Set(collapsed)];
  for (const c of inner) { const s = new Set(sets[sets.length - 1]); s.add(c.key); sets.push(s); }
  const top = new Set(collapsed); for (const c of model.moduleCalls) if (!c.parent) top.add(c.key);
  if (hasChild.size) sets.push(top);
  // A big graph gets one layout, in the worker (layered.js above BIG_UNITS, fast),
  // shaped for the pane: its overview reads at any size (overview-canvas.js).
  if (big) {
    const input = buildLayoutInput(model, { collapsed: sets[0], lod: 'compact', dir: 'TB' });
    if (pane?.width > 0 && pane?.height > 0) input.aspect = pane.width / pane.height;
    await yieldToPage();
    return { input, layout: await layoutAsync(input), collapsed: sets[0] };
  }
  // dagre top-down and left-to-right; then the same records folded into
  // columns shaped like the pane (a long chain, e.g. a double backward).
  const fold = pane?.width > 0 && pane?.height > 0;
  const tries = [['full', sets[0], 'TB'], ['full', sets[0], 'LR'], ...(fold ? [['full', sets[0], 'TB', true]] : []),
    ...sets.flatMap((set) => [['compact', set, 'TB'], ['compact', set, 'LR'], ...(fold ? [['compact', set, 'TB', true]] : [])])];
  let last = null; let best = null; let bestTitle = -1;
  const pins = runPins(model);
  for (const [lod, set, dir, folded] of tries) {
    const input = buildLayoutInput(model, { collapsed: set, lod, dir });
    if (folded) { input.fold = true; input.aspect = pane.width / pane.height; }
    const layout = await layoutAsync(input);
    last = { input, layout, collapsed: set };
    if (!pane) break;
    // A fold that splits a module over two columns reads worse than the next level of detail.
    const split = Object.keys(layout.clusterParts || {}).length > 0;
    const figure = withPins(layout, input, pins);
    if (readsWhole(figure, pane) && !split) return last;
    // Nothing reads whole: keep the one drawn largest (the camera shows it in part, never under 11 px).
    const title = fitScale(figure, pane);
    if (title > bestTitle) { best = last; bestTitle = title; }
  }
  return best || last;
}

/**
 * The size the camera fits: the layout grown by the band of warning pins
 * above it (estimated as the view places them, pins.js), so a figure chosen
 * as "reads whole" is not then shown in part because of a pin.
 */
function withPins(layout, input, pins) {
  if (!pins.length) return layout;
  const boxOf = (p) => layout.pos[(p.node != null && input.unitOfNode[p.node]) || (p.tensor != null && input.unitOfTensor[p.tensor])] || null;
  const b = figureBounds(layout, placePins(pins, boxOf, { compact: input.lod === 'compact' }));
  return { width: b.width, height: b.height };
}

export async function buildSession(result, { collapsed = new Set(), pane = null, keep = null } = {}) {
  // For tests and the bench: "first overview within 1 s after the run ends" starts here.
  performance.mark?.('hookgrad:run-end');
  warmed = true; warmLeft = []; // the real layout compiles whatever the warm-up did not reach
  // A big result: receiving it, analyzing it and building the layout input are separate tasks (each < 100 ms).
  const big = (result.graph?.tensors?.length || 0) + (result.graph?.nodes?.length || 0) > BIG_UNITS;
  if (big) await yieldToPage();
  const model = analyze(result.graph, result.trace);
  if (big) await yieldToPage();
  const { input, layout, collapsed: used } = await chooseLayout(model, { collapsed, pane, keep });
  performance.mark?.('hookgrad:layout-end');
  const lines = consoleLines(model, result.error);
  return { result, model, input, layout, lines, legacy: legacyHandles(model), collapsed: used, lod: input.lod };
}

/** Same level of detail, new set of collapsed modules (the reader toggled one). */
export async function relayout(session, collapsed) {
  const input = buildLayoutInput(session.model, { collapsed, lod: session.lod || 'full', dir: session.input.dir });
  if (session.input.aspect) input.aspect = session.input.aspect;
  if (session.input.fold) input.fold = true;
  return { ...session, input, layout: await layoutAsync(input), collapsed };
}
