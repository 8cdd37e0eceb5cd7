// Big graphs: a canvas over the SVG that draws every box and edge in one
// pass (2,000 boxes cost a few ms; the same SVG costs ~100 ms per paint).
// Below DETAIL_K the SVG records would be unreadable (titles < 11 px), so
// the canvas is the figure: boxes coloured by kind and state, edges, the
// travelling gradient in red, and labels at a fixed, readable screen size
// (12 px) for as many boxes as have room — fewer labels, never tiny ones.
// From DETAIL_K up, the SVG records are drawn (lazily, near the view) and
// the canvas only fills in boxes whose SVG is not there yet.
import { MIN_TITLE_PX, TITLE_PX } from '../model/records.js';

/** Zoom from which the SVG records read (titles ≥ the page's 11-px text). */
export const DETAIL_K = MIN_TITLE_PX / TITLE_PX;

const LABEL_FONT = '600 12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const LABEL_H = 16; const MAX_LABELS = 160;

/** CSS variables of the page (dark mode included), read once per graph. */
function palette(elem) {
  const cs = getComputedStyle(elem);
  const v = (n, d) => cs.getPropertyValue(n).trim() || d;
  return {
    t: [v('--t-fill', '#eef3ff'), v('--t-stroke', '#9db3e6')], n: [v('--n-fill', '#fff5ea'), v('--n-stroke', '#e2a260')],
    a: [v('--a-fill', '#eefaf1'), v('--a-stroke', '#79bd8b')], m: [v('--cluster', '#f2f0ff'), v('--cluster-stroke', '#b9b1f0')],
    edge: v('--edge', '#a3abbd'), next: v('--edge-next', '#c9853f'), hot: v('--hot', '#e0452f'), grad: v('--grad', '#0f8a6a'),
    accent: v('--accent', '#5a4fd6'), accent2: v('--accent2', '#0f8a6a'), fg: v('--fg', '#1c2230'), panel: v('--panel', '#ffffff'), warn: v('--warn', '#b7791f'),
  };
}

/**
 * Greedy label placement in screen space: items in priority order, each
 * label centred on its box, kept when it overlaps no label placed before
 * (a grid of 64-px cells makes each test O(1)). Pure; returns the placed
 * { item, x, y, w } (x, y: label centre on screen).
 */
export function placeLabels(items, view, size, { charW = 7, max = MAX_LABELS, maxGeneric = 24, gap = 14, skip = () => false } = {}) {
  const { x: vx, y: vy, k } = view; const cell = 64; const grid = new Map(); const out = []; let generic = 0;
  const cells = (x0, y0, x1, y1, fn) => {
    for (let cx = Math.floor(x0 / cell); cx <= Math.floor(x1 / cell); cx++) for (let cy = Math.floor(y0 / cell); cy <= Math.floor(y1 / cell); cy++) if (fn(`${cx},${cy}`)) return true;
    return false;
  };
  for (const it of items) {
    if (out.length >= max) break;
    if (!it.title || skip(it) || (it.generic && generic >= maxGeneric)) continue;
    const b = it.box; const w = it.title.length * charW + 8;
    // A module's label sits at its frame's top-left corner; a box's on its centre.
    const cx = it.frame ? b.x * k + vx + w / 2 + 4 : (b.x + b.w / 2) * k + vx; const cy = it.frame ? b.y * k + vy + LABEL_H / 2 + 2 : (b.y + b.h / 2) * k + vy;
    if (cx < -40 || cy < -10 || cx > size.width + 40 || cy > size.height + 10) continue;
    const r = { x0: cx - w / 2, y0: cy - LABEL_H / 2, x1: cx + w / 2, y1: cy + LABEL_H / 2 };
    const hit = cells(r.x0 - gap, r.y0 - gap, r.x1 + gap, r.y1 + gap, (key) => (grid.get(key) || []).some((o) => o.x0 < r.x1 + gap && o.x1 > r.x0 - gap && o.y0 < r.y1 + gap / 2 && o.y1 > r.y0 - gap / 2));
    if (hit) continue;
    cells(r.x0, r.y0, r.x1, r.y1, (key) => { if (!grid.has(key)) grid.set(key, []); grid.get(key).push(r); return false; });
    out.push({ item: it, x: cx, y: cy, w }); if (it.generic) generic++;
  }
  return out;
}

export class OverviewCanvas {
  constructor(box) {
    this.box = box;
    this.canvas = document.createElement('canvas');
    this.canvas.className = 'graph-overview';
    this.canvas.setAttribute('aria-hidden', 'true');
    box.append(this.canvas);
    this.ctx = this.canvas.getContext('2d');
    this.items = []; this.edges = [];
  }

  /**
   * items: { box, title, fill: 't'|'n'|'a'|'m', tensor, node, module, prio, legacy };
   * edges: { key, c: [x1, y1, cx1, cy1, cx2, cy2, x2, y2], box, next }.
   */
  setGraph(items, edges, frames = []) {
    this.items = items; this.edges = edges;
    // Module frames are labelled first (their SVG labels are under the canvas).
    this.byPrio = [...frames, ...items].sort((a, b) => b.prio - a.prio);
    this.colors = palette(this.box);
    this.canvas.hidden = false;
  }

  clear() { this.items = []; this.edges = []; this.byPrio = []; this.canvas.hidden = true; }

  /**
   * Draws the figure at view { x, y, k } for a pane of `size`; `st`:
   * { frame, selected, hit, drawn(item) → true when its SVG record shows }.
   * Returns how many labels it placed.
   */
  draw(view, size, st = {}) {
    const { canvas, ctx, colors: C } = this; const dpr = globalThis.devicePixelRatio || 1;
    const W = Math.max(1, Math.round(size.width * dpr)); const H = Math.max(1, Math.round(size.height * dpr));
    if (canvas.width !== W || canvas.height !== H) { canvas.width = W; canvas.height = H; }
    ctx.setTransform(1, 0, 0, 1, 0, 0); ctx.clearRect(0, 0, W, H);
    if (!this.items.length) return 0;
    const { x: vx, y: vy, k } = view; const detail = k >= DETAIL_K;
    const drawn = st.drawn || (() => false);
    const vis = { x0: -vx / k, y0: -vy / k, x1: (size.width - vx) / k, y1: (size.height - vy) / k };
    const seen = (b) => b.x < vis.x1 && b.x + b.w > vis.x0 && b.y < vis.y1 && b.y + b.h > vis.y0;
    ctx.setTransform(dpr * k, 0, 0, dpr * k, dpr * vx, dpr * vy);
    const f = st.frame; const hot = new Set((f?.edges || []).map((e) => `${e.from}>${e.to}#${e.index}`));
    // Edges: one path per colour.
    // Zoomed out, edges are straight (a curve costs several times as much to rasterize).
    const straight = k < 0.35;
    const stroke = (list, color, px) => {
      if (!list.length) return;
      ctx.beginPath();
      for (const e of list) {
        const c = e.c; ctx.moveTo(c[0], c[1]);
        if (straight) ctx.lineTo(c[6], c[7]); else ctx.bezierCurveTo(c[2], c[3], c[4], c[5], c[6], c[7]);
      }
      ctx.strokeStyle = color; ctx.lineWidth = px / k; ctx.stroke();
    };
    const ops = []; const nexts = []; const hots = [];
    for (const e of this.edges) {
      if (!seen(e.box) || (detail && drawn(e))) continue;
      (hot.has(e.key) ? hots : e.next ? nexts : ops).push(e);
    }
    stroke(ops, C.edge, 1); stroke(nexts, C.next, 1.2); stroke(hots, C.hot, 3);
    // Boxes: one path per fill; state drawn on top.
    const groups = { t: [], n: [], a: [], m: [] }; const faded = [];
    for (const it of this.items) {
      if (!seen(it.box) || (detail && drawn(it))) continue;
      const future = f && ((it.tensor != null && !f.tensorCreated(it.tensor)) || (it.node != null && !f.nodeCreated(it.node)));
      (future ? faded : groups[it.fill] || groups.n).push(it);
    }
    const r = Math.min(9, 4 / k);
    const tiny = k * 60 < 12; // a typical box is under 12 px high on screen
    const boxes = (list, [fill, line], alpha = 1) => {
      if (!list.length) return;
      ctx.globalAlpha = alpha;
      // Tiny boxes: filled with the (darker) outline colour, no outline: visible, and cheap.
      if (tiny) { ctx.fillStyle = line; for (const it of list) { const b = it.box; ctx.fillRect(b.x, b.y, b.w, b.h); } ctx.globalAlpha = 1; return; }
      ctx.beginPath();
      for (const it of list) { const b = it.box; if (k * b.w < 24) ctx.rect(b.x, b.y, b.w, b.h); else ctx.roundRect(b.x, b.y, b.w, b.h, r); }
      ctx.fillStyle = fill; ctx.fill(); ctx.strokeStyle = line; ctx.lineWidth = 1.2 / k; ctx.stroke(); ctx.globalAlpha = 1;
    };
    for (const key of ['m', 't', 'n', 'a']) boxes(groups[key], C[key]);
    for (const key of ['m', 't', 'n', 'a']) boxes(faded.filter((it) => (it.fill || 'n') === key), C[key], 0.28);
    // A gradient that arrived: a green bar along the bottom of its box.
    if (f) {
      ctx.fillStyle = C.grad;
      for (const key of ['t', 'n', 'a']) for (const it of groups[key]) if (it.tensor != null && f.grads.get(it.tensor) != null) ctx.fillRect(it.box.x, it.box.y + it.box.h * 0.72, it.box.w, it.box.h * 0.28);
    }
    const ring = (it, color, px, halo = 0) => {
      const b = it.box; const pad = halo / k;
      ctx.beginPath(); ctx.roundRect(b.x - pad, b.y - pad, b.w + 2 * pad, b.h + 2 * pad, r + pad);
      ctx.strokeStyle = color; ctx.lineWidth = px / k; ctx.stroke();
    };
    const byKey = (tensor, node) => this.items.find((it) => (tensor != null && it.tensor === tensor) || (node != null && it.node === node));
    for (const it of this.items) if (it.legacy && seen(it.box) && !(detail && drawn(it))) ring(it, C.warn, 2);
    if (f?.focus) {
      const run = f.focus.node != null ? byKey(null, f.focus.node) : null;
      if (run && !(detail && drawn(run))) ring(run, C.hot, 3, 3);
    }
    const sel = st.selected && (st.selected.tensor != null || st.selected.node != null) ? byKey(st.selected.tensor, st.selected.node) : null;
    if (sel && !(detail && drawn(sel))) ring(sel, C.accent, 2.5, 2);
    // The search match: a ring that stays visible at any zoom.
    if (st.hit) { ring(st.hit, C.accent, 3, 4); ring(st.hit, C.accent, 1.5, 10); }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    if (detail) { canvas.dataset.labels = '0'; return 0; }
    // Labels in screen space: the match first, then by priority, where there is room.
    // The match, the running node and the selection are named first.
    const run = f?.focus?.node != null ? byKey(null, f.focus.node) : null;
    const first = [st.hit, run, sel].filter(Boolean);
    const order = first.length ? [...first, ...this.byPrio.filter((x) => !first.includes(x))] : this.byPrio;
    const placed = placeLabels(order, view, size);
    ctx.font = LABEL_FONT; ctx.textAlign = 'center'; ctx.textBaseline = 'middle';
    ctx.globalAlpha = 0.9; ctx.fillStyle = C.panel; ctx.beginPath();
    for (const p of placed) ctx.roundRect(p.x - p.w / 2, p.y - LABEL_H / 2, p.w, LABEL_H, 5);
    ctx.fill(); ctx.globalAlpha = 1;
    for (const p of placed) { ctx.fillStyle = p.item === st.hit ? C.accent : C.fg; ctx.fillText(p.item.title, p.x, p.y + 0.5); }
    this.labels = placed.length;
    canvas.dataset.labels = String(placed.length); // for tests: how many names the overview shows
    return placed.length;
  }

  /** The item under a point of the pane (px), or null. */
  hit(px, py, view) {
    const gx = (px - view.x) / view.k; const gy = (py - view.y) / view.k; const slop = 3 / view.k;
    let best = null;
    for (const it of this.items) {
      const b = it.box;
      if (gx >= b.x - slop && gx <= b.x + b.w + slop && gy >= b.y - slop && gy <= b.y + b.h + slop) best = it; // the last drawn is on top
    }
    return best;
  }
}
