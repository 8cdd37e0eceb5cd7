// The hook timeline (model/timeline.js drawn): lanes down, the trace's
// events left to right, one button per mark. The player's step is the
// cursor; clicking a mark (or Enter on it) steps the player there. One tab
// stop: ← → move between marks in trace order, ↑ ↓ between lanes, Home/End.
// Hover or focus shows the mark's before → after under the lanes.
import { h } from './dom.js';
import { buildTimeline, cursorAt, neighbourMark, MARK_MEANING } from '../model/timeline.js';

/** The colour family of a kind (styles.css: .mk.fam-…). */
const FAMILY = {
  tensor: 'tensor', 'retain-grad': 'retain', 'post-accumulate': 'tensor', 'node-pre': 'node', 'node-post': 'node',
  'module-pre': 'module', 'module-forward': 'module', 'module-full-backward': 'module', 'module-full-backward-pre': 'module',
  'module-backward': 'legacy', pack: 'saved', unpack: 'saved', 'multi-grad': 'tensor', accumulate: 'grad', 'grad-set': 'grad',
};

/**
 * Draws (or updates) the timeline of `model` in `root` at the player's frame k.
 * onSeek(k): the reader picked a mark.
 */
export function renderTimeline(root, model, k, { onSeek }) {
  let st = root._timeline;
  if (!st || st.model !== model) st = root._timeline = build(root, model, onSeek);
  st.onSeek = onSeek;
  update(st, k);
}

function build(root, model, onSeek) {
  const tl = buildTimeline(model);
  const st = { model, tl, onSeek, k: -1, buttons: [], hovered: -1 };
  const n = tl.marks.length;
  const detail = h('p', { class: 'tl-detail', 'aria-live': 'polite' });
  if (!n) {
    root.replaceChildren(h('p', { class: 'tl-empty muted' }, 'No hook fired and no .grad was written in this run.'));
    st.detail = detail; st.empty = true;
    return st;
  }
  const grid = h('div', { class: 'tl-grid', role: 'group', 'aria-label': `Hook timeline: ${n} marks on ${tl.lanes.length} lanes, in the order they ran` });
  grid.style.gridTemplateColumns = `max-content repeat(${n}, max-content) minmax(14px, 1fr)`;
  grid.style.gridTemplateRows = `auto repeat(${tl.lanes.length}, auto)`;
  grid.append(h('span', { class: 'tl-corner muted', style: 'grid-row: 1; grid-column: 1' }, 'step'));
  tl.lanes.forEach((lane, r) => grid.append(h('span', { class: `tl-lane lane-${lane.of}`, style: `grid-row: ${r + 2}; grid-column: 1`, title: lane.label }, lane.label)));
  // A faint row band per lane, behind the marks.
  tl.lanes.forEach((_, r) => grid.append(h('span', { class: 'tl-band', style: `grid-row: ${r + 2}; grid-column: 2 / -1`, 'aria-hidden': 'true' })));
  tl.marks.forEach((m, j) => {
    const col = j + 2;
    if (m.passStart) grid.append(h('span', { class: 'tl-pass', style: `grid-row: 1 / -1; grid-column: ${col}`, title: 'a backward pass starts', 'aria-hidden': 'true' }));
    grid.append(h('span', { class: 'tl-step muted', style: `grid-row: 1; grid-column: ${col}`, 'aria-hidden': 'true' }, String(m.k - tl.base)));
    const b = h('button', {
      class: `mk fam-${FAMILY[m.kind] || 'tensor'}`, type: 'button', tabindex: '-1', style: `grid-row: ${m.lane + 2}; grid-column: ${col}`,
      'data-step': String(m.step), 'data-kind': m.kind,
      'aria-label': `step ${m.k - tl.base}: ${m.title} on ${tl.lanes[m.lane].label}`,
      onclick: () => { focusMark(st, j); st.onSeek(m.k); },
      onfocus: () => { st.hovered = j; showDetail(st); },
      onblur: () => { st.hovered = -1; showDetail(st); },
      onmouseenter: () => { st.hovered = j; showDetail(st); },
      onmouseleave: () => { if (document.activeElement !== b) { st.hovered = -1; showDetail(st); } },
    }, m.tag);
    st.buttons.push(b); grid.append(b);
  });
  st.cursor = h('span', { class: 'tl-cursor', 'aria-hidden': 'true' });
  grid.append(st.cursor);
  grid.addEventListener('keydown', (e) => onKey(st, e));
  st.scroll = h('div', { class: 'tl-scroll' }, grid);
  const legend = h('p', { class: 'tl-legend muted' }, ...tl.kinds.flatMap((kind, i) => [i ? ' · ' : '',
    h('span', { class: `mk-key fam-${FAMILY[kind] || 'tensor'}` }, tl.marks.find((m) => m.kind === kind).tag), ` ${MARK_MEANING[kind] || kind}`]));
  st.detail = detail;
  root.replaceChildren(st.scroll, detail, legend);
  return st;
}

function update(st, k) {
  if (st.empty) return;
  const { tl, buttons } = st;
  const { shown, current } = cursorAt(tl, k);
  tl.marks.forEach((m, j) => {
    const b = buttons[j];
    b.classList.toggle('done', m.step < k && j !== current);
    b.classList.toggle('current', j === current);
    b.classList.toggle('future', m.step >= k);
    if (j === current) b.setAttribute('aria-current', 'step'); else b.removeAttribute('aria-current');
  });
  st.cursor.style.gridColumn = String(shown + 2);
  st.cursor.style.gridRow = '1 / -1';
  // The one tab stop follows the player unless the reader is moving through the marks.
  if (!st.scroll.contains(document.activeElement)) setTabStop(st, current >= 0 ? current : Math.min(shown, buttons.length - 1));
  if (st.k !== k) { st.k = k; st.current = current; showDetail(st); keepVisible(st, Math.min(shown, buttons.length - 1)); }
}

function setTabStop(st, j) {
  st.buttons.forEach((b, x) => b.setAttribute('tabindex', x === j ? '0' : '-1'));
}

function focusMark(st, j) {
  if (j < 0) return;
  setTabStop(st, j);
  st.buttons[j].focus({ preventScroll: true });
  keepVisible(st, j);
}

/** Scrolls the lanes (sideways and down) so mark j, its lane label and the step row can be seen. */
function keepVisible(st, j) {
  const b = st.buttons[j]; const box = st.scroll;
  if (!b || !box.clientWidth) return;
  const label = box.querySelector('.tl-lane')?.offsetWidth || 0;
  const left = b.offsetLeft - label - 8; const right = b.offsetLeft + b.offsetWidth + 8;
  if (left < box.scrollLeft) box.scrollLeft = Math.max(0, left);
  else if (right > box.scrollLeft + box.clientWidth) box.scrollLeft = right - box.clientWidth;
  const head = box.querySelector('.tl-corner')?.offsetHeight || 0;
  const top = b.offsetTop - head - 4; const bottom = b.offsetTop + b.offsetHeight + 4;
  if (top < box.scrollTop) box.scrollTop = Math.max(0, top);
  else if (bottom > box.scrollTop + box.clientHeight) box.scrollTop = bottom - box.clientHeight;
}

function showDetail(st) {
  const { tl } = st;
  const j = st.hovered >= 0 ? st.hovered : st.current;
  if (j == null || j < 0) { st.detail.textContent = 'Hover or focus a mark to see its value before → after; click it to step there.'; return; }
  const m = tl.marks[j];
  st.detail.textContent = `step ${m.k - tl.base} · ${m.detail}`;
  st.detail.classList.toggle('is-current', j === st.current);
}

function onKey(st, e) {
  const j = st.buttons.indexOf(document.activeElement);
  if (j < 0 || e.altKey || e.ctrlKey || e.metaKey) return;
  const moves = { ArrowRight: { d: 1 }, ArrowLeft: { d: -1 }, ArrowDown: { dl: 1 }, ArrowUp: { dl: -1 } };
  let to = -1;
  if (moves[e.key]) to = neighbourMark(st.tl, j, moves[e.key]);
  else if (e.key === 'Home') to = 0;
  else if (e.key === 'End') to = st.buttons.length - 1;
  else return;
  // These keys move through the marks here, not the player.
  e.preventDefault(); e.stopPropagation();
  focusMark(st, to);
}
