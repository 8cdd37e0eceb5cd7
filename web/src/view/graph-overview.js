// Big graphs: the canvas overview that stands for the figure when zoomed
// out, the SVG records made lazily near the view when zoomed in, and clicks
// on the canvas. Split out of graph-view.js, which mixes these methods into
// GraphView (the SVG figure itself is drawn there).
import { DETAIL_K } from './overview-canvas.js';

export const OverviewMethods = {
  /** Big graphs: the canvas is redrawn once per animation frame, however many changes asked for it. */
  scheduleOverview() {
    if (!this.big || this.ovRaf) return;
    if (typeof requestAnimationFrame !== 'function') { this.drawOverview(); return; }
    this.ovRaf = requestAnimationFrame(() => { this.ovRaf = 0; this.drawOverview(); });
  },

  /**
   * Big graphs, once per animation frame after the view moved: below
   * DETAIL_K the canvas is the figure (the SVG records are hidden); from
   * DETAIL_K up, the SVG records near the view are made, at most ~8 ms of
   * them per frame (the canvas shows the others' boxes meanwhile).
   */
  lazyStep() {
    if (!this.big || !this.model) return;
    const detail = this.view.k >= DETAIL_K;
    this.root.classList.toggle('overview-mode', !detail);
    this.svg.classList.toggle('overview-mode', !detail);
    let more = false;
    if (detail) {
      const { width, height } = this.size(); const v = this.view;
      const w = width / v.k; const h = height / v.k; const x = -v.x / v.k; const y = -v.y / v.k;
      const r = { x0: x - 0.5 * w, y0: y - 0.5 * h, x1: x + 1.5 * w, y1: y + 1.5 * h };
      const near = (b) => b.x < r.x1 && b.x + b.w > r.x0 && b.y < r.y1 && b.y + b.h > r.y0;
      const t0 = performance.now(); let made = 0;
      for (const list of [this.unitSpecs, this.edgeSpecs]) {
        for (const spec of list) {
          if (spec.drawn || !near(spec.box)) continue;
          if (performance.now() - t0 > 8) { more = true; break; }
          if (list === this.edgeSpecs) this.drawEdge(spec); else this.drawUnit(spec);
          made++;
        }
        if (more) break;
      }
      if (made) {
        // The new records get the current frame's state and the match's highlight.
        if (this.lastApplied) this.apply(this.lastApplied.frame, { selected: this.lastApplied.selected, animate: false, follow: false, redraw: true });
        this.markMatch();
        this.cull();
      }
    }
    this.drawOverview();
    if (more) this.viewChanged();
  },

  /** Big graphs: module labels keep a readable size when zoomed out (they are few; the SVG keeps them focusable). */
  scaleToggles() {
    const s = Math.max(1, Math.round((0.9 / this.view.k) * 20) / 20);
    if (s === this.toggleScale) return;
    this.toggleScale = s;
    for (const { toggle, label } of this.clusterEls.values()) {
      const { x, y } = label;
      toggle.setAttribute('transform', s === 1 ? '' : `translate(${x},${y}) scale(${s}) translate(${-x},${-y})`);
    }
  },

  /** Big graphs: redraws the canvas for the current view and frame. */
  drawOverview() {
    if (!this.big || !this.overview) return;
    this.overview.draw(this.view, this.size(), { frame: this.lastApplied?.frame, selected: this.lastApplied?.selected, hit: this.match?.item || null, drawn: (it) => (it.spec ? it.spec.drawn : it.drawn) });
    if (!this.overviewShown) {
      this.overviewShown = true;
      // For tests and the bench: the first overview of this graph is on screen.
      this.svg.dataset.overview = String(this.drawToken);
      performance.mark?.('hookgrad:overview');
    }
  },

  /** Overview mode: a click on a box of the canvas selects it (or expands a collapsed module). */
  installOverviewClicks() {
    let down = null;
    this.svg.addEventListener('pointerdown', (e) => { down = { x: e.clientX, y: e.clientY }; });
    this.svg.addEventListener('click', (e) => {
      if (!this.big || !this.overview || e.target.closest('[role=button]')) return;
      if (down && Math.hypot(e.clientX - down.x, e.clientY - down.y) > 4) return; // a drag, not a click
      const r = this.svg.getBoundingClientRect();
      const it = this.overview.hit(e.clientX - r.left, e.clientY - r.top, this.view);
      if (!it || (this.view.k >= DETAIL_K && it.spec.drawn)) return;
      e.stopImmediatePropagation();
      if (it.module) this.onToggleModule(it.module);
      else this.onSelect(it.tensor != null ? { tensor: it.tensor } : { node: it.node });
    });
  },
};

/** What the overview canvas draws for each unit: box, title, colour, priority of its label. */
export function overviewItems(view) {
  const { model, input } = view;
  const consumers = new Map(); for (const e of input.edges) consumers.set(e.v, (consumers.get(e.v) || 0) + 1);
  return view.unitSpecs.map((spec) => {
    const { u } = spec;
    if (u.placeholder) {
      const c = input.clusters.find((x) => x.id === u.placeholder) || model.moduleCalls.find((x) => x.key === u.placeholder);
      return { spec, box: spec.box, title: `▸ ${c?.label || 'module'}`, fill: 'm', module: u.placeholder, prio: 100 };
    }
    const t = u.tensor != null ? model.tensors.get(u.tensor) : null; const n = u.node != null ? model.nodes.get(u.node) : null;
    const hooks = [...(t?.hooks || []), ...(n?.preHooks || []), ...(n?.postHooks || [])];
    const legacy = hooks.some((h) => h.kind === 'module-backward' || view.legacyHandles.has(h.handle));
    const root = !consumers.get(u.id);
    const prio = (root ? 90 : 0) + (hooks.length ? 60 : 0) + (t?.name ? 20 : 0) + (n?.name === 'AccumulateGrad' ? 10 : 0);
    // Unnamed tensors are labelled with their node's name, sparingly (see placeLabels' maxGeneric).
    return { spec, box: spec.box, title: t ? t.name || n?.name || `t${t.id}` : n?.name || '', generic: !t?.name && !hooks.length && !root, fill: n ? (n.name === 'AccumulateGrad' ? 'a' : 'n') : 't', tensor: t?.id ?? null, node: n?.id ?? null, legacy, prio };
  });
}

