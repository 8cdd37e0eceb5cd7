// The figure's edges as plain geometry (graph units): which edges are drawn
// between which records, their curves, their value labels' widths and their
// stroke widths. Pure: the view draws what these return.
import { abbreviate } from './records.js';
import { labelWidth } from './edge-labels.js';

/**
 * Every edge of the figure with its geometry: op edges (input → output
 * tensor, unless a next_functions edge already joins the two merged
 * records) and next_functions edges (fanned in when a node has several
 * inputs). c = [x1, y1, c1x, c1y, c2x, c2y, x2, y2] of the cubic curve.
 */
export function edgeSpecs(model, input, boxes, lod, dir = input.dir || 'TB') {
  const boxOfNode = (id) => boxes.get(`n${id}`) || boxes.get(input.unitOfNode[id]);
  const boxOfTensor = (id) => boxes.get(`t${id}`) || boxes.get(input.unitOfTensor[id]);
  const out = []; const seen = new Set();
  const add = (key, a, b, next, title, spread = 0) => {
    const [x1, y1, x2, y2] = ends(a, b, dir, spread);
    out.push({ key, c: curvePoints(x1, y1, x2, y2, dir), box: curveBox(x1, y1, x2, y2, dir), next, title, drawn: false });
  };
  const joined = new Set(); // box pairs already joined by a next_functions edge (merged records)
  const id = new Map(); const idOf = (b) => { if (!id.has(b)) id.set(b, id.size); return id.get(b); };
  if (lod === 'compact') for (const n of model.nodes.values()) for (const e of n.next || []) if (e.node != null) joined.add(`${idOf(boxOfNode(n.id))}>${idOf(boxOfNode(e.node))}`);
  for (const ev of model.trace) {
    if (ev.type !== 'op') continue;
    for (const i of ev.inputs || []) {
      const a = boxOfTensor(i); const b = boxOfTensor(ev.output); const key = `op${i}>${ev.output}`;
      if (!a || !b || a === b || seen.has(key)) continue;
      if (lod === 'compact' && joined.has(`${idOf(b)}>${idOf(a)}`)) continue;
      seen.add(key); add(key, a, b, false, null);
    }
  }
  const fanIn = new Map();
  for (const n of model.nodes.values()) for (const e of n.next || []) if (e.node != null) fanIn.set(e.node, Math.max(fanIn.get(e.node) || 0, e.inputNr + 1));
  for (const n of model.nodes.values()) {
    (n.next || []).forEach((e, j) => {
      if (e.node == null) return;
      const a = boxOfNode(n.id); const b = boxOfNode(e.node);
      if (!a || !b || a === b) return;
      const k = fanIn.get(e.node) || 1; const spread = k > 1 ? (e.inputNr - (k - 1) / 2) * 14 : 0;
      add(`${n.id}>${e.node}#${j}`, a, b, true, `${n.name} → ${model.nodes.get(e.node)?.name} (next_functions[${j}])`, spread);
    });
  }
  return out;
}

/**
 * An edge's value label: the gradient it carries, or "before → after" at the
 * step a node's post-hook replaced it (trace-model.js frameAt's `before`).
 */
export function edgeLabelText(value, before, by = null) {
  if (before === undefined) return abbreviate(value, 18);
  // Changed in place by a hook on another tensor: the label names that hook (issue 32).
  return `${abbreviate(before, 12)} → ${abbreviate(value, 12)}${by ? ` (${by})` : ''}`;
}

/**
 * The width of label the figure is fitted to: an 18-character label at most.
 * A whole short vector is wider; it is placed at its own width (off the
 * boxes) but may overhang the fitted view, rather than shrink every figure
 * that has one (issue 32: λ in full).
 */
export const PLACED_LABEL_W = labelWidth('x'.repeat(18));

/** A value label's font (px, graph units): the figure's smallest (records.js MIN_FIGURE_FONT). */
export const LABEL_FONT = 12.5;

/** A value label's line height (graph units) after its first line (19 high). */
export const LABEL_LINE = 15;
/** The widest line a label breaks into (26 characters: a 6-vector in two lines). */
const PACK_W = PLACED_LABEL_W * 1.5;

/**
 * The lines of a value label: one, unless it is wider than 1.2 × the room
 * of an 18-character label; then "before → after" breaks before the arrow
 * and a matrix's rows (a vector's numbers) fill lines of at most PACK_W:
 * `[[3.1590, -1.4379],` / ` [10.7934, -2.6467],` / ` [1.4480, 0.4741]]`.
 */
export function labelLines(txt) {
  if (labelWidth(txt) <= PLACED_LABEL_W * 1.2) return [txt];
  const arrow = txt.indexOf(' → ');
  const parts = arrow > 0 ? [txt.slice(0, arrow), txt.slice(arrow + 1)] : [txt];
  return parts.flatMap((part) => {
    const head = part.startsWith('→ ') ? '→ ' : ''; const body = part.slice(head.length);
    if (labelWidth(part) <= PLACED_LABEL_W * 1.2) return [part];
    const m = /^\[(\[.*\])\](.*)$/.exec(body); // a matrix, maybe followed by " (hook)"
    const v = !m && /^\[([^[\]]*)\](.*)$/.exec(body); // a vector
    if (!m && !v) return [part];
    // Rows (or numbers) packed greedily into lines of at most PACK_W: a
    // column [[a], [b], [c], [d]] takes two lines, not four.
    const items = m ? m[1].split(/(?<=\]), (?=\[)/) : v[1].split(', ');
    const tail = `]${(m || v)[2]}`; const indent = ' '.repeat(head.length + 1);
    const lines = []; let line = `${head}[`;
    items.forEach((it, i) => {
      const piece = `${it}${i === items.length - 1 ? tail : ','}`;
      const fresh = line === `${head}[` || line === indent;
      if (!fresh && labelWidth(`${line} ${piece}`) > PACK_W) { lines.push(line); line = indent; }
      line += `${line === `${head}[` || line === indent ? '' : ' '}${piece}`;
    });
    lines.push(line);
    return lines;
  });
}

/**
 * How a value label is drawn: its lines, width, height and font size (px).
 * Always in LABEL_FONT: a label set smaller to keep to its room (a whole
 * 3-vector once went down to 8.5 px, 6 px on screen) is unreadable; a wide
 * matrix takes a line per row instead (issue 32).
 */
export function labelSize(txt) {
  const lines = labelLines(txt);
  return { lines, w: Math.max(...lines.map(labelWidth)), h: 19 + (lines.length - 1) * LABEL_LINE, font: LABEL_FONT };
}

/**
 * A label's box as the figure's fit counts it: at most 1.2 × PLACED_LABEL_W
 * wide (the widest a one-line label gets before it takes lines, labelLines),
 * centred; a wider one (a long before → after) may overhang the fit a little.
 */
export function fitLabelBox(b) {
  const max = 1.2 * PLACED_LABEL_W;
  return b.w <= max ? b : { ...b, x: b.x + (b.w - max) / 2, w: max };
}

/** The widest value label each next_functions edge will show over the run (keyed as the edges); `heights` too. */
export function labelWidths(model) {
  const widths = new Map(); const heights = new Map(); widths.heights = heights;
  const widen = (node, j, txt) => {
    const e = model.nodes.get(node)?.next?.[j];
    if (e?.node == null) return;
    const key = `${node}>${e.node}#${j}`;
    // Placed at its full width, so a whole vector (never set smaller, issue
    // 32) keeps off the boxes and the other labels (the fit: fitLabelBox).
    const size = labelSize(txt);
    widths.set(key, Math.max(widths.get(key) || 0, size.w)); heights.set(key, Math.max(heights.get(key) || 0, size.h));
  };
  for (const ev of model.trace) {
    if (ev.type === 'node') (ev.gradInputs || []).forEach((g, j) => widen(ev.node, j, edgeLabelText(g ?? null)));
    // A post-hook that replaced grad_inputs labels the edge with before → after.
    else if (ev.type === 'hook' && ev.node != null && (ev.kind === 'node-post' || ev.kind === 'module-backward') && Array.isArray(ev.after)) {
      ev.after.forEach((g, j) => widen(ev.node, j, edgeLabelText(g ?? null, Array.isArray(ev.before) ? ev.before[j] ?? null : null)));
    }
  }
  for (const list of model.inPlace?.values() || []) for (const c of list) widen(c.from, c.index, edgeLabelText(c.after, c.before, c.by));
  return widths;
}

/** Largest magnitude (max |x|) of any gradient a node passed on. */
export function gradMagnitude(v) {
  if (v === null || v === undefined) return 0;
  if (typeof v === 'number') return Number.isFinite(v) ? Math.abs(v) : 0;
  let m = 0; for (const x of v) m = Math.max(m, gradMagnitude(x)); return m;
}

/** The largest gradient magnitude of the whole run: the widest edge stroke. */
export function maxGradNorm(model) {
  let m = 0;
  for (const ev of model.trace) if (ev.type === 'node') for (const g of ev.gradInputs || []) m = Math.max(m, gradMagnitude(g));
  return m;
}

/** Stroke width for a gradient: 1.5 px (zero) to 7 px (the run's largest), by square root. */
export function edgeWidth(v, max) {
  if (!(max > 0)) return 2;
  return Math.round((1.5 + 5.5 * Math.sqrt(Math.min(1, gradMagnitude(v) / max))) * 10) / 10;
}

/** End points of an edge from box a to box b: facing sides along the layout's direction (`spread` shifts the end on b). */
export function ends(a, b, dir = 'TB', spread = 0) {
  if (dir === 'LR') {
    const y1 = a.y + a.h / 2; const y2 = b.y + b.h / 2 + spread;
    return a.x > b.x ? [a.x, y1, b.x + b.w, y2] : [a.x + a.w, y1, b.x, y2];
  }
  const x1 = a.x + a.w / 2; const x2 = b.x + b.w / 2 + spread;
  return a.y > b.y ? [x1, a.y, x2, b.y + b.h] : [x1, a.y + a.h, x2, b.y];
}

/**
 * Midpoint along the length of curve(x1, y1, x2, y2), what
 * path.getPointAtLength(path.getTotalLength() / 2) returns, without a layout:
 * the curve is point-symmetric about the middle of its end points.
 */
export function curveMid(x1, y1, x2, y2) {
  return { x: (x1 + x2) / 2, y: (y1 + y2) / 2 };
}

/** Bounding box of curve(x1, y1, x2, y2, dir) (its control points included). */
function curveBox(x1, y1, x2, y2, dir = 'TB') {
  if (dir === 'LR') {
    const dx = Math.max(24, Math.abs(x2 - x1) / 2);
    return { x: Math.min(x1, x2) - dx, y: Math.min(y1, y2), w: Math.abs(x2 - x1) + 2 * dx, h: Math.abs(y2 - y1) };
  }
  const dy = Math.max(24, Math.abs(y2 - y1) / 2);
  return { x: Math.min(x1, x2), y: Math.min(y1, y2) - dy, w: Math.abs(x2 - x1), h: Math.abs(y2 - y1) + 2 * dy };
}

/** Control points of curve(): [x1, y1, c1x, c1y, c2x, c2y, x2, y2]. */
export function curvePoints(x1, y1, x2, y2, dir = 'TB') {
  if (dir === 'LR') {
    const dx = Math.max(24, Math.abs(x2 - x1) / 2) * (x2 >= x1 ? 1 : -1);
    return [x1, y1, x1 + dx, y1, x2 - dx, y2, x2, y2];
  }
  const dy = Math.max(24, Math.abs(y2 - y1) / 2) * (y2 >= y1 ? 1 : -1);
  return [x1, y1, x1, y1 + dy, x2, y2 - dy, x2, y2];
}

export function curve(x1, y1, x2, y2, dir = 'TB') {
  const c = curvePoints(x1, y1, x2, y2, dir);
  return `M${c[0]},${c[1]} C${c[2]},${c[3]} ${c[4]},${c[5]} ${c[6]},${c[7]}`;
}
