// SVG records of the figure (sizes and texts from model/records.js): a tensor
// shows name, shape, data and — once set — grad, plus one badge per hook; a
// backward node its name and one badge per hook, whose second line shows
// before → after when it fires. Details live in the tooltip and inspector.
import { pyBool } from '../model/format.js';
import { abbreviate, badgeLabel, shapeText, HEAD, ROW, BADGE, LABEL_X, VALUE_X, MONO_CHAR } from '../model/records.js';
import { HOOK_KIND_LABEL } from '../model/trace-model.js';
import { badgeText, BADGE_CHAR } from '../model/shown-values.js';

const NS = 'http://www.w3.org/2000/svg';
export function el(tag, attrs = {}, parent = null, text = null) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) e.setAttribute(k, String(v));
  if (text !== null) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

/** Tooltip text with everything the record does not show. */
function tensorDetails(model, t) {
  const gfn = t.gradFn != null ? model.nName(t.gradFn) : 'None';
  const by = model.madeByHook?.get(t.id);
  return [`${t.name || `t${t.id}`} = ${abbreviate(t.data, 80)}`, ...(by ? [`made by the ${HOOK_KIND_LABEL[by.kind]} ${by.name} (step ${by.step + 1})`] : []), `shape ${shapeText(t)}`, `requires_grad ${pyBool(t.requiresGrad)} · is_leaf ${pyBool(t.isLeaf)} · retains_grad ${pyBool(t.retainsGrad)}`,
    `grad_fn ${gfn}${t.version != null ? ` · version ${t.version}` : ''}`, ...(t.hooks || []).map((h, i) => `hook ${i + 1}: ${HOOK_KIND_LABEL[h.kind] || h.kind} ${h.name || ''}`)].join('\n');
}
function nodeDetails(model, n) {
  const next = (n.next || []).map((e) => (e.node != null ? model.nName(e.node) : 'None')).join(', ') || '()';
  return [`${n.name} (node ${n.id})`, n.variable != null ? `variable ${model.tName(n.variable)}` : null, `next_functions: ${next}`,
    ...(n.preHooks || []).map((h) => `pre-hook: ${HOOK_KIND_LABEL[h.kind] || h.kind} ${h.name || ''}`), ...(n.postHooks || []).map((h) => `hook: ${HOOK_KIND_LABEL[h.kind] || h.kind} ${h.name || ''}`)].filter(Boolean).join('\n');
}

/** A hook badge at y; `two` adds a second line for before → after. */
function badge(g, h, y, w, two) {
  const r = el('g', { class: `badge-row kind-${h.kind}`, 'data-handle': h.handle }, g);
  el('rect', { x: 5, y, width: w - 10, height: (two ? 2 : 1) * BADGE - 3, rx: 5, class: 'badge-bg' }, r);
  const label = badgeLabel(h);
  const lt = el('text', { x: LABEL_X + 2, y: y + 12.5, class: 'badge-label' }, r, label);
  const count = el('text', { x: w - 12, y: y + 12.5, class: 'badge-count', 'text-anchor': 'end' }, r, '');
  const val = two ? el('text', { x: LABEL_X + 2, y: y + BADGE + 12.5, class: 'hookval' }, r, '')
    : el('text', { x: w - 12, y: y + 12.5, class: 'hookval', 'text-anchor': 'end' }, r, '');
  const room = two ? Math.floor((w - 28) / BADGE_CHAR) : Math.floor((w - 28 - label.length * BADGE_CHAR) / BADGE_CHAR) - 4;
  return { g: r, label: lt, count, val, handle: h.handle, kind: h.kind, room, c: { fireStep: -1, fired: false, firing: false } };
}

export function drawTensor(view, parent, t, b, lod) {
  const name = t.name || `t${t.id}`;
  const by = view.model.madeByHook?.get(t.id);
  const g = el('g', { class: `tensor${t.requiresGrad ? ' rg' : ''}${by ? ' by-hook' : ''} lod-${lod}`, 'data-tensor': t.id, transform: `translate(${b.x},${b.y})`, role: 'button', tabindex: 0, 'aria-label': `Tensor ${name}${by ? `, made by the ${HOOK_KIND_LABEL[by.kind]} ${by.name}` : ''}` }, parent);
  el('rect', { width: b.w, height: b.h, rx: 9, class: 'box' }, g);
  el('text', { x: LABEL_X, y: 19, class: 'title' }, g, name);
  const details = tensorDetails(view.model, t);
  el('title', {}, g, details);
  const vals = {}; let badges = [];
  if (lod === 'full') {
    el('text', { x: b.w - 10, y: 18, class: 'shape', 'text-anchor': 'end' }, g, shapeText(t));
    el('text', { x: LABEL_X, y: HEAD + 12, class: 'k' }, g, 'data');
    el('text', { x: VALUE_X, y: HEAD + 12, class: 'v v-data' }, g, abbreviate(t.data, Math.floor((b.w - VALUE_X - 8) / MONO_CHAR)));
    vals.gradK = el('text', { x: LABEL_X, y: HEAD + ROW + 12, class: 'k k-grad' }, g, 'grad');
    vals.grad = el('text', { x: VALUE_X, y: HEAD + ROW + 12, class: 'v v-grad' }, g, '');
    badges = (t.hooks || []).map((h, i) => badge(g, h, HEAD + 2 * ROW + i * 2 * BADGE + 1, b.w, true));
  } else if ((t.hooks || []).length) {
    el('text', { x: b.w - 9, y: 19, class: 'badge-count', 'text-anchor': 'end' }, g, `⚓${t.hooks.length}`);
  }
  view.bindActivate(g, () => view.onSelect({ tensor: t.id }));
  view.cullItems.push({ g, box: b, c: { culled: false } });
  view.tensorEls.set(t.id, { g, vals, hookRows: badges, maxChars: Math.floor((b.w - VALUE_X - 8) / MONO_CHAR), c: { grad: undefined, filled: false, future: false, focus: false, selected: false, changed: false } });
}

export function drawNode(view, parent, n, b, lod, legacyHandles) {
  const hooks = [...(n.preHooks || []), ...(n.postHooks || [])];
  const g = el('g', { class: `bnode${n.name === 'AccumulateGrad' ? ' acc' : ''} lod-${lod}`, 'data-node': n.id, transform: `translate(${b.x},${b.y})`, role: 'button', tabindex: 0, 'aria-label': `Backward node ${n.name} ${n.id}` }, parent);
  el('rect', { width: b.w, height: b.h, rx: 9, class: 'box' }, g);
  el('text', { x: LABEL_X, y: 19, class: 'title' }, g, n.name);
  el('title', {}, g, nodeDetails(view.model, n));
  const rows = [];
  hooks.forEach((h, i) => {
    const legacy = h.kind === 'module-backward' || legacyHandles.has(h.handle);
    if (legacy) g.classList.add('has-legacy');
    if (lod !== 'full') return;
    const r = badge(g, h, HEAD + i * 2 * BADGE + 1, b.w, true);
    if (legacy) r.g.classList.add('legacy');
    if (h.kind === 'module-full-backward') r.g.classList.add('fullhook');
    rows.push(r);
  });
  if (lod !== 'full' && hooks.length) el('text', { x: b.w - 9, y: 19, class: 'badge-count', 'text-anchor': 'end' }, g, `⚓${hooks.length}`);
  view.bindActivate(g, () => view.onSelect({ node: n.id }));
  view.cullItems.push({ g, box: b, c: { culled: false } });
  view.nodeEls.set(n.id, { g, hookRows: rows, box: b, c: { done: false, running: false, future: false, selected: false } });
}

/** Writes a badge's fire state: count, and before → after of its latest call. */
export function updateBadge(r, frame, setClass) {
  const fire = frame.hookFires.get(r.handle);
  const c = r.c; const step = fire ? fire.step : -1;
  if (step !== c.fireStep) {
    c.fireStep = step;
    r.count.textContent = fire && fire.count > 1 ? `×${fire.count}` : '';
    if (!fire || r.room < 5) r.val.textContent = fire ? '✓' : '';
    else r.val.textContent = badgeText(r.kind, fire.before, fire.after, r.room);
  }
  setClass(r.g, c, 'fired', !!fire);
  setClass(r.g, c, 'firing', !!fire && fire.step === frame.k - 1);
}

/** Overview record (lod 'compact'): tensor name over its node's name, one box. */
export function drawMerged(view, parent, t, n, b, legacyHandles) {
  const tname = t ? t.name || `t${t.id}` : null;
  const cls = `${t ? 'tensor' : ''} ${n ? 'bnode' : ''}${n?.name === 'AccumulateGrad' ? ' acc' : ''} merged lod-compact`;
  const g = el('g', { class: cls.trim(), 'data-tensor': t?.id, 'data-node': n?.id, transform: `translate(${b.x},${b.y})`, role: 'button', tabindex: 0,
    'aria-label': t ? `Tensor ${tname}` : `Backward node ${n.name} ${n.id}`, 'aria-description': n && t ? `with its backward node ${n.name}` : undefined }, parent);
  el('rect', { width: b.w, height: b.h, rx: 9, class: 'box' }, g);
  if (t) el('text', { x: LABEL_X, y: 19, class: 'title' }, g, tname);
  if (n) el('text', { x: LABEL_X, y: t ? 39 : 19, class: `title ${t ? 'node-title' : ''}` }, g, n.name);
  el('title', {}, g, [t ? tensorDetails(view.model, t) : null, n ? nodeDetails(view.model, n) : null].filter(Boolean).join('\n\n'));
  const hooks = [...(t?.hooks || []), ...(n?.preHooks || []), ...(n?.postHooks || [])];
  if (hooks.some((h) => h.kind === 'module-backward' || legacyHandles.has(h.handle))) g.classList.add('has-legacy');
  const counter = hooks.length ? el('text', { x: b.w - 8, y: 19, class: 'badge-count', 'text-anchor': 'end' }, g, `⚓${hooks.length}`) : null;
  view.bindActivate(g, () => view.onSelect(t ? { tensor: t.id } : { node: n.id }));
  view.cullItems.push({ g, box: b, c: { culled: false } });
  // One element, two roles: the update loop writes tensor and node classes on the same group.
  const c = { grad: undefined, filled: false, future: false, focus: false, selected: false, changed: false, done: false, running: false };
  const handles = hooks.map((h) => h.handle);
  const fired = { g: counter || g, handles, c: { fireStep: -1, fired: false, firing: false } };
  if (t) view.tensorEls.set(t.id, { g, vals: {}, hookRows: [], merged: fired, c });
  if (n) view.nodeEls.set(n.id, { g, hookRows: [], box: b, c: t ? { ...c } : c });
}
