// Pure model of the hook timeline: every hook firing and every write of a
// `.grad`, one lane per tensor / node / module they happen on, one column per
// event in the trace's own order (the engine's steps, left to right). No DOM:
// view/timeline-view.js draws it, the player's step is its cursor.
import { describeStep, hookTitle, HOOK_KIND_LABEL } from './trace-model.js';

/** The short tag written inside a mark (≥ 11 px in the view), by kind. */
export const MARK_TAG = {
  tensor: 'T', 'retain-grad': 'R', 'node-pre': 'pre', 'node-post': 'post', 'post-accumulate': 'PA',
  'module-pre': 'f-pre', 'module-forward': 'fwd', 'module-backward': 'legacy',
  'module-full-backward': 'full', 'module-full-backward-pre': 'b-pre',
  pack: 'pack', unpack: 'unpk', 'multi-grad': 'multi',
  accumulate: '.grad', 'grad-set': 'set',
};

/** What each tag means, for the legend (only the kinds a run shows are listed). */
export const MARK_MEANING = {
  ...HOOK_KIND_LABEL,
  accumulate: '.grad written by backward', 'grad-set': '.grad assigned by the program',
};

/** True for the trace events the timeline shows as marks. */
export const isMarkEvent = (ev) => ev.type === 'hook' || ev.type === 'accumulate' || ev.type === 'grad-set';

/** The lane an event belongs to: { key, label, of } (of: 'tensor' | 'node' | 'module' | 'group' | 'saved'). */
function laneOf(model, ev) {
  if (ev.type === 'accumulate' || ev.type === 'grad-set') return { key: `t${ev.tensor}`, label: model.tName(ev.tensor), of: 'tensor' };
  if (ev.kind === 'pack' || ev.kind === 'unpack') return { key: 'saved', label: 'saved tensors', of: 'saved' };
  if (Array.isArray(ev.tensors)) return { key: `g${ev.handle}`, label: ev.tensors.map(model.tName).join(', '), of: 'group' };
  if (ev.moduleId != null) return { key: `m${ev.moduleId}`, label: ev.module ?? `module ${ev.moduleId}`, of: 'module' };
  if (ev.tensor != null) return { key: `t${ev.tensor}`, label: model.tName(ev.tensor), of: 'tensor' };
  if (ev.node != null) return { key: `n${ev.node}`, label: model.nName(ev.node), of: 'node' };
  const o = model.handleOwner?.get(ev.handle);
  if (o?.tensor != null) return { key: `t${o.tensor}`, label: model.tName(o.tensor), of: 'tensor' };
  if (o?.node != null) return { key: `n${o.node}`, label: model.nName(o.node), of: 'node' };
  return { key: `h${ev.handle}`, label: ev.name || `hook ${ev.handle}`, of: 'group' };
}

/**
 * The timeline of a run: { lanes, marks, kinds, base }.
 *  lanes: [{ key, label, of }] in order of their first mark;
 *  marks: [{ step, k, lane, kind, tag, title, detail, backward, passStart }] in trace order
 *         (step: the index in model.steps; k = step + 1, the player's frame that shows it);
 *  kinds: the mark kinds present, for the legend;
 *  base: the first step the figure can show (a training loop's released steps come before it).
 */
export function buildTimeline(model) {
  const base = model.figureStart || 0;
  const lanes = []; const laneIndex = new Map(); const marks = []; const kinds = [];
  // A backward pass starts at its first backward event after forward work: the view draws a divider before its first mark.
  let forwardGap = true; let newPass = false;
  for (let i = base; i < model.steps.length; i++) {
    const step = model.steps[i]; const ev = step.event; const { backward } = step;
    if (backward && forwardGap) { newPass = true; forwardGap = false; } else if (!backward && ev.type !== 'warning' && ev.type !== 'log') forwardGap = true;
    if (!isMarkEvent(ev)) continue;
    const lane = laneOf(model, ev);
    if (!laneIndex.has(lane.key)) { laneIndex.set(lane.key, lanes.length); lanes.push(lane); }
    const kind = ev.type === 'hook' ? ev.kind : ev.type;
    if (!kinds.includes(kind)) kinds.push(kind);
    const title = ev.type === 'hook' ? hookTitle(ev) : MARK_MEANING[kind];
    const passStart = backward && newPass && marks.length > 0;
    if (backward) newPass = false;
    // detail (the step's sentence, before → after) is read on hover or focus only: a run with
    // a thousand .grad writes builds its timeline without writing a thousand sentences.
    marks.push({ step: i, k: i + 1, lane: laneIndex.get(lane.key), kind, tag: MARK_TAG[kind] || kind, title, get detail() { return describeStep(model, step); }, backward, passStart });
  }
  // Two modules of one class (two Mul3): their lanes are told apart by number.
  const count = new Map(); for (const l of lanes) count.set(l.label, (count.get(l.label) || 0) + 1);
  const seen = new Map();
  for (const l of lanes) if (count.get(l.label) > 1) { const n = (seen.get(l.label) || 0) + 1; seen.set(l.label, n); l.label = `${l.label} #${n}`; }
  return { lanes, marks, kinds, base };
}

/** Where the cursor stands for the player's frame k: the number of marks already shown (0 … marks.length), and the current mark (the one frame k shows), or -1. */
export function cursorAt(timeline, k) {
  let shown = 0; let current = -1;
  timeline.marks.forEach((m, j) => { if (m.step < k) shown = j + 1; if (m.k === k) current = j; });
  return { shown, current };
}

/** The next mark from mark index j in direction d (±1), or within another lane (dl ±1): for the keyboard. */
export function neighbourMark(timeline, j, { d = 0, dl = 0 } = {}) {
  const { marks, lanes } = timeline;
  if (!marks.length) return -1;
  if (d) return Math.max(0, Math.min(marks.length - 1, j + d));
  if (!dl) return j;
  // The nearest mark (by column) in the nearest lane in that direction that has one.
  for (let lane = marks[j].lane + dl; lane >= 0 && lane < lanes.length; lane += dl) {
    let best = -1;
    marks.forEach((m, x) => { if (m.lane === lane && (best < 0 || Math.abs(x - j) < Math.abs(best - j))) best = x; });
    if (best >= 0) return best;
  }
  return j;
}
