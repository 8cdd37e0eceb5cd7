// Every lesson, read step by step as a learner would (issue 32):
// - the trace is in PyTorch's engine order (a node's pre-hooks and tensor
//   hooks come before its `node` event, its post-hooks — the legacy module
//   hook included — after it; `.grad` and post-accumulate hooks follow their
//   AccumulateGrad), and the player's step k tells the trace's event k-1;
// - the running node is drawn (never hidden inside a collapsed module);
// - every value of at most 6 numbers that the figure or the step text shows
//   is shown whole: as many numbers as the value has, no "…".
// The oracle is the recorded trace (PyTorch's order is the engine's rule
// above, written out here), never the page's own formatting.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setup, waitForRun } from './helpers.mjs';
import { LESSONS } from '../../web/src/model/lessons.js';

let env;
before(async () => { env = await setup(); });
after(async () => { await env?.close(); });

const numel = (v) => (v == null ? 0 : Array.isArray(v) ? v.reduce((n, x) => n + numel(x), 0) : 1);
const short = (v) => v != null && numel(v) <= 6;
const NUM = /-?(?:\d+\.?\d*(?:e[+-]?\d+)?|nan|inf)/g;
const numbers = (s) => (s.match(NUM) || []).length;

/** PyTorch's engine order, checked on the recorded events (plain data). */
function checkEngineOrder(trace, graph, id) {
  const gradFn = new Map(graph.tensors.map((t) => [t.id, t.gradFn]));
  const accOf = new Map(graph.nodes.filter((n) => n.variable != null).map((n) => [n.variable, n.id]));
  const nodeOfTensor = (t) => gradFn.get(t) ?? accOf.get(t);
  let lastNode = null; let lastName = null; // the latest `node` event
  trace.forEach((ev, i) => {
    const where = `${id}: event ${i} (${ev.type} ${ev.kind || ev.name || ''})`;
    if (ev.type === 'node') { lastNode = ev.node; lastName = ev.name; return; }
    const next = trace.slice(i + 1).find((e) => e.type === 'node');
    if (ev.type === 'hook' && (ev.kind === 'node-post' || ev.kind === 'module-backward') && ev.node != null) {
      assert.equal(lastNode, ev.node, `${where}: a post-hook follows its own node's event`);
    } else if (ev.type === 'hook' && ev.kind === 'node-pre' && ev.node != null) {
      assert.equal(next?.node, ev.node, `${where}: a pre-hook precedes its own node's event`);
    } else if (ev.type === 'hook' && (ev.kind === 'tensor' || ev.kind === 'retain-grad') && ev.tensor != null && nodeOfTensor(ev.tensor) != null) {
      // A tensor hook runs as a pre-hook of the node its gradient goes into.
      const want = nodeOfTensor(ev.tensor);
      if (graph.nodes.some((n) => n.id === want)) assert.equal(next?.node, want, `${where}: a tensor hook precedes the node that consumes the gradient`);
    } else if (ev.type === 'accumulate' || (ev.type === 'hook' && ev.kind === 'post-accumulate')) {
      // (A training loop's earlier steps ran AccumulateGrad nodes the final graph no longer has.)
      assert.equal(lastName, 'AccumulateGrad', `${where}: written by (and after) an AccumulateGrad`);
      if (accOf.get(ev.tensor) === lastNode || !graph.nodes.some((n) => n.id === lastNode)) return;
      assert.equal(lastNode, accOf.get(ev.tensor), `${where}: written by (and after) its own AccumulateGrad`);
    }
  });
}

/** What the page shows at its current step, with the frame's plain data. */
async function shown(page) {
  return page.evaluate(() => {
    const ctl = globalThis.hookgradController;
    const f = ctl.frame; const s = ctl.session;
    const text = (e) => (e ? e.textContent : null);
    const svg = document.getElementById('graph');
    const edges = f.edges.map((e) => ({ value: e.value, before: e.before, label: text(svg.querySelector(`.flow-label[data-edge="${e.from}>${e.to}#${e.index}"] text`)) }));
    const grads = [...f.grads].map(([id, g]) => ({ id, g, row: text(svg.querySelector(`.tensor[data-tensor="${id}"] .v-grad`)) }));
    const badges = [...f.hookFires].map(([handle, fire]) => ({ handle, fire, text: text(svg.querySelector(`.badge-row[data-handle="${handle}"] .hookval`)) }));
    const node = f.focus?.node;
    const nodeEl = node != null ? svg.querySelector(`[data-node="${node}"]`) : null;
    return {
      k: f.k, stepText: document.getElementById('step-text').textContent,
      focusNode: node ?? null, nodeInGraph: node != null && s.model.nodes.has(node),
      nodeDrawn: !!nodeEl, nodeRunning: !!nodeEl?.classList.contains('running'),
      placeholders: [...svg.querySelectorAll('.placeholder')].map((p) => p.getAttribute('aria-label')),
      edges, grads, badges,
    };
  });
}

function checkShortValues(st, id) {
  const at = `${id} step ${st.k}`;
  for (const e of st.edges) {
    if (e.label == null) continue; // an edge drawn without a label (hidden in a big graph's overview)
    const want = (short(e.value) ? numel(e.value) : 0) + (e.before !== undefined && short(e.before) ? numel(e.before) : 0);
    if (short(e.value)) {
      assert.ok(!e.label.includes('…'), `${at}: edge label "${e.label}" cuts a short value`);
      assert.equal(numbers(e.label), want, `${at}: edge label "${e.label}" shows all ${want} numbers`);
    }
  }
  for (const g of st.grads) {
    if (g.row == null || !short(g.g)) continue;
    assert.ok(!g.row.includes('…'), `${at}: grad row "${g.row}" cuts a short value`);
    assert.equal(numbers(g.row), numel(g.g), `${at}: grad row "${g.row}" shows all ${numel(g.g)} numbers`);
  }
  for (const b of st.badges) {
    if (!b.text) continue;
    const parts = [b.fire.before, b.fire.after].flatMap((v) => (Array.isArray(v) && b.fire.kind !== 'tensor' && b.fire.kind !== 'retain-grad' && b.fire.kind !== 'post-accumulate' ? v : [v]));
    if (parts.every((v) => v == null || short(v))) assert.ok(!b.text.includes('…'), `${at}: badge "${b.text}" cuts a short value`);
  }
  assert.ok(!/\d…|…\d|\[…\]/.test(st.stepText), `${at}: step text "${st.stepText}" cuts a value`);
}

/** The step text of step k tells event k-1 of the trace. */
function checkStepText(st, ev, id) {
  const at = `${id} step ${st.k}: "${st.stepText.slice(0, 160)}"`;
  if (ev.type === 'node') assert.ok(st.stepText.startsWith(`${ev.name} ran`), `${at} tells ${ev.name} running`);
  else if (ev.type === 'hook' && ev.kind !== 'retain-grad' && ev.name && ev.name !== '<lambda>') assert.ok(st.stepText.includes(ev.name), `${at} names hook ${ev.name}`);
  else if (ev.type === 'accumulate') assert.match(st.stepText, /\.grad written/, at);
}

// LESSON=<id> runs one lesson only (while working on it).
for (const lesson of LESSONS.filter((l) => !process.env.LESSON || l.id === process.env.LESSON)) {
  test(`lesson ${lesson.n} (${lesson.id}): steps in PyTorch's order, running node in view, short values whole`, async () => {
    const page = await env.page(`#lesson=${lesson.id}`);
    await waitForRun(page, 30000);
    const { trace, graph, start, total, backward, failed } = await page.evaluate(() => {
      const m = globalThis.hookgradController.session.model;
      const plain = (ev) => ({ type: ev.type, kind: ev.kind, name: ev.name, node: ev.node, tensor: ev.tensor });
      return { trace: m.trace.map(plain), graph: { tensors: [...m.tensors.values()].map((t) => ({ id: t.id, gradFn: t.gradFn })), nodes: [...m.nodes.values()].map((n) => ({ id: n.id, variable: n.variable })) },
        start: m.forwardEnd, total: m.steps.length, backward: m.forwardEnd < m.steps.length,
        failed: !!globalThis.hookgradController.session.result?.error };
    });
    checkEngineOrder(trace, graph, lesson.id);
    const first = await shown(page);
    // A run that failed (inplace-after-hook as written) opens at its error, the end.
    if (failed) assert.equal(first.k, total, `${lesson.id}: a failed run opens at its error`);
    else if (!backward) assert.equal(first.k, 0, `${lesson.id}: a forward-only lesson opens at its first step`);
    else assert.equal(first.k, start, `${lesson.id}: opens where the backward pass starts`);
    let st = first;
    // Step through what the lesson plays: its backward pass, or its forward story.
    for (let k = first.k + 1; k <= total; k++) {
      await page.click('#step-btn');
      await page.waitForFunction((want) => globalThis.hookgradController.frame?.k === want && !globalThis.hookgradController.revealing, k);
      // The view applies a frame in the next animation frame (graph-view.js update).
      await page.evaluate(() => new Promise((r) => { requestAnimationFrame(() => requestAnimationFrame(r)); }));
      st = await shown(page);
      const ev = trace[k - 1];
      // The last step of a backward pass is its summary (.grad of every leaf, the hooks that fired).
      if (!(backward && k === total)) checkStepText(st, ev, lesson.id);
      if (st.nodeInGraph && (ev.type === 'node' || ev.type === 'hook' || ev.type === 'accumulate')) {
        assert.ok(st.nodeDrawn, `${lesson.id} step ${k}: node ${st.focusNode} is drawn, not inside a collapsed module (${st.placeholders.join('; ')})`);
        assert.ok(st.nodeRunning, `${lesson.id} step ${k}: node ${st.focusNode} is marked running`);
      }
      checkShortValues(st, lesson.id);
    }
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}
