// The figure's camera: where the view looks (translate + scale of the
// graph's root), fitting, following the player, and the reader's pan and
// zoom (cooperative in embeds: the page keeps the wheel until the figure is
// clicked). Split out of graph-view.js, which mixes these methods into
// GraphView: the view draws, the camera moves it.
import { fitView, panToInclude } from '../model/camera.js';
import { MIN_READABLE_K } from '../model/records.js';

export const CameraMethods = {
  applyView(animate = false) {
    // Big graphs: the canvas follows the view frame by frame, so no CSS glide.
    if (this.big) animate = false;
    this.root.style.transition = animate ? 'transform .35s ease' : 'none';
    this.root.style.transform = `translate(${this.view.x}px, ${this.view.y}px) scale(${this.view.k})`;
    // While the transform animates, keep what was shown before visible too.
    this.cull(animate ? this.shownView : null);
    this.shownView = { ...this.view };
    this.viewChanged();
  },

  /**
   * Keeps the running node and the tensor whose .grad just changed in view;
   * a warning or error just pinned, and the step's values on edges, too.
   */
  keepFocus(frame, animate = true) { this.keepInView(this.focusBoxes(frame), animate); },

  /**
   * What a step is about, in graph coordinates, most important first: the
   * running node, its tensor, the .grad it changed, its pin, then the values
   * it puts on edges. The camera keeps them in view; the minimap stays off them.
   */
  focusBoxes(frame) {
    const f = frame.focus || {}; const ev = frame.step?.event;
    const gradChanged = gradChangedAt(frame);
    const pinned = ev && (ev.type === 'warning' || ev.type === 'error') ? frame.pins.find((p) => p.step === frame.k - 1) : null;
    const pinAt = pinned ? this.placedPinOf(pinned) : null;
    // Then the values this step puts on edges (dropped first when they do not all fit).
    const labels = (frame.edges || []).map((e) => this.edgeMid?.get(`${e.from}>${e.to}#${e.index}`)?.box);
    return [this.boxOf({ node: f.node }), this.boxOf({ tensor: f.tensor }), gradChanged != null ? this.boxOf({ tensor: gradChanged }) : null, pinAt, ...labels].filter(Boolean);
  },

  /** The box of a module's first call, by module name: its frame, or its box when collapsed (null if none). */
  moduleBox(name) {
    const c = this.input?.clusters.find((x) => x.name === name);
    if (c && this.layout.clusters[c.id]) return this.layout.clusters[c.id];
    const call = this.model?.moduleCalls.find((x) => x.name === name);
    const u = call && this.input?.units.find((x) => x.placeholder === call.key);
    return (u && this.layout.pos[u.id]) || null;
  },

  /** The minimap's rectangle, in the bottom corner that hides nothing the current step is about. */
  updateMinimap() {
    this.minimap?.update(this.view, this.size(), this.lastApplied ? this.focusBoxes(this.lastApplied.frame) : []);
  },

  /** Centres the view on a graph point at the same zoom (the minimap). */
  centreOn(gx, gy) {
    const { width, height } = this.size(); const k = this.view.k;
    this.view = { k, x: width / 2 - gx * k, y: height / 2 - gy * k };
    this.userMoved = true; this.fitted = null;
    this.applyView();
  },

  /** Pans (smoothly, only when it must) so these boxes are visible; zooms out only if they cannot fit. */
  keepInView(boxes, animate = true) {
    const list = boxes.filter(Boolean);
    // Never zoomed out below the readable scale (unless the reader is there
    // already): the first boxes (the running node first) win over the rest.
    const floor = this.big ? 0 : Math.min(this.view.k, MIN_READABLE_K);
    let v = panToInclude(this.view, list, this.size());
    for (let n = list.length - 1; v && v.k < floor - 1e-6 && n >= 1; n--) v = panToInclude(this.view, list.slice(0, n), this.size());
    if (v && v.k < floor - 1e-6) { // a box wider than the pane: its top-left corner in view
      const b = list[0];
      v = { k: floor, x: 12 - b.x * floor, y: 12 - b.y * floor };
    }
    if (!v) return;
    // A clamped view stays "fitted": a resize fits it again (then follows the node).
    this.view = v; if (!this.fitted?.clamped) this.fitted = null;
    this.applyView(animate && !this.reducedMotion());
  },

  reducedMotion() { return typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches; },

  /** Brings a box into view (the reader asked: selection, "runs on" buttons). */
  reveal(box, { force = false } = {}) {
    if (!box) return;
    if (force) this.userMoved = false;
    this.keepInView([box]);
  },

  /**
   * Fits the graph (and hands the camera back to the player). With minK the
   * figure is never drawn smaller: if it does not fit at minK it is shown
   * from its top and the view keeps the running node in sight (`clamped`).
   */
  fit({ minK = 0 } = {}) {
    if (!this.layout) return;
    const bounds = this.bounds || this.layout; const size = this.size();
    this.userMoved = false;
    this.view = fitView(bounds, size, { minK });
    this.fitted = { minK, clamped: this.view.k > fitView(bounds, size).k + 1e-6 };
    this.svg.dataset.clamped = this.fitted.clamped ? 'true' : 'false'; // (tests: shown in part at the readable scale)
    this.applyView();
    // A clamped view starts at the step's running node when there is one.
    if (this.fitted.clamped && this.lastApplied) this.keepFocus(this.lastApplied.frame, false);
  },

  zoomBy(f, cx, cy, { user = true } = {}) {
    const r = this.size();
    cx = cx ?? r.width / 2; cy = cy ?? r.height / 2;
    const k = Math.max(0.05, Math.min(4, this.view.k * f)); const s = k / this.view.k;
    this.view = { k, x: cx - (cx - this.view.x) * s, y: cy - (cy - this.view.y) * s };
    if (user) { this.userMoved = true; this.fitted = null; }
    this.applyView();
  },

  /** Cooperative mode: the figure takes wheel/touch gestures from now on (until it loses focus). */
  setActive(on) {
    if (!this.cooperative || this.active === on) return;
    this.active = on; this.svg.classList.toggle('active', on);
    this.hint(false);
  },

  /** A short "Ctrl + scroll to zoom" note over the figure (cooperative mode). */
  hint(show) {
    const box = this.svg.parentElement; if (!box) return;
    let n = box.querySelector('.coop-hint');
    if (!show) { if (n) n.hidden = true; return; }
    if (!n) { n = document.createElement('div'); n.className = 'coop-hint'; n.setAttribute('aria-hidden', 'true'); box.append(n); }
    n.textContent = 'Ctrl + scroll to zoom · click the figure to pan and zoom it';
    n.hidden = false; clearTimeout(this.hintTimer); this.hintTimer = setTimeout(() => { n.hidden = true; }, 1400);
  },

  installPanZoom() {
    if (this.cooperative) {
      if (!this.svg.hasAttribute('tabindex')) this.svg.setAttribute('tabindex', '0');
      this.svg.addEventListener('pointerdown', () => this.setActive(true));
      this.svg.addEventListener('focusin', () => this.setActive(true));
      this.svg.addEventListener('focusout', (e) => { if (!this.svg.contains(e.relatedTarget)) this.setActive(false); });
      document.addEventListener('pointerdown', (e) => { if (!this.svg.contains(e.target)) this.setActive(false); });
    }
    this.svg.addEventListener('wheel', (e) => {
      // Not activated: let the page scroll (Ctrl+wheel, which is also a trackpad pinch, still zooms).
      if (!this.active && !e.ctrlKey) { this.hint(true); return; }
      e.preventDefault();
      const r = this.svg.getBoundingClientRect();
      this.zoomBy(Math.exp(-e.deltaY * 0.0015), e.clientX - r.left, e.clientY - r.top);
    }, { passive: false });
    let drag = null;
    const touches = new Map();
    this.svg.addEventListener('pointerdown', (e) => {
      if (e.target.closest('[role=button]')) return;
      if (e.pointerType === 'touch') {
        touches.set(e.pointerId, { x: e.clientX, y: e.clientY });
        // One finger on an inactive figure scrolls the page (touch-action allows it).
        if (!this.active && touches.size < 2) return;
      }
      drag = { x: e.clientX, y: e.clientY, vx: this.view.x, vy: this.view.y };
      this.svg.setPointerCapture(e.pointerId); this.svg.classList.add('panning');
    });
    let pinch = null;
    this.svg.addEventListener('pointermove', (e) => {
      if (touches.has(e.pointerId)) touches.set(e.pointerId, { x: e.clientX, y: e.clientY });
      if (touches.size === 2) { // two fingers: pinch-zoom the figure (never the host page)
        const [a, b] = [...touches.values()]; const d = Math.hypot(a.x - b.x, a.y - b.y);
        const r = this.svg.getBoundingClientRect();
        if (pinch && pinch.d > 0) this.zoomBy(d / pinch.d, (a.x + b.x) / 2 - r.left, (a.y + b.y) / 2 - r.top);
        pinch = { d }; drag = null; return;
      }
      pinch = null;
      if (!drag) return;
      this.view.x = drag.vx + e.clientX - drag.x; this.view.y = drag.vy + e.clientY - drag.y; this.userMoved = true; this.applyView();
    });
    const end = (e) => { touches.delete(e.pointerId); drag = null; this.svg.classList.remove('panning'); };
    this.svg.addEventListener('pointerup', end); this.svg.addEventListener('pointercancel', end);
  },
};

/** The tensor whose .grad a frame's step writes (or null). */
export function gradChangedAt(frame) {
  const ev = frame.step?.event;
  return ev && (ev.type === 'accumulate' || ev.type === 'grad-set' || (ev.type === 'hook' && ev.kind === 'retain-grad')) ? ev.tensor : null;
}
