// A small overview of the whole figure in a corner of the graph pane, with
// the visible part as a rectangle; click or drag in it to move the view.
// Shown only while the view does not show the whole figure. The boxes are
// drawn once per graph into an offscreen canvas; a view change only copies
// that image and draws the rectangle.

const MAX_W = 168; const MAX_H = 120;

/** Minimap scale and size for a layout (pure). */
export function minimapGeometry(layout, maxW = MAX_W, maxH = MAX_H) {
  const s = Math.min(maxW / Math.max(1, layout.width), maxH / Math.max(1, layout.height));
  return { s, w: Math.max(24, Math.round(layout.width * s)), h: Math.max(24, Math.round(layout.height * s)) };
}

/** True when the view { x, y, k } shows every part of the layout in a pane of `size`. */
export function showsWhole(layout, view, size, slack = 2) {
  const x0 = view.x; const y0 = view.y; const x1 = view.x + layout.width * view.k; const y1 = view.y + layout.height * view.k;
  return x0 >= -slack && y0 >= -slack && x1 <= size.width + slack && y1 <= size.height + slack;
}

const MARGIN = 8; // the minimap's distance from the pane's edges (styles.css)

/**
 * Which bottom corner the minimap takes (pure): it stays where it is unless
 * it covers one of the `avoid` boxes (graph coordinates) and the other
 * corner covers none.
 */
export function minimapSide(current, geo, view, size, avoid) {
  const rect = (side) => ({ x: side === 'left' ? MARGIN : size.width - MARGIN - geo.w, y: size.height - MARGIN - geo.h, w: geo.w, h: geo.h });
  const covers = (r) => avoid.some((b) => b.x * view.k + view.x < r.x + r.w && (b.x + b.w) * view.k + view.x > r.x
    && b.y * view.k + view.y < r.y + r.h && (b.y + b.h) * view.k + view.y > r.y);
  const other = current === 'left' ? 'right' : 'left';
  return covers(rect(current)) && !covers(rect(other)) ? other : current;
}

export class Minimap {
  /** onMove(gx, gy): centre the view on that graph point. */
  constructor(box, { onMove }) {
    this.onMove = onMove;
    const c = document.createElement('canvas');
    c.className = 'minimap'; c.hidden = true;
    c.setAttribute('role', 'img'); c.setAttribute('aria-label', 'Minimap of the whole graph: click or drag to move the view');
    box.append(c); this.canvas = c; this.ctx = c.getContext('2d');
    this.layout = null; this.base = null;
    let dragging = false;
    const go = (e) => {
      const r = c.getBoundingClientRect(); const { s } = this.geo;
      this.onMove((e.clientX - r.left) / s, (e.clientY - r.top) / s);
    };
    c.addEventListener('pointerdown', (e) => { if (!this.geo) return; e.stopPropagation(); e.preventDefault(); dragging = true; c.setPointerCapture(e.pointerId); go(e); });
    c.addEventListener('pointermove', (e) => { if (dragging) go(e); });
    const end = () => { dragging = false; };
    c.addEventListener('pointerup', end); c.addEventListener('pointercancel', end);
    c.addEventListener('click', (e) => e.stopPropagation()); // not a click on the figure (which deselects)
    c.addEventListener('wheel', (e) => e.stopPropagation());
  }

  /** Draws the boxes (layout.pos) and module frames once. */
  setGraph(layout) {
    this.layout = layout; const geo = (this.geo = minimapGeometry(layout));
    const dpr = globalThis.devicePixelRatio || 1;
    const c = this.canvas; c.width = Math.round(geo.w * dpr); c.height = Math.round(geo.h * dpr);
    c.style.width = `${geo.w}px`; c.style.height = `${geo.h}px`;
    const base = document.createElement('canvas'); base.width = c.width; base.height = c.height;
    const g = base.getContext('2d'); const cs = getComputedStyle(c);
    const v = (n, d) => cs.getPropertyValue(n).trim() || d;
    g.setTransform(dpr * geo.s, 0, 0, dpr * geo.s, 0, 0);
    g.fillStyle = v('--cluster', '#f2f0ff');
    for (const b of Object.values(layout.clusters || {})) g.fillRect(b.x, b.y, b.w, b.h);
    // Boxes in the muted text colour, half transparent: the viewport rectangle stands out.
    g.fillStyle = v('--muted', '#697186'); g.globalAlpha = 0.45;
    // At least half a minimap pixel per box, so a long chain stays visible.
    const minW = 0.5 / geo.s;
    for (const b of Object.values(layout.pos)) g.fillRect(b.x, b.y, Math.max(minW, b.w), Math.max(minW, b.h));
    this.base = base; this.rectColor = v('--accent', '#5a4fd6');
  }

  clear() { this.layout = null; this.geo = null; this.canvas.hidden = true; }

  /**
   * Redraws the viewport rectangle; hides the minimap while the whole figure
   * is in view. `avoid` (graph coordinates): what the current step is about;
   * the minimap moves to the other bottom corner rather than cover it.
   */
  update(view, size, avoid = []) {
    if (!this.layout || !this.base) return;
    const whole = showsWhole(this.layout, view, size);
    this.canvas.hidden = whole;
    if (whole) return;
    const side = minimapSide(this.canvas.classList.contains('at-left') ? 'left' : 'right', this.geo, view, size, avoid);
    this.canvas.classList.toggle('at-left', side === 'left');
    const { ctx, canvas: c } = this; const dpr = globalThis.devicePixelRatio || 1; const { s } = this.geo;
    ctx.setTransform(1, 0, 0, 1, 0, 0); ctx.clearRect(0, 0, c.width, c.height); ctx.drawImage(this.base, 0, 0);
    const x = (-view.x / view.k) * s; const y = (-view.y / view.k) * s; const w = (size.width / view.k) * s; const h = (size.height / view.k) * s;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = 'rgba(90, 79, 214, 0.12)'; ctx.fillRect(x, y, w, h);
    ctx.strokeStyle = this.rectColor; ctx.lineWidth = 1.5; ctx.strokeRect(x + 0.75, y + 0.75, Math.max(2, w - 1.5), Math.max(2, h - 1.5));
  }
}
