// Turns a worker result into everything the views need: the analyzed model,
// the layout (off the main thread for big graphs) and console reveal steps.
import { analyze, consoleLines } from './model/trace-model.js';
import { buildLayoutInput, computeLayout } from './model/layout.js';

export const WORKER_LAYOUT_UNITS = 120;
let layoutWorker = null; let layoutSeq = 0;

/** Lays out in a worker when the graph is large, synchronously otherwise. */
export function layoutAsync(input) {
  if (input.units.length < WORKER_LAYOUT_UNITS) return Promise.resolve(computeLayout(input));
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

export async function buildSession(result, { collapsed = new Set() } = {}) {
  const model = analyze(result.graph, result.trace);
  const input = buildLayoutInput(model, { collapsed });
  const layout = await layoutAsync(input);
  const lines = consoleLines(model, result.error);
  return { result, model, input, layout, lines, legacy: legacyHandles(model) };
}

export async function relayout(session, collapsed) {
  const input = buildLayoutInput(session.model, { collapsed });
  return { ...session, input, layout: await layoutAsync(input) };
}
