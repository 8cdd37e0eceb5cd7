// Where an edge's value label goes (pure geometry, graph units).
//
// The label sits at the middle of its edge's curve, unless a box is there:
// an edge that spans several ranks is drawn as one curve and can pass over
// the boxes between its ends (dagre routed it around them, but the figure
// draws a plain curve). Then the label slides along the curve to the nearest
// point where it covers no box, so a value never hides a title.

const LABEL_W = 40; // a typical value ("12.", "-0.25"); the label grows with its text
const LABEL_H = 19;
const STEPS = [0.5, 0.6, 0.4, 0.7, 0.3, 0.8, 0.2, 0.85, 0.15, 0.9, 0.1];

/** Point at t on the cubic c = [x1, y1, c1x, c1y, c2x, c2y, x2, y2]. */
export function cubicAt(c, t) {
  const u = 1 - t;
  const a = u * u * u; const b = 3 * u * u * t; const d = 3 * u * t * t; const e = t * t * t;
  return { x: a * c[0] + b * c[2] + d * c[4] + e * c[6], y: a * c[1] + b * c[3] + d * c[5] + e * c[7] };
}

const TITLE_BAND = 22; // a box's title row: covering it costs more than covering its values

/** How badly a label centred at p covers box b: overlap area, the title row's counted 4×. */
function cost(p, b, pad = 2) {
  const x0 = Math.max(p.x - LABEL_W / 2 - pad, b.x); const x1 = Math.min(p.x + LABEL_W / 2 + pad, b.x + b.w);
  const y0 = Math.max(p.y - LABEL_H / 2 - pad, b.y); const y1 = Math.min(p.y + LABEL_H / 2 + pad, b.y + b.h);
  if (x1 <= x0 || y1 <= y0) return 0;
  const title = Math.max(0, Math.min(y1, b.y + TITLE_BAND) - y0);
  return (x1 - x0) * ((y1 - y0) + 3 * title);
}

/**
 * The label's centre on curve c: the midpoint when no box in `boxes` (but
 * the edge's ends) is under it, else the nearest free point along the curve
 * (from the middle outward). A curve that runs through a box from end to
 * end has no free point: then the label takes the point that covers least,
 * a box's lower rows rather than its title. `labels`: boxes of labels
 * already placed, which this one keeps off too.
 */
export function labelPoint(c, boxes, labels = []) {
  // The edge's own end boxes do not count: between neighbouring ranks the
  // label may touch them, as it always has (the gap is narrower than a label).
  const touches = (b, x, y) => x >= b.x - 1 && x <= b.x + b.w + 1 && y >= b.y - 1 && y <= b.y + b.h + 1;
  const others = boxes.filter((b) => !touches(b, c[0], c[1]) && !touches(b, c[6], c[7])).concat(labels);
  let best = null; let bestCost = Infinity;
  for (const t of STEPS) {
    const p = cubicAt(c, t);
    const k = others.reduce((sum, b) => sum + cost(p, b), 0);
    if (k === 0) return p;
    if (k < bestCost) { best = p; bestCost = k; }
  }
  return best;
}

/** Label centres of the edges that carry values (next_functions edges), keyed like the specs, each placed clear of boxes and of the labels before it. */
export function placeLabels(specs, boxes) {
  const at = new Map(); const labels = [];
  for (const e of specs) {
    if (!e.next) continue;
    const p = labelPoint(e.c, boxes, labels);
    at.set(e.key, p);
    labels.push({ x: p.x - LABEL_W / 2, y: p.y - LABEL_H / 2, w: LABEL_W, h: LABEL_H });
  }
  return at;
}
