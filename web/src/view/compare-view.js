// The legacy-hook table for lessons that declare `compare` (lesson 5): for
// each input of the module (p, q, r) its true gradient (.grad), what the full
// backward hook reports and what the legacy hook reports, marked right or
// wrong. Every number comes from the trace at frame k; nothing is typed in.
import { h } from './dom.js';
import { formatValue, formatList, flatten } from '../model/format.js';
import { frameAt } from '../model/trace-model.js';
import { callInputs } from '../model/module-inputs.js';

export { callInputs };

/** Latest matching hook event at or before frame k, per column (kept for the unit tests). */
export function compareColumns(model, k, columns) {
  return columns.map((col) => {
    let hit = null;
    for (let i = 0; i < Math.min(k, model.steps.length); i++) {
      const ev = model.steps[i].event;
      if (ev.type === 'hook' && ev.kind === col.kind && (!col.module || ev.module === col.module)) hit = { ev, step: i };
    }
    const owner = hit ? model.handleOwner.get(hit.ev.handle) : null;
    return { ...col, hit, node: hit?.ev.node ?? owner?.node ?? (hit ? model.steps[hit.step].focus.node : null) ?? null };
  });
}

/** The hook row of `kind` registered on a module named `name` (graph data), with the node it sits on. */
function hookRow(model, kind, name) {
  for (const n of model.nodes.values()) {
    for (const r of [...(n.preHooks || []), ...(n.postHooks || [])]) if (r.kind === kind && r.module === name) return { row: r, node: n.id };
  }
  return null;
}

/** The hook event of `handle` at or before frame k, or null. */
function firedBy(model, handle, k) {
  for (let i = Math.min(k, model.steps.length) - 1; i >= 0; i--) {
    const ev = model.steps[i].event;
    if (ev.type === 'hook' && ev.handle === handle) return ev;
  }
  return null;
}

const same = (a, b) => {
  const x = flatten(a); const y = flatten(b);
  return x.length === y.length && x.length > 0 && x.every((v, i) => Math.abs(v - y[i]) <= 1e-6 * Math.max(1, Math.abs(v)));
};

/** Whose gradient the node's i-th grad_input is: the tensor at the end of next edge i. */
function gradOwner(model, nodeId, i) {
  const e = model.nodes.get(nodeId)?.next?.[i];
  if (!e || e.node == null) return null;
  const n = model.nodes.get(e.node);
  const t = n?.variable ?? model.tensorOfNode.get(e.node);
  return t != null ? model.tName(t) : n?.name ?? null;
}

/**
 * Pure: the table's content at frame k, or null when the program has no
 * legacy hook on `spec.module`. Values are null until the trace has them.
 */
export function legacyTable(model, k, spec) {
  const legacy = hookRow(model, 'module-backward', spec.module);
  if (!legacy) return null;
  const full = hookRow(model, 'module-full-backward', spec.module);
  const callOf = (id) => model.moduleCalls.find((c) => c.moduleId === id);
  const lCall = callOf(legacy.row.moduleId); const fCall = full ? callOf(full.row.moduleId) : null;
  if (!lCall) return null;
  const frame = frameAt(model, k);
  const inputs = callInputs(model, lCall);
  const fullInputs = fCall ? callInputs(model, fCall) : [];
  const lEv = firedBy(model, legacy.row.handle, k);
  const fEv = full ? firedBy(model, full.row.handle, k) : null;
  const legacyNode = lEv?.node ?? legacy.node;
  const lVals = lEv ? (Array.isArray(lEv.before) ? lEv.before : [lEv.before]) : null;
  const fVals = fEv ? (Array.isArray(fEv.before) ? fEv.before : [fEv.before]) : null;
  const rows = inputs.map((t, i) => {
    const truth = frame.grads.get(t) ?? null;
    const cell = (vals, owner) => {
      if (!vals) return null;
      const v = i < vals.length ? vals[i] : undefined;
      // Right or wrong only once .grad is there to compare with (null: not yet known).
      const right = v === undefined || v === null ? (truth == null ? null : false) : truth == null ? null : same(v, truth);
      return { value: v, missing: v === undefined, right, owner };
    };
    return { tensor: t, name: model.tName(t), truth, full: cell(fVals, fullInputs[i] != null ? model.tName(fullInputs[i]) : null), legacy: cell(lVals, gradOwner(model, legacyNode, i)) };
  });
  // A module with a single backward node, where the legacy hook happens to be right.
  let control = null;
  const c = spec.control && hookRow(model, 'module-backward', spec.control);
  const cCall = c && callOf(c.row.moduleId);
  if (cCall) {
    const ev = firedBy(model, c.row.handle, k);
    const ins = callInputs(model, cCall);
    const truths = ins.map((t) => frame.grads.get(t) ?? null);
    control = { name: spec.control, inputs: ins.map(model.tName), values: ev ? ev.before : null, truths,
      // Judged once every .grad is written; before that it is neither ✓ nor ✗.
      right: !ev || truths.some((t) => t == null) ? null : Array.isArray(ev.before) && ev.before.length === ins.length && ev.before.every((v, i) => same(v, truths[i])) };
  }
  return { module: spec.module, rows, legacyNode, legacyNodeName: model.nName(legacyNode), legacyOutput: model.tName(model.tensorOfNode.get(legacyNode)),
    legacyCount: lVals?.length ?? null, legacyValues: lVals, fullValues: fVals, fullOn: fullInputs.map(model.tName), fired: { legacy: !!lEv, full: !!fEv }, control, started: k > model.forwardEnd };
}

const mark = (c) => (c.right == null ? h('span', { class: 'wait-mark', 'aria-label': 'not checked yet: .grad is not written' }, ' …')
  : c.right ? h('span', { class: 'ok-mark', 'aria-label': 'right' }, ' ✓') : h('span', { class: 'bad-mark', 'aria-label': 'wrong' }, ' ✗'));

function hookCell(c, waiting, kind) {
  if (!c) return h('td', { class: 'pending' }, waiting);
  if (c.missing) return h('td', { class: c.right == null ? 'pending' : 'wrong' }, h('span', {}, '—'), mark(c), h('span', { class: 'who' }, ' none'));
  return h('td', { class: c.right == null ? 'pending' : c.right ? 'right' : 'wrong' }, h('span', { class: 'mono' }, formatValue(c.value)), mark(c),
    c.right === false && kind === 'legacy' && c.owner ? h('span', { class: 'who' }, ` ${c.owner}’s`) : null);
}

export function renderCompare(root, { model, k, columns, onSelectNode, warnRoot = root }) {
  root.replaceChildren();
  if (warnRoot !== root) warnRoot.replaceChildren();
  if (!columns || !model) return;
  const t = legacyTable(model, k, columns);
  if (!t) return;
  const ins = t.rows.map((r) => r.name).join(', ');
  const anyDone = t.fired.legacy || t.fired.full || t.rows.some((r) => r.truth != null);
  const caption = anyDone
    ? `${t.module}(${ins}): each input’s gradient, and what each hook reports for it`
    : `Press Backward: for each input of ${t.module}(${ins}) this table will compare its true gradient (.grad) with what the full and the legacy backward hook report.`;
  const nodeBtn = h('button', { class: 'btn tiny legacy-node', type: 'button', 'aria-label': 'Show the node the legacy hook is attached to',
    title: `${t.legacyNodeName} #${t.legacyNode}`, onclick: () => onSelectNode(t.legacyNode) }, `${t.legacyOutput}’s ${t.legacyNodeName} ↗`);
  const table = h('table', { class: 'legacy-table', 'aria-label': 'Each input: true gradient, full hook, legacy hook' },
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'input'), h('th', { scope: 'col' }, '.grad'),
      h('th', { scope: 'col', class: 'good' }, 'full hook'), h('th', { scope: 'col', class: 'bad' }, 'legacy hook'))),
    h('tbody', {}, t.rows.map((r) => h('tr', {},
      h('th', { scope: 'row', class: 'mono' }, r.name),
      h('td', { class: r.truth == null ? 'pending' : 'mono truth' }, r.truth == null ? '?' : formatValue(r.truth)),
      hookCell(r.full, t.started ? '…' : '?', 'full'), hookCell(r.legacy, t.started ? '…' : '?', 'legacy')))));
  const owners = t.rows.map((r) => r.legacy?.owner).filter(Boolean);
  const foot = h('p', { class: 'legacy-foot small' },
    t.fired.legacy ? [`Legacy grad_input `, h('span', { class: 'mono bad' }, formatList(t.legacyValues)), `: ${t.legacyCount} value${t.legacyCount === 1 ? '' : 's'} for ${t.rows.length} inputs, the grad_inputs of `] : 'The legacy hook sits on ',
    nodeBtn, t.fired.legacy && owners.length ? ` (dashed), whose inputs are ${owners.join(' and ')}.` : ' (dashed), not on the module.',
    t.fullOn.length ? h('span', { class: 'twin' }, ' Full grad_input ', t.fired.full ? h('span', { class: 'mono good' }, formatList(t.fullValues)) : '', `${t.fired.full ? ': ' : ''}from a twin ${t.module}(${t.fullOn.join(', ')}) with the same values (PyTorch refuses both kinds on one module).`) : '');
  const c = t.control;
  const control = c ? h('p', { class: `legacy-control small ${c.values ? (c.right ? 'right' : 'wrong') : ''}` },
    `${c.name}(${c.inputs.join(', ')}) has one backward node: its legacy hook reports `,
    h('span', { class: 'mono' }, c.values ? formatList(c.values) : '?'),
    c.values ? [c.right == null ? ' — compared with ' : ' = ', h('span', { class: 'mono' }, `(${c.inputs.map((n) => `${n}.grad`).join(', ')})`),
      c.right == null ? ' once they are written' : c.right ? ' ✓ right' : ' ✗ wrong'] : '') : null;
  root.append(h('div', { class: 'compare', role: 'group', 'aria-label': 'Hook comparison' }, table, foot, control));
  const warnings = model.steps.slice(0, k).filter((s) => s.event.type === 'warning').map((s) => s.event.message);
  if (warnings.length) {
    const first = warnings[0].split(/(?<=\.) /)[0];
    warnRoot.append(h('div', { class: 'compare-warning', role: 'note', title: warnings[0] }, `⚠ PyTorch warns at forward time: “${first}” (full text in the console)`));
  }
}
