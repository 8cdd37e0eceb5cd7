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
import { GAP } from '../model/layout.js';
import { abbreviate, readsWhole } from '../model/records.js';
import { fitView, panToInclude } from '../model/camera.js';
import { el, drawTensor, drawNode, drawMerged, updateBadge } from './graph-records.js';

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
    if (typeof ResizeObserver === 'function') {
      new ResizeObserver((entries) => {
        const r = entries[entries.length - 1].contentRect;
        const size = { width: r.width, height: r.height };
        if (box) { svg.style.width = `${size.width}px`; svg.style.height = `${size.height}px`; }
        const changed = !this.sizeCache || Math.abs(this.sizeCache.width - size.width) > 1 || Math.abs(this.sizeCache.height - size.height) > 1;
        this.sizeCache = size;
        // A fitted figure stays fitted when the pane changes size (unless the reader moved it).
        if (changed && this.fitted && !this.userMoved && this.layout) this.fit(this.fitted);
        else this.cull();
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

  /** Draws a model laid out by computeLayout. */
  async setGraph(model, input, layout, { legacyHandles = new Map(), focusModule = null } = {}) {
    this.model = model; this.input = input; this.layout = layout;
    const lod = input.lod || 'full'; this.lod = lod;
    this.pending = null; // a frame queued for the previous graph must not touch this one
    const token = (this.drawToken = (this.drawToken || 0) + 1);
    // Big graphs are drawn in slices so the page keeps responding.
    const big = input.units.length > 60; let n = 0;
    // Big graphs only draw the boxes near the visible part (see cull()).
    this.cullItems = []; this.cullOn = big; this.shownView = null;
    const breathe = async () => { if (big && ++n % 25 === 0) await new Promise((r) => setTimeout(r, 0)); return token !== this.drawToken; };
    this.root.innerHTML = '';
    const gClusters = el('g', { class: 'clusters' }, this.root);
    const gEdges = el('g', { class: 'edges' }, this.root);
    const gUnits = el('g', { class: 'units' }, this.root);
    const gClusterLabels = el('g', { class: 'cluster-labels' }, this.root);
    this.gFlow = el('g', { class: 'flow' }, this.root);
    // Values that already travelled, the moving dots, then the values travelling now (on top).
    this.gPast = el('g', {}, this.gFlow); this.gDots = el('g', {}, this.gFlow); this.gNow = el('g', {}, this.gFlow);
    this.gPins = el('g', { class: 'pins' }, this.root);
    this.tensorEls = new Map(); this.nodeEls = new Map(); this.edgeEls = new Map(); this.edgeMid = new Map(); this.clusterEls = new Map(); this.boxes = new Map();
    // What the last applied frame wrote (diffed against the next one).
    this.edgeState = new Map(); this.flowLabels = new Map(); this.pinKey = ''; this.hasDots = false; this.lastK = null;
    this.maxGrad = maxGradNorm(model);

    for (const c of input.clusters) {
      const b = layout.clusters[c.id]; if (!b) continue;
      const g = el('g', { class: 'cluster', 'data-module': c.id }, gClusters);
      el('rect', { x: b.x, y: b.y, width: b.w, height: b.h, rx: 12, class: 'cluster-box' }, g);
      const t = el('g', { class: 'cluster-toggle', role: 'button', tabindex: 0, 'aria-label': `Collapse module ${c.label}`, 'aria-expanded': 'true' }, gClusterLabels);
      el('rect', { x: b.x + 6, y: b.y + 5, width: Math.min(b.w - 12, c.label.length * 7.5 + 34), height: 20, rx: 6, class: 'cluster-label-bg' }, t);
      el('text', { x: b.x + 14, y: b.y + 19, class: 'cluster-label' }, t, `▾ ${c.label}`);
      this.bindActivate(t, () => this.onToggleModule(c.id));
      this.clusterEls.set(c.id, { g, box: b, c: { active: false } });
    }
    for (const u of input.units) {
      if (await breathe()) return false;
      const p = layout.pos[u.id]; if (!p) continue;
      if (u.placeholder) { this.drawPlaceholder(gUnits, u, p); continue; }
      if (lod === 'compact') { // one merged record per unit (torchviz-like)
        const b = { x: p.x, y: p.y, w: u.w, h: u.h };
        if (u.tensor != null) this.boxes.set(`t${u.tensor}`, b);
        if (u.node != null) this.boxes.set(`n${u.node}`, b);
        drawMerged(this, gUnits, u.tensor != null ? model.tensors.get(u.tensor) : null, u.node != null ? model.nodes.get(u.node) : null, b, legacyHandles);
        continue;
      }
      const tb = u.tensor != null ? { x: p.x, y: p.y, w: u.tw, h: u.th } : null;
      const nb = u.node != null ? { x: tb ? p.x + u.tw + GAP : p.x, y: p.y, w: u.nw, h: u.nh } : null;
      if (tb) { this.boxes.set(`t${u.tensor}`, tb); drawTensor(this, gUnits, model.tensors.get(u.tensor), tb, lod); }
      if (nb) { this.boxes.set(`n${u.node}`, nb); drawNode(this, gUnits, model.nodes.get(u.node), nb, lod, legacyHandles); }
      if (tb && nb) {
        const l = el('path', { d: `M${tb.x + tb.w},${tb.y + 14} H${nb.x}`, class: 'gradfn-link' }, gEdges); el('title', {}, l, u.node === model.tensors.get(u.tensor).gradFn ? 'grad_fn' : 'AccumulateGrad of this leaf');
        this.cullItems.push({ g: l, box: { x: tb.x + tb.w, y: tb.y + 14, w: nb.x - tb.x - tb.w, h: 1 }, c: { culled: false } });
      }
    }
    const dir = input.dir || 'TB';
    // Boxes of collapsed units stand for their members.
    const boxOfNode = (id) => this.boxes.get(`n${id}`) || this.boxes.get(input.unitOfNode[id]);
    const boxOfTensor = (id) => this.boxes.get(`t${id}`) || this.boxes.get(input.unitOfTensor[id]);
    const joined = new Set(); // box pairs already joined by a next_functions edge (merged records)
    for (const n of model.nodes.values()) for (const e of n.next || []) if (e.node != null) { joined.add(`${boxOfNode(n.id)?.x},${boxOfNode(n.id)?.y}>${boxOfNode(e.node)?.x},${boxOfNode(e.node)?.y}`); }
    const addEdge = (key, a, b, cls, marker, title, spread = 0) => {
      const [x1, y1, x2, y2] = ends(a, b, dir, spread);
      const path = el('path', { d: curve(x1, y1, x2, y2, dir), class: cls, 'marker-end': marker }, gEdges);
      if (title) el('title', {}, path, title);
      this.edgeEls.set(key, path);
      this.cullItems.push({ g: path, box: curveBox(x1, y1, x2, y2, dir), c: { culled: false } });
      this.edgeMid.set(key, curveMid(x1, y1, x2, y2));
    };
    for (const ev of model.trace) {
      if (ev.type !== 'op') continue;
      for (const i of ev.inputs || []) {
        const a = boxOfTensor(i); const b = boxOfTensor(ev.output);
        if (!a || !b || a === b || this.edgeEls.has(`op${i}>${ev.output}`)) continue;
        if (lod === 'compact' && joined.has(`${b.x},${b.y}>${a.x},${a.y}`)) continue;
        addEdge(`op${i}>${ev.output}`, a, b, 'edge-op', 'url(#arrow-op)', null);
      }
    }
    const fanIn = new Map();
    for (const n of model.nodes.values()) for (const e of n.next || []) if (e.node != null) fanIn.set(e.node, Math.max(fanIn.get(e.node) || 0, e.inputNr + 1));
    for (const n of model.nodes.values()) {
      if (await breathe()) return false;
      (n.next || []).forEach((e, j) => {
        if (e.node == null) return;
        const a = boxOfNode(n.id); const b = boxOfNode(e.node);
        if (!a || !b || a === b) return;
        const spread = (fanIn.get(e.node) || 1) > 1 ? (e.inputNr - ((fanIn.get(e.node) || 1) - 1) / 2) * 14 : 0;
        addEdge(`${n.id}>${e.node}#${j}`, a, b, 'edge-next', 'url(#arrow-next)', `${n.name} → ${model.nodes.get(e.node)?.name} (next_functions[${j}])`, spread);
      });
    }
    // First view: the whole figure when it reads (see session.chooseLayout),
    // else a readable part from the top (the minimap shows the rest).
    this.fit({ minK: readsWhole(layout, this.size()) ? 0 : 0.8 });
    this.focusModuleName = focusModule;
    return true;
  }

  drawPlaceholder(parent, u, p) {
    const c = this.input.clusters.find((x) => x.id === u.placeholder) || this.model.moduleCalls.find((x) => x.key === u.placeholder);
    const label = c?.label || c?.name || 'module';
    // A collapsed module that holds a node with a legacy backward hook says so.
    const legacyInside = [...this.model.nodes.values()].some((n) => this.input.unitOfNode[n.id] === u.id && [...(n.preHooks || []), ...(n.postHooks || [])].some((h) => h.kind === 'module-backward'));
    const g = el('g', { class: `placeholder${legacyInside ? ' has-legacy' : ''}`, role: 'button', tabindex: 0, 'aria-label': `Expand module ${label}`, 'aria-expanded': 'false' }, parent);
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

  apply(frame, { selected = {}, animate = true, follow = false } = {}) {
    const f = frame.focus || {};
    const ev = frame.step?.event;
    const gradChanged = ev && (ev.type === 'accumulate' || (ev.type === 'hook' && ev.kind === 'retain-grad')) ? ev.tensor : null;
    // The camera keeps the running node and the tensor whose .grad just changed in view.
    if (follow && !this.userMoved) this.keepInView([this.boxOf({ node: f.node }), this.boxOf({ tensor: f.tensor }), gradChanged != null ? this.boxOf({ tensor: gradChanged }) : null]);
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
      if (this.edgeEls.has(key)) want.set(key, { cls: 'hot', value: e.value });
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
      labels.set(key, { cls: w.cls === 'hot' ? 'now' : 'past', txt: abbreviate(w.value, 18), mid });
    }
    for (const [key, l] of this.flowLabels) {
      const n = labels.get(key);
      if (!n || n.cls !== l.cls || n.txt !== l.txt) { l.g.remove(); this.flowLabels.delete(key); }
    }
    for (const [key, l] of labels) {
      if (this.flowLabels.has(key)) continue;
      this.flowLabels.set(key, { ...l, g: this.edgeLabel(l.mid, l.txt, l.cls) });
    }
    this.drawPins(frame.pins);
  }

  /** A value label centred on an edge's midpoint. */
  edgeLabel(mid, txt, cls) {
    const g = el('g', { class: `flow-label ${cls}` }, cls === 'now' ? this.gNow : this.gPast);
    el('rect', { x: mid.x - txt.length * 3.6 - 6, y: mid.y - 10, width: txt.length * 7.2 + 12, height: 19, rx: 9 }, g);
    el('text', { x: mid.x, y: mid.y + 4, 'text-anchor': 'middle' }, g, txt);
    return g;
  }

  drawPins(pins) {
    const key = JSON.stringify(pins.map((p) => [p.level, p.message, p.node, p.tensor, p.module]));
    if (key === this.pinKey) return;
    this.pinKey = key;
    this.gPins.replaceChildren();
    const stackAt = new Map();
    for (const p of pins) {
      const box = (p.node != null && this.boxes.get(`n${p.node}`)) || (p.tensor != null && this.boxes.get(`t${p.tensor}`)) || (p.module && this.clusterEls.get(p.module)?.box) || null;
      const anchor = box ? { x: box.x + box.w - 10, y: box.y } : { x: 10, y: 10 };
      const key = `${anchor.x},${anchor.y}`; const n = stackAt.get(key) || 0; stackAt.set(key, n + 1);
      const msg = p.message.length > 64 ? `${p.message.slice(0, 63)}…` : p.message;
      const g = el('g', { class: `pin ${p.level}`, transform: `translate(${anchor.x},${anchor.y - 24 - n * 24})` }, this.gPins);
      const w = msg.length * 6.4 + 30;
      el('rect', { x: -w + 20, y: 0, width: w, height: 20, rx: 10 }, g);
      el('text', { x: -w + 30, y: 14 }, g, `${p.level === 'error' ? '✖' : '⚠'} ${msg}`);
      el('title', {}, g, p.message);
    }
  }

  // ---- pan & zoom ----
  applyView(animate = false) {
    this.root.style.transition = animate ? 'transform .35s ease' : 'none';
    this.root.style.transform = `translate(${this.view.x}px, ${this.view.y}px) scale(${this.view.k})`;
    // While the transform animates, keep what was shown before visible too.
    this.cull(animate ? this.shownView : null);
    this.shownView = { ...this.view };
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

  /** Pans (smoothly, only when it must) so these boxes are visible; zooms out only if they cannot fit. */
  keepInView(boxes) {
    const v = panToInclude(this.view, boxes, this.size());
    if (!v) return;
    this.view = v; this.fitted = null; this.applyView(!this.reducedMotion());
  }

  reducedMotion() { return typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches; }

  /** Brings a box into view (the reader asked: selection, "runs on" buttons). */
  reveal(box, { force = false } = {}) {
    if (!box) return;
    if (force) this.userMoved = false;
    this.keepInView([box]);
  }

  /** Fits the graph (and hands the camera back to the player); with minK, a big graph is shown from its top. */
  fit({ minK = 0 } = {}) {
    if (!this.layout) return;
    this.userMoved = false; this.fitted = { minK };
    this.view = fitView(this.layout, this.size(), { minK });
    this.applyView();
  }

  zoomBy(f, cx, cy, { user = true } = {}) {
    const r = this.size();
    cx = cx ?? r.width / 2; cy = cy ?? r.height / 2;
    const k = Math.max(0.05, Math.min(4, this.view.k * f)); const s = k / this.view.k;
    this.view = { k, x: cx - (cx - this.view.x) * s, y: cy - (cy - this.view.y) * s };
    if (user) { this.userMoved = true; this.fitted = null; }
    this.applyView();
  }

  /** Cooperative mode: the figure takes wheel/touch gestures from now on (until it loses focus). */
  setActive(on) {
    if (!this.cooperative || this.active === on) return;
    this.active = on; this.svg.classList.toggle('active', on);
    this.hint(false);
  }

  /** A short "Ctrl + scroll to zoom" note over the figure (cooperative mode). */
  hint(show) {
    const box = this.svg.parentElement; if (!box) return;
    let n = box.querySelector('.coop-hint');
    if (!show) { if (n) n.hidden = true; return; }
    if (!n) { n = document.createElement('div'); n.className = 'coop-hint'; n.setAttribute('aria-hidden', 'true'); box.append(n); }
    n.textContent = 'Ctrl + scroll to zoom · click the figure to pan and zoom it';
    n.hidden = false; clearTimeout(this.hintTimer); this.hintTimer = setTimeout(() => { n.hidden = true; }, 1400);
  }

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
  }
}

/** Largest magnitude (max |x|) of any gradient a node passed on. */
export function gradMagnitude(v) {
  if (v === null || v === undefined) return 0;
  if (typeof v === 'number') return Number.isFinite(v) ? Math.abs(v) : 0;
  let m = 0; for (const x of v) m = Math.max(m, gradMagnitude(x)); return m;
}
function maxGradNorm(model) {
  let m = 0;
  for (const ev of model.trace) if (ev.type === 'node') for (const g of ev.gradInputs || []) m = Math.max(m, gradMagnitude(g));
  return m;
}
/** Stroke width for a gradient: 1.5 px (zero) to 7 px (the run's largest), by square root. */
export function edgeWidth(v, max) {
  if (!(max > 0)) return 2;
  return Math.round((1.5 + 5.5 * Math.sqrt(Math.min(1, gradMagnitude(v) / max))) * 10) / 10;
}

/** Toggles a class only when it differs from what was last written (cached in c). */
function setClass(elem, c, name, on) {
  if (c[name] === on) return;
  c[name] = on;
  elem.classList.toggle(name, on);
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

export function curve(x1, y1, x2, y2, dir = 'TB') {
  if (dir === 'LR') {
    const dx = Math.max(24, Math.abs(x2 - x1) / 2) * (x2 >= x1 ? 1 : -1);
    return `M${x1},${y1} C${x1 + dx},${y1} ${x2 - dx},${y2} ${x2},${y2}`;
  }
  const dy = Math.max(24, Math.abs(y2 - y1) / 2) * (y2 >= y1 ? 1 : -1);
  return `M${x1},${y1} C${x1},${y1 + dy} ${x2},${y2 - dy} ${x2},${y2}`;
}
