// SVG graph view: draws a laid-out model once (setGraph), then update(frame)
// only changes values and classes of elements kept in maps keyed by id.
// All user-derived text goes through textContent (never innerHTML).
//
// Performance (a 300-node graph animates at the display's frame rate):
//  - update() only records the frame; the DOM is written once per animation
//    frame (requestAnimationFrame), so several updates in one frame cost one;
//  - every element remembers what was last written to it (its classes, its
//    text): a frame only touches the elements whose state changed since the
//    previous frame, diffed by tensor/node/hook/edge id;
//  - nothing reads layout: edge midpoints come from the curve's geometry when
//    the graph is drawn, the SVG's size from a ResizeObserver.
import { GAP, BIG_UNITS } from '../model/layout.js';
import { abbreviate, MIN_READABLE_K } from '../model/records.js';
import { CameraMethods, gradChangedAt } from './graph-camera.js';
import { fitBounds } from '../model/camera.js';
import { OverviewMethods, overviewItems } from './graph-overview.js';
import { placePins, figureBounds, PIN_TEXT } from '../model/pins.js';
import { runPins, samePin } from '../model/trace-model.js';
import { placeLabels } from '../model/edge-labels.js';
import { edgeSpecs, labelWidths, edgeLabelText, maxGradNorm, edgeWidth, curveMid, fitLabelBox, labelSize, LABEL_LINE } from '../model/edges.js';
import { el, drawTensor, drawNode, drawMerged, updateBadge } from './graph-records.js';
import { OverviewCanvas, DETAIL_K } from './overview-canvas.js';
import { Minimap } from './minimap.js';
import { GraphSearch } from './search.js';

export class GraphView {
  constructor(svg, { onSelect = () => {}, onToggleModule = () => {}, cooperative = false } = {}) {
    this.svg = svg; this.onSelect = onSelect; this.onToggleModule = onToggleModule;
    // Cooperative gestures (embeds): the host page keeps wheel and touch
    // scrolling until the reader activates the figure (click, focus), or
    // holds Ctrl while scrolling / pinches.
    this.cooperative = cooperative; this.active = !cooperative;
    svg.classList.toggle('coop', cooperative);
    this.view = { x: 0, y: 0, k: 1 };
    svg.innerHTML = '';
    const defs = el('defs', {}, svg);
    for (const [id, cls] of [['arrow-next', 'arrow-next'], ['arrow-op', 'arrow-op'], ['arrow-hot', 'arrow-hot']]) {
      const m = el('marker', { id, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 10, markerHeight: 10, markerUnits: 'userSpaceOnUse', orient: 'auto-start-reverse' }, defs);
      el('path', { d: 'M0,0 L10,5 L0,10 z', class: cls }, m);
    }
    this.root = el('g', { class: 'viewport' }, svg);
    this.installPanZoom();
    // The SVG's size without a layout read (fit/focus run right after DOM writes).
    // Inside a .graph-box the SVG gets the box's size in px: an SVG root sized
    // by flex or percentages is laid out again, with every text in it, on any
    // layout of the page (Chromium), which costs ~120 ms for 300 nodes.
    this.sizeCache = null;
    const box = svg.parentElement?.classList.contains('graph-box') ? svg.parentElement : null;
    this.box = box;
    // Big graphs: the overview canvas (made on first use), the minimap, the search box of the pane head.
    this.overview = null;
    this.minimap = box ? new Minimap(box, { onMove: (gx, gy) => this.centreOn(gx, gy) }) : null;
    const pane = svg.closest('section, .embed-wrap, body');
    const q = (id) => pane?.querySelector(`#${id}`) || null;
    this.search = new GraphSearch({ input: q('graph-search'), status: q('graph-search-status'), toggle: q('graph-search-toggle'), view: this, onToggleModule: (key) => this.onToggleModule(key) });
    this.installOverviewClicks();
    if (typeof ResizeObserver === 'function') {
      new ResizeObserver((entries) => {
        const r = entries[entries.length - 1].contentRect;
        const size = { width: r.width, height: r.height };
        if (box) { svg.style.width = `${size.width}px`; svg.style.height = `${size.height}px`; }
        const changed = !this.sizeCache || Math.abs(this.sizeCache.width - size.width) > 1 || Math.abs(this.sizeCache.height - size.height) > 1;
        this.sizeCache = size;
        // A fitted figure stays fitted when the pane changes size (unless the reader moved it).
        if (changed && this.fitted && !this.userMoved && this.layout) this.fit(this.fitted);
        else { this.cull(); this.viewChanged(); }
      }).observe(box || svg);
    }
    this.pending = null; this.raf = 0;
  }

  /** Width and height of the SVG (cached from the ResizeObserver once it reported). */
  size() {
    if (this.sizeCache && this.sizeCache.width > 0) return this.sizeCache;
    const r = this.svg.getBoundingClientRect();
    return { width: r.width, height: r.height };
  }

  /** Draws a model laid out by computeLayout (or layered.js for big graphs). */
  async setGraph(model, input, layout, { legacyHandles = new Map(), focusModule = null } = {}) {
    this.model = model; this.input = input; this.layout = layout; this.legacyHandles = legacyHandles;
    const lod = input.lod || 'full'; this.lod = lod;
    this.pending = null; // a frame queued for the previous graph must not touch this one
    const token = (this.drawToken = (this.drawToken || 0) + 1);
    // Big graphs: every box is known (for the camera, search, canvas), but an
    // SVG record is only made when the view is zoomed in near it (see lazyStep()).
    const big = (this.big = input.units.length > BIG_UNITS);
    // Mid-sized graphs are drawn in slices so the page keeps responding.
    const sliced = input.units.length > 60; let n = 0;
    this.cullItems = []; this.cullOn = sliced; this.shownView = null; this.lastApplied = null; this.match = null; this.overviewShown = false; this.toggleScale = 1;
    const breathe = async () => { if (sliced && ++n % 25 === 0) await new Promise((r) => setTimeout(r, 0)); return token !== this.drawToken; };
    this.root.innerHTML = '';
    this.root.classList.toggle('big', big);
    const gClusters = el('g', { class: 'clusters' }, this.root);
    this.gEdges = el('g', { class: 'edges' }, this.root);
    // Pins' leader lines run under the boxes, so they never strike through a title.
    this.gLeaders = el('g', { class: 'pins' }, this.root);
    this.gUnits = el('g', { class: 'units' }, this.root);
    const gClusterLabels = el('g', { class: 'cluster-labels' }, this.root);
    this.gFlow = el('g', { class: 'flow' }, this.root);
    // Values that already travelled, the moving dots, then the values travelling now (on top).
    this.gPast = el('g', {}, this.gFlow); this.gDots = el('g', {}, this.gFlow); this.gNow = el('g', {}, this.gFlow);
    this.gPins = el('g', { class: 'pins' }, this.root);
    this.tensorEls = new Map(); this.nodeEls = new Map(); this.edgeEls = new Map(); this.edgeMid = new Map(); this.clusterEls = new Map(); this.boxes = new Map();
    // What the last applied frame wrote (diffed against the next one).
    this.edgeState = new Map(); this.flowLabels = new Map(); this.pinKey = ''; this.hasDots = false; this.lastK = null;
    this.maxGrad = maxGradNorm(model);

    const labelsPlaced = []; // label boxes drawn so far: a nested module's label that starts where its parent's does moves right of it
    for (const c of input.clusters) {
      const b = layout.clusters[c.id]; if (!b) continue;
      const g = el('g', { class: 'cluster', 'data-module': c.id }, gClusters);
      el('rect', { x: b.x, y: b.y, width: b.w, height: b.h, rx: 12, class: 'cluster-box' }, g);
      // layered.js: the rest of a module folded over several columns.
      for (const q of layout.clusterParts?.[c.id] || []) el('rect', { x: q.x, y: q.y, width: q.w, height: q.h, rx: 12, class: 'cluster-box' }, g);
      const t = el('g', { class: 'cluster-toggle', role: 'button', tabindex: 0, 'aria-label': `Collapse module ${c.label}`, 'aria-expanded': 'true' }, gClusterLabels);
      const lw = Math.min(b.w - 12, c.label.length * 8.1 + 34); let lx = b.x + 6; const ly = b.y + 5; // (13-px semibold title)
      for (const q of labelsPlaced) if (ly < q.y + 20 && q.y < ly + 20 && lx < q.x + q.w && q.x < lx + lw) lx = q.x + q.w + 4;
      labelsPlaced.push({ x: lx, y: ly, w: lw });
      el('rect', { x: lx, y: ly, width: lw, height: 20, rx: 6, class: 'cluster-label-bg' }, t);
      el('text', { x: lx + 8, y: b.y + 19, class: 'cluster-label' }, t, `▾ ${c.label}`);
      this.bindActivate(t, () => this.onToggleModule(c.id));
      this.clusterEls.set(c.id, { g, box: b, toggle: t, label: { x: lx, y: ly }, c: { active: false } });
    }
    // Where every record goes (the boxes of collapsed modules stand for their members).
    this.unitSpecs = [];
    for (const u of input.units) {
      const p = layout.pos[u.id]; if (!p) continue;
      const spec = { u, p, box: { x: p.x, y: p.y, w: u.w, h: u.h }, drawn: false };
      if (u.placeholder) this.boxes.set(u.id, spec.box);
      else if (lod === 'compact') {
        if (u.tensor != null) this.boxes.set(`t${u.tensor}`, spec.box);
        if (u.node != null) this.boxes.set(`n${u.node}`, spec.box);
      } else {
        spec.tb = u.tensor != null ? { x: p.x, y: p.y, w: u.tw, h: u.th } : null;
        spec.nb = u.node != null ? { x: spec.tb ? p.x + u.tw + GAP : p.x, y: p.y, w: u.nw, h: u.nh } : null;
        if (spec.tb) this.boxes.set(`t${u.tensor}`, spec.tb);
        if (spec.nb) this.boxes.set(`n${u.node}`, spec.nb);
      }
      this.unitSpecs.push(spec);
    }
    if (big) { await new Promise((r) => setTimeout(r, 0)); if (token !== this.drawToken) return false; }
    this.edgeSpecs = edgeSpecs(model, input, this.boxes, lod);
    // Value labels keep off the boxes, the module titles and each other (big graphs: the middle).
    if (big) for (const e of this.edgeSpecs) this.edgeMid.set(e.key, curveMid(e.c[0], e.c[1], e.c[6], e.c[7]));
    else {
      const widths = labelWidths(model);
      this.edgeMid = placeLabels(this.edgeSpecs, [...Object.values(layout.pos), ...labelsPlaced.map((q) => ({ ...q, h: 20 }))], (key) => widths.get(key), (key) => widths.heights.get(key));
    }
    if (big) {
      // What follows (first frame, inspector, first canvas) is a task of its own.
      await new Promise((r) => setTimeout(r, 0));
      if (token !== this.drawToken) return false;
      this.overview ||= this.box ? new OverviewCanvas(this.box) : null;
      const frames = input.clusters.filter((c) => layout.clusters[c.id]).map((c) => ({ box: layout.clusters[c.id], title: `▾ ${c.label}`, frame: true, module: c.id, prio: 120 }));
      this.overview?.setGraph(overviewItems(this), this.edgeSpecs, frames);
    } else {
      this.overview?.clear();
      for (const spec of this.unitSpecs) { if (await breathe()) return false; this.drawUnit(spec); }
      for (const e of this.edgeSpecs) this.drawEdge(e);
    }
    this.minimap?.setGraph(layout);
    this.svg.dataset.layoutWidth = String(Math.round(layout.width)); // the figure's width in graph units (tests: minimap scale)
    // First view: the whole figure when it reads (see session.chooseLayout) or
    // when it is big (the overview reads at any size); else a readable part
    // from the top (the minimap shows the rest).
    // Fit includes every pin the run will show (before it appears) and every
    // value label (one stepped aside can pass the layout's edge).
    this.placedPins = placePins(runPins(model), (p) => this.pinBox(p), { compact: lod === 'compact', textWidth: pinTextWidth(this.svg) });
    this.bounds = fitBounds(figureBounds(layout, this.placedPins), figureBounds(layout, [...this.placedPins, ...[...this.edgeMid.values()].map((m) => m.box && fitLabelBox(m.box)).filter(Boolean)]), this.size(), big ? 0 : MIN_READABLE_K);
    // Never under MIN_READABLE_K (text ≥ 11 px): else shown in part and followed (apply()); big graphs: the overview.
    this.fit({ minK: big ? 0 : MIN_READABLE_K });
    this.focusModuleName = focusModule;
    // Shown in part: start at the lesson's module (the flagship's Mul3), not at whatever the top-centre is.
    if (this.fitted?.clamped && focusModule) this.keepInView([this.moduleBox(focusModule)], false);
    this.search?.refresh();
    return true;
  }

  /** Draws one unit's SVG record(s). */
  drawUnit(spec) {
    const { u, p } = spec; const model = this.model; const parent = this.gUnits;
    spec.drawn = true;
    if (u.placeholder) { this.drawPlaceholder(parent, u, p); return; }
    if (this.lod === 'compact') { // one merged record per unit (torchviz-like)
      drawMerged(this, parent, u.tensor != null ? model.tensors.get(u.tensor) : null, u.node != null ? model.nodes.get(u.node) : null, spec.box, this.legacyHandles);
      return;
    }
    const { tb, nb } = spec;
    if (tb) drawTensor(this, parent, model.tensors.get(u.tensor), tb, this.lod);
    if (nb) drawNode(this, parent, model.nodes.get(u.node), nb, this.lod, this.legacyHandles);
    if (tb && nb) {
      const l = el('path', { d: `M${tb.x + tb.w},${tb.y + 14} H${nb.x}`, class: 'gradfn-link' }, this.gEdges); el('title', {}, l, u.node === model.tensors.get(u.tensor).gradFn ? 'grad_fn' : 'AccumulateGrad of this leaf');
      this.cullItems.push({ g: l, box: { x: tb.x + tb.w, y: tb.y + 14, w: nb.x - tb.x - tb.w, h: 1 }, c: { culled: false } });
    }
  }

  /** Draws one edge (an entry of edgeSpecs()). */
  drawEdge(e) {
    e.drawn = true;
    const c = e.c;
    const path = el('path', { d: `M${c[0]},${c[1]} C${c[2]},${c[3]} ${c[4]},${c[5]} ${c[6]},${c[7]}`, class: e.next ? 'edge-next' : 'edge-op', 'marker-end': e.next ? 'url(#arrow-next)' : 'url(#arrow-op)' }, this.gEdges);
    if (e.title) el('title', {}, path, e.title);
    this.edgeEls.set(e.key, path);
    this.cullItems.push({ g: path, box: e.box, c: { culled: false } });
  }

  drawPlaceholder(parent, u, p) {
    const c = this.input.clusters.find((x) => x.id === u.placeholder) || this.model.moduleCalls.find((x) => x.key === u.placeholder);
    const label = c?.label || 'module';
    // A collapsed module that holds a node with a legacy backward hook says so.
    const legacyInside = [...this.model.nodes.values()].some((n) => this.input.unitOfNode[n.id] === u.id && [...(n.preHooks || []), ...(n.postHooks || [])].some((h) => h.kind === 'module-backward'));
    const g = el('g', { class: `placeholder${legacyInside ? ' has-legacy' : ''}`, 'data-unit': u.id, role: 'button', tabindex: 0, 'aria-label': `Expand module ${label}`, 'aria-expanded': 'false' }, parent);
    el('rect', { x: p.x, y: p.y, width: p.w, height: p.h, rx: 12, class: 'cluster-box collapsed' }, g);
    this.cullItems.push({ g, box: { x: p.x, y: p.y, w: p.w, h: p.h }, c: { culled: false } });
    el('text', { x: p.x + 12, y: p.y + 22, class: 'cluster-label title' }, g, `▸ ${label}`);
    el('text', { x: p.x + 12, y: p.y + 41, class: 'muted' }, g, `${u.members} item${u.members === 1 ? '' : 's'} inside`);
    this.bindActivate(g, () => this.onToggleModule(u.placeholder));
  }

  bindActivate(g, fn) {
    g.addEventListener('click', (e) => { e.stopPropagation(); fn(); });
    g.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); e.stopPropagation(); fn(); } });
  }

  /**
   * Shows a frame from trace-model.frameAt. The DOM is written at the next
   * animation frame (only the latest frame queued by then is applied); call
   * flush() to apply it right away.
   */
  update(frame, { selected = {}, animate = true, follow = false } = {}) {
    if (!this.model) return;
    // The latest frame wins, as if each had been drawn; following the focus sticks.
    this.pending = { frame, selected, animate, follow: follow || !!this.pending?.follow };
    if (this.raf) return;
    if (typeof requestAnimationFrame !== 'function') { this.flush(); return; }
    this.raf = requestAnimationFrame(() => { this.raf = 0; this.flush(); });
  }

  /** Applies the queued frame now (no-op when nothing is queued). */
  flush() {
    const p = this.pending; this.pending = null;
    if (!p || !this.model) return;
    this.apply(p.frame, p);
  }

  apply(frame, { selected = {}, animate = true, follow = false, redraw = false } = {}) {
    // A clamped view follows a new step (not a re-render for a selection, which reveals its own box).
    const newStep = !this.lastApplied || this.lastApplied.frame.k !== frame.k;
    this.lastApplied = { frame, selected };
    const f = frame.focus || {};
    const gradChanged = gradChangedAt(frame);
    // The camera follows the player; a view clamped at the readable scale
    // (the whole figure does not fit) follows it always.
    if ((follow || (this.fitted?.clamped && newStep)) && !this.userMoved) this.keepFocus(frame);
    for (const [id, t] of this.tensorEls) {
      const c = t.c;
      const g = frame.grads.get(id) ?? null;
      if (g !== c.grad) {
        c.grad = g;
        if (t.vals.grad) t.vals.grad.textContent = g === null ? '' : abbreviate(g, t.maxChars);
      }
      setClass(t.g, c, 'filled', g !== null);
      setClass(t.g, c, 'changed', gradChanged === id);
      setClass(t.g, c, 'future', !frame.tensorCreated(id));
      setClass(t.g, c, 'focus', f.tensor === id);
      setClass(t.g, c, 'selected', selected.tensor === id);
      for (const r of t.hookRows) updateBadge(r, frame, setClass);
      if (t.merged) {
        const fires = t.merged.handles.map((h) => frame.hookFires.get(h)).filter(Boolean);
        setClass(t.g, t.merged.c, 'hook-fired', fires.length > 0);
        setClass(t.g, t.merged.c, 'hook-firing', fires.some((x) => x.step === frame.k - 1));
      }
    }
    for (const [id, n] of this.nodeEls) {
      const c = n.c;
      setClass(n.g, c, 'done', frame.done.has(id));
      setClass(n.g, c, 'running', f.node === id);
      setClass(n.g, c, 'future', !frame.nodeCreated(id));
      setClass(n.g, c, 'selected', selected.node === id);
      for (const r of n.hookRows) updateBadge(r, frame, setClass);
    }
    for (const [key, cl] of this.clusterEls) setClass(cl.g, cl.c, 'active', f.module === key);

    // Edges: 'hot' carries a value now, 'carried' carried one earlier; each with a label.
    const want = new Map(); // edge key → { cls: 'hot' | 'carried', value }
    const hot = new Set(frame.edges.map((e) => `${e.from}>${e.to}#${e.index}`));
    // Values that already travelled stay on their edges (small graphs only).
    if (this.edgeEls.size <= 80) {
      for (const [nid, io] of frame.nodeIO) {
        (this.model.nodes.get(nid)?.next || []).forEach((e, j) => {
          const key = `${nid}>${e.node}#${j}`;
          if (e.node == null || hot.has(key) || !this.edgeEls.has(key)) return;
          want.set(key, { cls: 'carried', value: io.gradInputs?.[j] ?? null });
        });
      }
    }
    for (const e of frame.edges) {
      const key = `${e.from}>${e.to}#${e.index}`;
      if (this.edgeEls.has(key)) want.set(key, { cls: 'hot', value: e.value, before: e.before, by: e.by });
    }
    for (const [key, cls] of this.edgeState) {
      if (want.get(key)?.cls === cls) continue;
      const e = this.edgeEls.get(key); if (e) { e.classList.remove(cls); e.style.strokeWidth = ''; }
      this.edgeState.delete(key);
    }
    for (const [key, w] of want) {
      if (this.edgeState.get(key) === w.cls) continue;
      const e = this.edgeEls.get(key); e.classList.add(w.cls); this.edgeState.set(key, w.cls);
      // Edge width encodes the gradient's magnitude (legend in the pane head).
      e.style.strokeWidth = `${edgeWidth(w.value, this.maxGrad)}px`;
    }
    // Gradients travel along their edges when stepping forward and when playing.
    if (this.hasDots) { this.gDots.replaceChildren(); this.hasDots = false; }
    const stepped = frame.k === (this.lastK ?? -2) + 1;
    this.lastK = frame.k;
    if ((animate || stepped) && !this.reducedMotion()) {
      for (const e of frame.edges) {
        const path = this.edgeEls.get(`${e.from}>${e.to}#${e.index}`);
        if (!path) continue;
        const dot = el('circle', { r: 6, class: 'flow-dot' }, this.gDots);
        const am = el('animateMotion', { dur: '0.6s', fill: 'freeze', path: path.getAttribute('d') }, dot);
        am.beginElement?.();
        this.hasDots = true;
      }
    }
    const labels = new Map();
    for (const [key, w] of want) {
      const mid = this.edgeMid.get(key); if (!mid) continue;
      labels.set(key, { cls: w.cls === 'hot' ? 'now' : 'past', txt: edgeLabelText(w.value, w.before, w.by), mid });
    }
    for (const [key, l] of this.flowLabels) {
      const n = labels.get(key);
      if (!n || n.cls !== l.cls || n.txt !== l.txt) { l.g.remove(); this.flowLabels.delete(key); }
    }
    for (const [key, l] of labels) {
      if (this.flowLabels.has(key)) continue;
      this.flowLabels.set(key, { ...l, g: this.edgeLabel(l.mid, l.txt, l.cls, key) });
    }
    this.drawPins(frame.pins);
    this.updateMinimap(); // the step's values may sit under it
    // (Drawn right away: this runs in an animation frame; the canvas is rasterized once per frame anyway.)
    if (!redraw) this.drawOverview();
  }

  /** A value label centred on an edge's midpoint. */
  edgeLabel(mid, txt, cls, key) {
    const g = el('g', { class: `flow-label ${cls}`, 'data-edge': key }, cls === 'now' ? this.gNow : this.gPast);
    const { w, h, lines } = labelSize(txt);
    el('rect', { x: mid.x - w / 2, y: mid.y - h / 2 - 0.5, width: w, height: h, rx: 9 }, g);
    // Several lines (a matrix a row per line): left-aligned so the columns line up; one <text>, whose text is the value.
    const t = el('text', lines.length === 1 ? { x: mid.x, y: mid.y + 4, 'text-anchor': 'middle' } : {}, g, lines.length === 1 ? txt : null);
    if (lines.length > 1) lines.forEach((line, i) => el('tspan', { x: mid.x - w / 2 + 6, y: mid.y - h / 2 + 13.5 + i * LABEL_LINE }, t, line));
    return g;
  }

  /** Where a warning pin points: its node or tensor, else its module; inside a collapsed module, that module's box. */
  pinBox(p) {
    const direct = (p.node != null && this.boxes.get(`n${p.node}`)) || (p.tensor != null && this.boxes.get(`t${p.tensor}`)) || (p.module && this.clusterEls.get(p.module)?.box);
    if (direct) return direct;
    const unit = (p.node != null && this.input?.unitOfNode?.[p.node]) || (p.tensor != null && this.input?.unitOfTensor?.[p.tensor])
      || (p.module && this.input?.units?.find((u) => u.placeholder === p.module)?.id);
    return (unit && this.layout?.pos?.[unit]) || null;
  }

  /** Draws the frame's pins where placePins put them (a frame's pins are the first of the run's). */
  drawPins(pins) {
    const key = JSON.stringify(pins.map((p) => [p.level, p.message, p.node, p.tensor, p.module]));
    if (key === this.pinKey) return;
    this.pinKey = key;
    this.gPins.replaceChildren(); this.gLeaders.replaceChildren();
    for (const p of pins) {
      const at = this.placedPinOf(p);
      if (!at) continue;
      if (at.leader) {
        const { x1, y1, x2, y2 } = at.leader;
        const lg = el('g', { class: `pin ${p.level}` }, this.gLeaders);
        el('path', { class: 'leader', d: `M${x1},${y1}L${x2},${y2}` }, lg);
        el('circle', { class: 'leader-end', cx: x2, cy: y2, r: 3 }, lg);
      }
      const g = el('g', { class: `pin ${p.level}${at.badge ? ' badge' : ''}`, transform: `translate(${at.x},${at.y})` }, this.gPins);
      el('rect', { x: 0, y: 0, width: at.w, height: at.h, rx: Math.min(10, at.h / 2) }, g);
      if (at.badge) el('text', { x: at.w / 2, y: at.h / 2 + 4.5, 'text-anchor': 'middle' }, g, at.lines[0]);
      else at.lines.forEach((line, i) => el('text', { x: PIN_TEXT.padX, y: PIN_TEXT.padY + 12.5 + i * PIN_TEXT.lineH }, g, line));
      el('title', {}, g, p.message);
    }
  }

  /** The placement of a frame's pin among the run's (same message at the same place). */
  placedPinOf(p) {
    return (this.placedPins || []).find(({ pin }) => samePin(pin, p)) || null;
  }

  /** After the view moved: minimap rectangle now; the canvas and lazy records at the next animation frame. */
  viewChanged() {
    if (!this.layout) return;
    this.updateMinimap();
    if (!this.big) return;
    this.scaleToggles();
    if (this.lazyRaf) return;
    if (typeof requestAnimationFrame !== 'function') { this.lazyStep(); return; }
    this.lazyRaf = requestAnimationFrame(() => { this.lazyRaf = 0; this.lazyStep(); });
  }

  // ---- search ----
  /** What the search box looks in: modules, tensors, backward nodes (in the figure's order). */
  searchIndex() {
    if (!this.model) return [];
    const out = [];
    const collapsedUnits = new Set(this.input.units.filter((u) => u.placeholder).map((u) => u.placeholder));
    const seenModules = new Set();
    for (const c of this.model.moduleCalls) {
      const shown = this.input.clusters.find((x) => x.id === c.key);
      if (shown || collapsedUnits.has(c.key)) { seenModules.add(c.key); out.push({ kind: 'module', label: shown?.label || c.label, module: c.key, collapsed: !shown }); }
    }
    for (const t of this.model.tensors.values()) out.push({ kind: 'tensor', label: t.name || `t${t.id}`, tensor: t.id });
    for (const n of this.model.nodes.values()) out.push({ kind: 'node', label: n.name || `node ${n.id}`, node: n.id });
    return out;
  }

  /** Centres a search match at a readable zoom and rings it; returns where it is when it is hidden in a collapsed module. */
  showMatch(m) {
    const own = m.module ? this.clusterEls.get(m.module)?.box || this.boxes.get(`c${m.module}`) : this.boxOf(m);
    const unit = m.tensor != null ? this.input.unitOfTensor[m.tensor] : m.node != null ? this.input.unitOfNode[m.node] : null;
    const box = own || (unit && this.boxes.get(unit)) || null;
    if (!box) { this.clearMatch(); return '(not drawn)'; }
    const item = this.overview?.items.find((it) => it.box === box) || { box, spec: { drawn: false } };
    this.match = { m, box, item, key: m.module ? (own && this.clusterEls.has(m.module) ? `m:${m.module}` : `u:c${m.module}`) : m.tensor != null ? `t:${m.tensor}` : `n:${m.node}` };
    const { width, height } = this.size();
    const fitK = Math.min((0.8 * width) / box.w, (0.8 * height) / box.h);
    const k = Math.max(0.05, Math.min(fitK, Math.max(this.view.k, DETAIL_K * 1.3)));
    this.view = { k, x: width / 2 - (box.x + box.w / 2) * k, y: height / 2 - (box.y + box.h / 2) * k };
    this.userMoved = true; this.fitted = null;
    this.applyView(!this.reducedMotion());
    this.markMatch();
    this.scheduleOverview();
    const placeholder = !own && unit ? this.input.units.find((u) => u.id === unit) : null;
    return placeholder ? `(inside collapsed module ${this.model.moduleCalls.find((c) => c.key === placeholder.placeholder)?.name || ''})` : '';
  }

  clearMatch() { this.match = null; this.markMatch(); this.scheduleOverview(); }

  /** The SVG record of the match (if drawn) gets the .search-hit class. */
  markMatch() {
    this.svg.querySelectorAll('.search-hit').forEach((e) => e.classList.remove('search-hit'));
    const k = this.match?.key; if (!k) return;
    const [kind, id] = [k.slice(0, 1), k.slice(2)];
    const elem = kind === 't' ? this.tensorEls.get(Number(id))?.g : kind === 'n' ? this.nodeEls.get(Number(id))?.g
      : kind === 'm' ? this.clusterEls.get(id)?.g : this.root.querySelector(`.placeholder[data-unit="${CSS.escape(id)}"]`);
    elem?.classList.add('search-hit');
  }

  /**
   * Big graphs: boxes far outside the visible part (more than ¾ of a view
   * away) are display:none. Chromium paints every text of an SVG whenever
   * anything in it changes, visible or not: ~25 ms a frame for 300 nodes.
   */
  cull(prev = null) {
    if (!this.cullOn || !this.cullItems) return;
    const { width, height } = this.size();
    if (!(width > 0 && height > 0)) return;
    const rectOf = (v) => {
      const w = width / v.k; const h = height / v.k; const x = -v.x / v.k; const y = -v.y / v.k;
      return { x0: x - 0.75 * w, y0: y - 0.75 * h, x1: x + 1.75 * w, y1: y + 1.75 * h };
    };
    const rs = prev ? [rectOf(this.view), rectOf(prev)] : [rectOf(this.view)];
    for (const it of this.cullItems) {
      const b = it.box;
      const seen = rs.some((r) => b.x < r.x1 && b.x + b.w > r.x0 && b.y < r.y1 && b.y + b.h > r.y0);
      setClass(it.g, it.c, 'culled', !seen);
    }
  }

  /** Box (graph coordinates) of a node or tensor, for following the player. */
  boxOf({ node = null, tensor = null } = {}) {
    return (node != null && this.boxes.get(`n${node}`)) || (tensor != null && this.boxes.get(`t${tensor}`)) || null;
  }
}

/** Measures a pin's line in the font styles.css gives `.pin text` (a canvas measures without touching layout). */
// Pan, zoom, fit and follow: graph-camera.js.
Object.assign(GraphView.prototype, CameraMethods);
// The big graphs' canvas overview and lazy records: graph-overview.js.
Object.assign(GraphView.prototype, OverviewMethods);

function pinTextWidth(svg) {
  const ctx = typeof document !== 'undefined' ? document.createElement('canvas').getContext?.('2d') : null;
  if (!ctx) return undefined;
  const family = getComputedStyle(svg).getPropertyValue('--sans').trim() || 'sans-serif';
  ctx.font = `600 12.5px ${family}`;
  return (t) => ctx.measureText(t).width;
}

/** Toggles a class only when it differs from what was last written (cached in c). */
function setClass(elem, c, name, on) {
  if (c[name] === on) return;
  c[name] = on;
  elem.classList.toggle(name, on);
}
