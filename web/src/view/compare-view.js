// Side-by-side hook comparison for lessons that declare `compare` (lesson 5):
// what each kind of module backward hook reported, straight from the trace,
// which node it was really attached to, and the warnings raised on the way.
import { h } from './dom.js';
import { formatList } from '../model/format.js';

function moduleNameOf(model, m) {
  if (typeof m === 'string') return m;
  return model.moduleCalls.find((c) => c.moduleId === m)?.name ?? String(m);
}

/** Latest matching hook event at or before frame k, per compare column. */
export function compareColumns(model, k, columns) {
  return columns.map((col) => {
    let hit = null;
    for (let i = 0; i < Math.min(k, model.steps.length); i++) {
      const ev = model.steps[i].event;
      if (ev.type === 'hook' && ev.kind === col.kind && (!col.module || moduleNameOf(model, ev.module) === col.module)) hit = { ev, step: i };
    }
    const owner = hit ? model.handleOwner.get(hit.ev.handle) : null;
    return { ...col, hit, node: owner?.node ?? hit?.ev.node ?? (hit ? model.steps[hit.step].focus.node : null) ?? null };
  });
}

export function renderCompare(root, { model, k, columns, onSelectNode, warnRoot = root }) {
  root.replaceChildren();
  if (warnRoot !== root) warnRoot.replaceChildren();
  if (!columns?.length || !model) return;
  const cols = compareColumns(model, k, columns);
  const warnings = model.steps.slice(0, k).filter((s) => s.event.type === 'warning').map((s) => s.event.message);
  root.append(h('div', { class: 'compare', role: 'group', 'aria-label': 'Hook comparison' }, cols.map((c) => c.wide ? h('div', { class: `compare-col wide ${c.tone || ''}` },
    h('span', { class: 'compare-label' }, c.label), ' ', h('span', { class: 'compare-value mono' }, c.hit ? formatList(c.hit.ev.before) : '—')) : h('div', { class: `compare-col ${c.tone || ''}` },
    h('div', { class: 'compare-label' }, c.label),
    h('div', { class: 'compare-value mono', 'aria-label': `${c.label} grad_input` }, c.hit ? formatList(c.hit.ev.before) : '— press Backward'),
    c.hit ? h('div', { class: 'small muted' }, `${Array.isArray(c.hit.ev.before) ? c.hit.ev.before.length : 1} value(s) for ${c.inputs} inputs`) : null,
    c.hit && c.node != null ? h('button', { class: 'btn tiny', type: 'button', title: `${model.nName(c.node)} #${c.node}`, 'aria-label': `Show the node the ${c.label} is attached to`, onclick: () => onSelectNode(c.node) }, `runs on ${model.nName(c.node).replace('BackwardHookFunctionBackward', 'BackwardHookFunction…')} ↗`) : null))));
  if (warnings.length) {
    const first = warnings[0].split(/(?<=\.) /)[0];
    warnRoot.append(h('div', { class: 'compare-warning', role: 'note', title: warnings[0] }, `⚠ PyTorch warns at forward time: “${first}” (full text in the console)`));
  }
}
