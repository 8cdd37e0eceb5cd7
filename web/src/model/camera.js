// Pure camera math (graph units ↔ pane pixels). A view is { x, y, k }: a
// graph point p is drawn at (p.x·k + x, p.y·k + y).

/**
 * The view that shows the whole figure centred, at most 1.25×; with minK,
 * never smaller (then from the top). The figure is a layout ({width, height}
 * from 0,0) or any bounds {x, y, width, height} (a layout grown by its pins).
 */
export function fitView(bounds, size, { minK = 0, margin = 8 } = {}) {
  const W = size.width || 800; const H = size.height || 500;
  const x0 = bounds.x || 0; const y0 = bounds.y || 0;
  const fitK = Math.min(1.25, (W - 2 * margin) / Math.max(1, bounds.width), (H - 2 * margin) / Math.max(1, bounds.height));
  const k = Math.max(fitK, Math.min(minK, 1.25));
  return { k, x: (W - bounds.width * k) / 2 - x0 * k, y: (k > fitK ? margin : (H - bounds.height * k) / 2) - y0 * k };
}

/** Union of boxes ({x, y, w, h}); null for none. */
export function unionBox(boxes) {
  const bs = boxes.filter(Boolean);
  if (!bs.length) return null;
  const x0 = Math.min(...bs.map((b) => b.x)); const y0 = Math.min(...bs.map((b) => b.y));
  const x1 = Math.max(...bs.map((b) => b.x + b.w)); const y1 = Math.max(...bs.map((b) => b.y + b.h));
  return { x: x0, y: y0, w: x1 - x0, h: y1 - y0 };
}

/**
 * The smallest move that brings every box into the pane: null when they are
 * all visible already (the camera stays put); a pan at the same zoom when
 * they fit; else zoomed out just enough, centred on them. Never zooms in.
 */
export function panToInclude(view, boxes, size, margin = 12) {
  const u = unionBox(boxes);
  if (!u || !(size.width > 0 && size.height > 0)) return null;
  const { x, y, k } = view;
  const sx0 = u.x * k + x; const sy0 = u.y * k + y; const sx1 = (u.x + u.w) * k + x; const sy1 = (u.y + u.h) * k + y;
  if (sx0 >= margin && sy0 >= margin && sx1 <= size.width - margin && sy1 <= size.height - margin) return null;
  const fitsK = Math.min((size.width - 2 * margin) / u.w, (size.height - 2 * margin) / u.h);
  if (fitsK < k) {
    const nk = fitsK;
    return { k: nk, x: size.width / 2 - (u.x + u.w / 2) * nk, y: size.height / 2 - (u.y + u.h / 2) * nk };
  }
  const shift = (lo, hi, max) => (lo < margin ? margin - lo : hi > max - margin ? max - margin - hi : 0);
  return { k, x: x + shift(sx0, sx1, size.width), y: y + shift(sy0, sy1, size.height) };
}

/**
 * What the camera fits: the figure with its value labels when that reads at
 * minK, else the figure without them (boxes and pins), whose labels may then
 * overhang the pane a little: a label's end cut at the edge loses less than
 * a figure shown in part (its value is also the step's sentence).
 */
export function fitBounds(figure, withLabels, size, minK) {
  return fitView(withLabels, size).k >= minK - 1e-6 || fitView(figure, size).k < minK - 1e-6 ? withLabels : figure;
}
