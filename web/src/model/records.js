// Pure: what a node of the figure shows and how big it is (torchviz /
// micrograd records). A tensor shows name, shape, value and — once set — its
// grad; a backward node its PyTorch name and one badge per attached hook.
// Everything else lives in the inspector. Sizes are in graph units; the view
// draws exactly these rows, so nothing is ever cut inside a box.
import { flatten, chooseFormat, formatScalar, formatShape } from './format.js';

// Fonts (graph units): titles 16 px sans bold, rows 12.5 px mono; no text of
// the figure (badges, shapes, value labels, pins, module titles) is smaller
// than MIN_FIGURE_FONT.
export const TITLE_PX = 16;
export const TITLE_CHAR = 10.2; // width of a title character (16 px bold sans, generous)
export const MONO_CHAR = 7.6; // width of a 12.5 px mono character
export const HEAD = 26; export const ROW = 17; export const BADGE = 19; export const PADB = 8;
export const GAP = 12; // between a tensor and its backward node
export const MAX_W = 250;
/** A record may grow to this width so that short values (SHORT_VALUE) show whole. */
export const WIDE_W = 380;
export const LABEL_X = 10; export const VALUE_X = 48;

/**
 * Values of up to this many numbers are always printed in full: a 3-vector
 * cut to `[5.0186, …]` hides the very numbers a lesson is about.
 */
export const SHORT_VALUE = 6;

/** True when `v` has at most SHORT_VALUE numbers (always printed whole). */
export const isShortValue = (v) => flatten(v).length <= SHORT_VALUE;

/**
 * A value abbreviated to at most `max` characters, never cut inside a number:
 * `[1., 2., …, 9.]` for vectors, `[[1., 2., …], …]` for matrices. Values of
 * at most SHORT_VALUE numbers are never abbreviated (their boxes and labels
 * are sized for them).
 */
export function abbreviate(v, max = 24) {
  if (v === null || v === undefined) return 'None';
  return cut(v, flatten(v).length <= SHORT_VALUE ? Infinity : max);
}

/** `v` in at most `max` characters (a row of a long matrix may be cut, however short). */
function cut(v, max) {
  const fmt = chooseFormat(flatten(v));
  const full = (x) => (Array.isArray(x) ? `[${x.map(full).join(', ')}]` : formatScalar(x, fmt));
  const s = full(v);
  if (s.length <= max || !Array.isArray(v)) return s;
  if (!v.length) return '[]';
  const nested = Array.isArray(v[0]);
  // Rows of a matrix: the first row abbreviated, then "…".
  if (nested) {
    for (let room = max - 5; room >= 6; room--) {
      const first = cut(v[0], room);
      const out = v.length > 1 ? `[${first}, …]` : `[${first}]`;
      if (out.length <= max) return out;
    }
    return '[[…]]';
  }
  const items = v.map((x) => formatScalar(x, fmt));
  // Keep the last element; add leading ones while they fit.
  for (let head = items.length - 2; head >= 1; head--) {
    const out = `[${items.slice(0, head).join(', ')}, …, ${items[items.length - 1]}]`;
    if (out.length <= max) return out;
  }
  const one = `[${items[0]}, …]`;
  return one.length <= max ? one : '[…]';
}

/** Shape text, with strides when the tensor is not contiguous. */
export function shapeText(t) {
  const s = formatShape(t.shape);
  if (!Array.isArray(t.stride) || !Array.isArray(t.shape)) return s;
  let expect = 1; let contiguous = true;
  for (let i = t.shape.length - 1; i >= 0; i--) {
    if (t.shape[i] !== 1 && t.stride[i] !== expect) contiguous = false;
    expect *= t.shape[i];
  }
  return contiguous ? s : `${s} stride (${t.stride.join(', ')})`;
}

const KIND_SHORT = {
  tensor: 'hook', 'retain-grad': 'retain_grad', 'node-pre': 'pre-hook', 'node-post': 'hook',
  'post-accumulate': 'post-accumulate hook', 'module-backward': '⚠ legacy hook', 'module-full-backward': 'full backward hook',
  'module-full-backward-pre': 'full backward pre-hook',
};

/** Short badge text for one attached hook: kind, then the function's name
 * (a module hook's row names its module in a field of its own, `module`). */
export function badgeLabel(h) {
  if (h.kind === 'retain-grad') return 'retain_grad';
  const kind = KIND_SHORT[h.kind] || h.kind || 'hook';
  const fn = h.name;
  return fn && fn !== '<lambda>' ? `${kind} · ${fn}` : kind;
}

const titleW = (s) => s.length * TITLE_CHAR;

/**
 * Width a record needs for the run's widest grad row and hook badge lines
 * (`shown`: shown-values.js widestShown; badge lines are 12.5 px mono, MONO_CHAR wide).
 */
function shownWidth(grads, handles, shown) {
  if (!shown) return 0;
  const badge = Math.max(0, ...handles.map((h) => shown.badge.get(h) || 0));
  return Math.max(grads != null ? VALUE_X + (shown.grad.get(grads) || 0) * MONO_CHAR + 12 : 0, badge ? badge * MONO_CHAR + 28 : 0);
}

/** Tensor record size: title row, data row, grad row, one row per hook badge. */
export function tensorRecord(t, lod = 'full', shown = null) {
  const name = t.name || `t${t.id}`;
  const shape = shapeText(t);
  const hooks = (t.hooks || []).length;
  if (lod === 'compact') {
    return { w: Math.min(MAX_W, Math.max(80, Math.round(titleW(name) + 22 + (hooks ? 34 : 0)))), h: HEAD + 4, rows: 0 };
  }
  const data = abbreviate(t.data, Math.floor((MAX_W - VALUE_X - 10) / MONO_CHAR));
  const badgeW = Math.max(0, ...(t.hooks || []).map((h) => badgeLabel(h).length * MONO_CHAR + 60));
  const w = Math.max(104, titleW(name) + shape.length * MONO_CHAR * 0.9 + 30, VALUE_X + data.length * MONO_CHAR + 12, Math.min(MAX_W, badgeW));
  const grow = shownWidth(t.id, (t.hooks || []).map((h) => h.handle), shown);
  // Long values are abbreviated to MAX_W; short ones widen the box up to WIDE_W.
  return { w: Math.round(Math.min(w > MAX_W || grow > MAX_W ? WIDE_W : MAX_W, Math.max(w, grow))), h: HEAD + ROW * 2 + 2 * BADGE * hooks + PADB, rows: 2, data };
}

/** Backward node record size: title, then one badge per pre-hook and hook. */
export function nodeRecord(n, lod = 'full', shown = null) {
  const hooks = [...(n.preHooks || []), ...(n.postHooks || [])];
  if (lod === 'compact') return { w: Math.round(Math.min(MAX_W, titleW(n.name || '') + 22 + (hooks.length ? 34 : 0))), h: HEAD + 4 };
  const badgeW = Math.max(0, ...hooks.map((h) => badgeLabel(h).length * MONO_CHAR + 60));
  const w = Math.max(100, titleW(n.name || '') + 24, Math.min(MAX_W, badgeW), hooks.length ? 190 : 0, shownWidth(null, hooks.map((h) => h.handle), shown));
  return { w: Math.round(Math.min(WIDE_W, w)), h: HEAD + (hooks.length ? BADGE * 2 * hooks.length + 4 : 6) };
}

/**
 * Overview record (lod 'compact'): a tensor and its backward node merged in
 * one box, torchviz-like: the tensor's name over the node's PyTorch name,
 * and the number of hooks attached to either.
 */
export function mergedRecord(t, n) {
  const hooks = (t?.hooks || []).length + (n ? (n.preHooks || []).length + (n.postHooks || []).length : 0);
  // Under a tensor's name the node's name is the smaller second title (15 px);
  // alone (a node with no tensor of its own) it is the record's title, 16 px
  // bold, and "BackwardHookFunctionBackward" needs the full title width.
  const tw = t ? titleW(t.name || `t${t.id}`) : 0; const nw = n ? (t ? (n.name || '').length * 9.4 : titleW(n.name || '')) : 0;
  return { w: Math.round(Math.min(MAX_W + (t ? 40 : 100), Math.max(60, tw + (hooks ? 34 : 0), nw + (!t && hooks ? 34 : 0)) + 22)), h: t && n ? 46 : 28, hooks };
}

/** Rendered title size (px) of a layout shown whole in a pane. */
export function fitScale(layout, pane, margin = 16) {
  if (!layout.width || !layout.height) return 1;
  return Math.min(1.25, (pane.width - margin) / layout.width, (pane.height - margin) / layout.height);
}

/** Smallest title the first view may show (the page's body text is 11 px). */
export const MIN_TITLE_PX = 11.2;

/** The smallest font (graph units) of any text in the figure (styles.css: shapes, badges, value labels, pins). */
export const MIN_FIGURE_FONT = 12.5;

/** The smallest any text of the figure may render on screen (px): the page's small print. */
export const MIN_TEXT_PX = 11;

/**
 * The smallest scale the camera fits the figure to (0.88): below it the
 * smallest text would render under MIN_TEXT_PX. A figure that does not fit
 * at this scale is shown in part and the view follows the running node
 * (Netron and Model Explorer keep graphs legible by moving, not shrinking).
 */
export const MIN_READABLE_K = MIN_TEXT_PX / MIN_FIGURE_FONT;

/** The merged overview record's second title (the node's PyTorch name) is drawn at 15 px (styles.css .node-title). */
export const NODE_TITLE_PX = 15;

/** Smallest title font (graph units) a level of detail draws. */
export const smallestTitlePx = (lod = 'full') => (lod === 'compact' ? NODE_TITLE_PX : TITLE_PX);

/**
 * True when a layout shown whole in `pane` keeps every text at least
 * MIN_TEXT_PX on screen (its smallest font, MIN_FIGURE_FONT, at the fit
 * scale). Both levels of detail draw no text under MIN_FIGURE_FONT; titles
 * alone (the rule before issue 32's last gap) let badges and shapes fall to
 * 8 px.
 */
export function readsWhole(layout, pane) {
  return fitScale(layout, pane) >= MIN_READABLE_K - 1e-9;
}
