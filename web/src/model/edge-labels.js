// Where an edge's value label goes (pure geometry, graph units).
//
// The label sits at the middle of its edge's curve, unless something is
// there: an edge that spans several ranks is drawn as one curve and can pass
// over the boxes between its ends (dagre routed it around them, but the
// figure draws a plain curve), and two edges between the same two records
// (`c * c`) share their middle. Then the label slides along its curve to the
// nearest free point, or steps aside of it, so a value never hides a title
// or another value. Each label is placed at the widest text it will show
// (the run is known in full before the figure is drawn).

/** Width of a drawn value label (GraphView.edgeLabel): 7.6 per character (12.5-px bold mono) plus its padding. */
export const labelWidth = (txt) => txt.length * 7.6 + 12;
const LABEL_W = 40; // when the text is not known
const LABEL_H = 19;
const STEPS = [0.5, 0.6, 0.4, 0.7, 0.3, 0.8, 0.2, 0.85, 0.15, 0.9, 0.1];

/** Point at t on the cubic c = [x1, y1, c1x, c1y, c2x, c2y, x2, y2]. */
export function cubicAt(c, t) {
  const u = 1 - t;
  const a = u * u * u; const b = 3 * u * u * t; const d = 3 * u * t * t; const e = t * t * t;
  return { x: a * c[0] + b * c[2] + d * c[4] + e * c[6], y: a * c[1] + b * c[3] + d * c[5] + e * c[7] };
}

const TITLE_BAND = 22; // a box's title row: covering it costs more than covering its values

/** How badly a w×h label centred at p covers box b: overlap area, the title row's counted 4×. */
function cost(p, w, b, pad = 2, h = LABEL_H) {
  const x0 = Math.max(p.x - w / 2 - pad, b.x); const x1 = Math.min(p.x + w / 2 + pad, b.x + b.w);
  const y0 = Math.max(p.y - h / 2 - pad, b.y); const y1 = Math.min(p.y + h / 2 + pad, b.y + b.h);
  if (x1 <= x0 || y1 <= y0) return 0;
  const title = Math.max(0, Math.min(y1, b.y + TITLE_BAND) - y0);
  return (x1 - x0) * ((y1 - y0) + 3 * title);
}

/**
 * The centre of a w×h label on curve c: the midpoint when nothing in
 * `boxes` (but the edge's own end boxes) or `labels` (labels placed before)
 * is under it; else the nearest free point along the curve, from the middle
 * outward; else a free point one label aside of the curve. When nothing is
 * free (a curve that runs through a box from end to end), the point that
 * covers least: a box's lower rows rather than its title.
 */
export function labelPoint(c, boxes, labels = [], w = LABEL_W, h = LABEL_H) {
  // Between neighbouring ranks the label may touch the edge's ends, as it
  // always has (the gap is narrower than a label).
  const touches = (b, x, y) => x >= b.x - 1 && x <= b.x + b.w + 1 && y >= b.y - 1 && y <= b.y + b.h + 1;
  // Only what lies near the curve can be under a candidate (the curve stays
  // inside its control points' box; a step aside reaches 1.5 labels out).
  const mx = 1.5 * w + 8; const my = 1.5 * h + 8;
  const x0 = Math.min(c[0], c[2], c[4], c[6]) - mx; const x1 = Math.max(c[0], c[2], c[4], c[6]) + mx;
  const y0 = Math.min(c[1], c[3], c[5], c[7]) - my; const y1 = Math.max(c[1], c[3], c[5], c[7]) + my;
  const near = (b) => b.x < x1 && b.x + b.w > x0 && b.y < y1 && b.y + b.h > y0;
  const isEnd = (b) => touches(b, c[0], c[1]) || touches(b, c[6], c[7]);
  const others = boxes.filter((b) => near(b) && !isEnd(b)).concat(labels.filter(near));
  // The edge's own end boxes: a label may touch their value rows by the
  // edge's end, but not their titles (a wide matrix value covered
  // "TBackward0"); an overview record is all title (tensor over node name).
  const ends = boxes.filter((b) => near(b) && isEnd(b)).map((b) => ({ x: b.x, y: b.y, w: b.w, h: b.h <= 50 ? b.h : TITLE_BAND }));
  let best = null; let bestCost = Infinity;
  const tryAt = (p) => {
    const k = others.reduce((sum, b) => sum + cost(p, w, b, 2, h), 0) + ends.reduce((sum, b) => sum + cost(p, w, b, 0, h), 0);
    if (k < bestCost) { best = p; bestCost = k; }
    return k === 0;
  };
  for (const t of STEPS) if (tryAt(cubicAt(c, t))) return best;
  const onCurve = best; const onCurveCost = bestCost;
  for (const t of STEPS.slice(0, 5)) {
    const p = cubicAt(c, t);
    for (const q of [{ x: p.x + w + 4, y: p.y }, { x: p.x - w - 4, y: p.y }, { x: p.x, y: p.y + h + 4 }, { x: p.x, y: p.y - h - 4 }]) if (tryAt(q)) return best;
  }
  // A tall label (a matrix, a row per line) may need to step aside further, past a neighbouring box.
  for (const t of STEPS.slice(0, 3)) {
    const p = cubicAt(c, t);
    for (const q of [{ x: p.x + w / 2 + 8, y: p.y }, { x: p.x - w / 2 - 8, y: p.y }, { x: p.x + 1.5 * w + 8, y: p.y }, { x: p.x - 1.5 * w - 8, y: p.y }]) if (tryAt(q)) return best;
  }
  // Nothing free: stay on the curve unless stepping aside covers less.
  return bestCost < onCurveCost ? best : onCurve;
}

/**
 * Label centres ({x, y, box}) of the edges that carry values
 * (next_functions edges), keyed like the specs, each clear of boxes and of
 * the labels placed before it; `box` is the label's extent (Fit includes it).
 * `widthOf(key)`: the widest label the edge will show (undefined: a typical
 * one); `heightOf(key)`: its height (a matrix is drawn a row per line).
 */
export function placeLabels(specs, boxes, widthOf = () => undefined, heightOf = () => undefined) {
  const at = new Map(); const labels = [];
  for (const e of specs) {
    if (!e.next) continue;
    const w = widthOf(e.key) ?? LABEL_W; const h = heightOf(e.key) ?? LABEL_H;
    const p = labelPoint(e.c, boxes, labels, w, h);
    const box = { x: p.x - w / 2, y: p.y - h / 2, w, h };
    at.set(e.key, { x: p.x, y: p.y, box });
    labels.push(box);
  }
  return at;
}
