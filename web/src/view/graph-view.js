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
import { formatValue, formatShape, pyBool } from '../model/format.js';
import { TENSOR_FIELDS, ROW, HEAD, PAD, GAP, nodeHookLabel } from '../model/layout.js';
import { HOOK_KIND_LABEL, formatHookValue } from '../model/trace-model.js';

const NS = 'http://www.w3.org/2000/svg';
function el(tag, attrs = {}, parent = null, text = null) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) e.setAttribute(k, String(v));
  if (text !== null) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}
const SHORT_KIND = { 'post-accumulate': 'post-accumulate' };
const hookLabel = (h) => (h.kind === 'retain-grad' ? 'retain_grad' : `${h.name || '<lambda>'}${h.kind && h.kind !== 'tensor' ? ` · ${SHORT_KIND[h.kind] || HOOK_KIND_LABEL[h.kind] || h.kind}` : ''}`);

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
      const m = el('marker', { id, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' }, defs);
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
        this.sizeCache = size;
        this.cull();
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
    this.edgeState = new Map(); this.flowLabels = new Map(); this.pinKey = ''; this.hasDots = false;

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
      const tb = u.tensor != null ? { x: p.x, y: p.y, w: u.tw, h: u.th } : null;
      const nb = u.node != null ? { x: tb ? p.x + u.tw + GAP : p.x, y: p.y, w: u.nw, h: u.nh } : null;
      if (tb) { this.boxes.set(`t${u.tensor}`, tb); this.drawTensor(gUnits, model.tensors.get(u.tensor), tb); }
      if (nb) { this.boxes.set(`n${u.node}`, nb); this.drawNode(gUnits, model.nodes.get(u.node), nb, legacyHandles); }
      if (tb && nb) {
        const l = el('path', { d: `M${tb.x + tb.w},${tb.y + 13} H${nb.x}`, class: 'gradfn-link' }, gEdges); el('title', {}, l, u.node === model.tensors.get(u.tensor).gradFn ? 'grad_fn' : 'AccumulateGrad of this leaf');
        this.cullItems.push({ g: l, box: { x: tb.x + tb.w, y: tb.y + 13, w: nb.x - tb.x - tb.w, h: 1 }, c: { culled: false } });
      }
    }
    // Boxes of collapsed units stand for their members.
    const boxOfNode = (id) => this.boxes.get(`n${id}`) || this.boxes.get(input.unitOfNode[id]);
    const boxOfTensor = (id) => this.boxes.get(`t${id}`) || this.boxes.get(input.unitOfTensor[id]);
    for (const ev of model.trace) {
      if (ev.type !== 'op') continue;
      for (const i of ev.inputs || []) {
        const a = boxOfTensor(i); const b = boxOfTensor(ev.output);
        if (!a || !b || a === b || this.edgeEls.has(`op${i}>${ev.output}`)) continue;
        const d = curve(a.x + a.w / 2, a.y + a.h, b.x + b.w / 2, b.y);
        this.edgeEls.set(`op${i}>${ev.output}`, el('path', { d, class: 'edge-op', 'marker-end': 'url(#arrow-op)' }, gEdges));
        this.cullItems.push({ g: this.edgeEls.get(`op${i}>${ev.output}`), box: curveBox(a.x + a.w / 2, a.y + a.h, b.x + b.w / 2, b.y), c: { culled: false } });
        this.edgeMid.set(`op${i}>${ev.output}`, curveMid(a.x + a.w / 2, a.y + a.h, b.x + b.w / 2, b.y));
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
        const spread = (fanIn.get(e.node) || 1) > 1 ? (e.inputNr - ((fanIn.get(e.node) || 1) - 1) / 2) * 16 : 0;
        const bx = b.x + b.w / 2 + spread;
        const [y1, y2] = a.y > b.y ? [a.y, b.y + b.h] : [a.y + a.h, b.y];
        const d = curve(a.x + a.w / 2, y1, bx, y2);
        const path = el('path', { d, class: 'edge-next', 'marker-end': 'url(#arrow-next)' }, gEdges);
        el('title', {}, path, `${n.name} → ${model.nodes.get(e.node)?.name} (next_functions[${j}])`);
        this.edgeEls.set(`${n.id}>${e.node}#${j}`, path);
        this.cullItems.push({ g: path, box: curveBox(a.x + a.w / 2, y1, bx, y2), c: { culled: false } });
        this.edgeMid.set(`${n.id}>${e.node}#${j}`, curveMid(a.x + a.w / 2, y1, bx, y2));
      });
    }
    this.fit({ minK: 0.5 });
    if (focusModule) this.focusModule(focusModule);
    return true;
  }

  drawPlaceholder(parent, u, p) {
    const c = this.input.clusters.find((x) => x.id === u.placeholder) || this.model.moduleCalls.find((x) => x.key === u.placeholder);
    const label = c?.label || c?.name || 'module';
    const g = el('g', { class: 'placeholder', role: 'button', tabindex: 0, 'aria-label': `Expand module ${label}`, 'aria-expanded': 'false' }, parent);
    el('rect', { x: p.x, y: p.y, width: p.w, height: p.h, rx: 12, class: 'cluster-box collapsed' }, g);
    this.cullItems.push({ g, box: { x: p.x, y: p.y, w: p.w, h: p.h }, c: { culled: false } });
    el('text', { x: p.x + 12, y: p.y + 22, class: 'cluster-label' }, g, `▸ ${label}`);
    el('text', { x: p.x + 12, y: p.y + 41, class: 'muted' }, g, `${u.members} item${u.members === 1 ? '' : 's'} inside`);
    this.bindActivate(g, () => this.onToggleModule(u.placeholder));
  }

  drawTensor(parent, t, b) {
    const g = el('g', { class: `tensor${t.requiresGrad ? ' rg' : ''}`, 'data-tensor': t.id, transform: `translate(${b.x},${b.y})`, role: 'button', tabindex: 0, 'aria-label': `Tensor ${t.name || `t${t.id}`}` }, parent);
    el('rect', { width: b.w, height: b.h, rx: 9, class: 'box' }, g);
    el('text', { x: 10, y: 17, class: 'title' }, g, t.name || `t${t.id}`);
    el('text', { x: b.w - 10, y: 17, class: 'shape', 'text-anchor': 'end' }, g, `tensor ${formatShape(t.shape)}`);
    const vals = {};
    const gfn = t.gradFn != null ? this.model.nodes.get(t.gradFn)?.name || `node ${t.gradFn}` : 'None';
    const gradFnName = gfn.length > 15 ? `${gfn.slice(0, 14)}…` : gfn;
    const fixed = { data: formatValue(t.data, 16), grad: formatValue(t.grad, 16), requires_grad: pyBool(t.requiresGrad), is_leaf: pyBool(t.isLeaf), grad_fn: gradFnName, retains_grad: pyBool(t.retainsGrad) };
    TENSOR_FIELDS.forEach((f, i) => {
      const y = HEAD + PAD + ROW * i + 11;
      el('text', { x: 10, y, class: 'k' }, g, f);
      vals[f] = el('text', { x: 112, y, class: `v v-${f}` }, g, fixed[f]);
    });
    const hy = HEAD + PAD + ROW * TENSOR_FIELDS.length + 11;
    el('text', { x: 10, y: hy, class: 'k' }, g, (t.hooks || []).length ? 'hooks' : 'hooks  (none)');
    const hookRows = (t.hooks || []).map((h, i) => this.hookRow(g, h, i, hy + ROW * (1 + i * 2), b.w, true));
    const title = el('title', {}, g, `${t.name || `t${t.id}`} = ${formatValue(t.data)}`);
    this.bindActivate(g, () => this.onSelect({ tensor: t.id }));
    this.cullItems.push({ g, box: b, c: { culled: false } });
    this.tensorEls.set(t.id, { g, vals, hookRows, title, c: { grad: t.grad ?? null, gradText: fixed.grad, filled: false, future: false, focus: false, selected: false } });
  }

  drawNode(parent, n, b, legacyHandles) {
    const g = el('g', { class: `bnode${n.name === 'AccumulateGrad' ? ' acc' : ''}`, 'data-node': n.id, transform: `translate(${b.x},${b.y})`, role: 'button', tabindex: 0, 'aria-label': `Backward node ${n.name} ${n.id}` }, parent);
    el('rect', { width: b.w, height: b.h, rx: 9, class: 'box' }, g);
    el('text', { x: 10, y: 17, class: 'title' }, g, n.name);
    let y = HEAD + PAD + 11; const hookRows = [];
    if (n.variable != null) { el('text', { x: 10, y, class: 'k' }, g, `variable: ${this.model.tName(n.variable)}`); y += ROW; }
    // PyTorch runs a tensor's hooks just before its grad_fn (or, for a leaf,
    // inside its AccumulateGrad): say so, as the 2021 video's diagrams do.
    const paired = this.model.tensors.get(this.model.tensorOfNode.get(n.id));
    const th = paired && (paired.gradFn === n.id || paired.isLeaf) ? (paired.hooks || []).length : 0;
    if (th) { const r = el('text', { x: 10, y, class: 'k tensor-hooks-note' }, g, `${paired.name || `t${paired.id}`}'s hooks ×${th} first`); el('title', {}, r, 'Tensor hooks run right before this node (PyTorch: tensor_pre_hooks)'); y += ROW; }
    for (const [label, list] of [['pre_hooks', n.preHooks || []], ['hooks', n.postHooks || []]]) {
      el('text', { x: 10, y, class: 'k' }, g, list.length ? label : `${label}  (none)`); y += ROW;
      for (const h of list) {
        const row = this.hookRow(g, h, hookRows.length, y, b.w, true);
        row.label.textContent = nodeHookLabel(h);
        if (h.kind === 'module-backward' || legacyHandles.has(h.handle)) { row.g.classList.add('legacy'); g.classList.add('has-legacy'); }
        if (h.kind === 'module-full-backward') row.g.classList.add('fullhook');
        hookRows.push(row); y += ROW * 2;
      }
    }
    this.bindActivate(g, () => this.onSelect({ node: n.id }));
    this.cullItems.push({ g, box: b, c: { culled: false } });
    this.nodeEls.set(n.id, { g, hookRows, box: b, c: { done: false, running: false, future: false, selected: false } });
  }

  hookRow(g, h, i, y, w, twoLines = false) {
    const r = el('g', { class: `hookrow kind-${h.kind}`, 'data-handle': h.handle }, g);
    el('rect', { x: 4, y: y - 12, width: w - 8, height: ROW * (twoLines ? 2 : 1), rx: 4, class: 'hookrow-bg' }, r);
    const label = el('text', { x: 14, y, class: 'hook' }, r, hookLabel(h));
    const val = twoLines ? el('text', { x: 24, y: y + ROW, class: 'hookval' }, r, '') : el('text', { x: w - 8, y, class: 'hookval', 'text-anchor': 'end' }, r, '');
    return { g: r, label, val, handle: h.handle, kind: h.kind, long: twoLines, maxChars: Math.floor((w - 34) / 6.9), c: { fireStep: -1, fired: false, firing: false } };
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
    if (follow) this.focusOn(this.boxOf(f));
    for (const [id, t] of this.tensorEls) {
      const c = t.c;
      const g = frame.grads.get(id) ?? null;
      if (g !== c.grad) {
        c.grad = g;
        const text = formatValue(g, 16);
        if (text !== c.gradText) { c.gradText = text; t.vals.grad.textContent = text; }
      }
      setClass(t.vals.grad, c, 'filled', g !== null);
      setClass(t.g, c, 'future', !frame.tensorCreated(id));
      setClass(t.g, c, 'focus', f.tensor === id);
      setClass(t.g, c, 'selected', selected.tensor === id);
      for (const r of t.hookRows) this.updateHookRow(r, frame);
    }
    for (const [id, n] of this.nodeEls) {
      const c = n.c;
      setClass(n.g, c, 'done', frame.done.has(id));
      setClass(n.g, c, 'running', f.node === id);
      setClass(n.g, c, 'future', !frame.nodeCreated(id));
      setClass(n.g, c, 'selected', selected.node === id);
      for (const r of n.hookRows) this.updateHookRow(r, frame);
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
      this.edgeEls.get(key)?.classList.remove(cls); this.edgeState.delete(key);
    }
    for (const [key, w] of want) {
      if (this.edgeState.get(key) === w.cls) continue;
      this.edgeEls.get(key).classList.add(w.cls); this.edgeState.set(key, w.cls);
    }
    // Moving dots restart on every frame that animates; labels are kept while unchanged.
    if (this.hasDots) { this.gDots.replaceChildren(); this.hasDots = false; }
    if (animate) {
      for (const e of frame.edges) {
        const path = this.edgeEls.get(`${e.from}>${e.to}#${e.index}`);
        if (!path || !path.getTotalLength) continue;
        const dot = el('circle', { r: 5, class: 'flow-dot' }, this.gDots);
        const am = el('animateMotion', { dur: '0.6s', fill: 'freeze', path: path.getAttribute('d') }, dot);
        am.beginElement?.();
        this.hasDots = true;
      }
    }
    const labels = new Map();
    for (const [key, w] of want) {
      const mid = this.edgeMid.get(key); if (!mid) continue;
      labels.set(key, { cls: w.cls === 'hot' ? 'now' : 'past', txt: formatValue(w.value, 18), mid });
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

  updateHookRow(r, frame) {
    const fire = frame.hookFires.get(r.handle);
    const c = r.c; const step = fire ? fire.step : -1;
    if (step !== c.fireStep) {
      c.fireStep = step;
      const n = r.long ? Math.max(6, Math.floor((r.maxChars - 3) / 2)) : 12;
      r.val.textContent = fire ? `${formatHookValue(r.kind, fire.before, n)} → ${formatHookValue(r.kind, fire.after, n)}` : '';
    }
    setClass(r.g, c, 'fired', !!fire);
    setClass(r.g, c, 'firing', !!fire && fire.step === frame.k - 1);
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

  /** Frames the first module box with this name (a lesson's starting view). */
  focusModule(name) {
    const entry = [...this.clusterEls.entries()].find(([key]) => this.input.clusters.find((c) => c.id === key)?.name === name);
    if (!entry) return;
    const b = entry[1].box; const r = this.size();
    const k = Math.min(1.1, (r.width - 20) / b.w, (r.height - 20) / b.h);
    this.view = { k, x: r.width / 2 - (b.x + b.w / 2) * k, y: r.height / 2 - (b.y + b.h / 2) * k };
    this.applyView(true);
  }

  /** Brings a box into view (pans only when it is not visible). */
  reveal(box, { force = false } = {}) { this.focusOn(box, { minK: 0.6, force }); }

  /** Pans (and zooms in to a readable scale) so the box is in view. */
  focusOn(box, { minK = 0.9, force = false } = {}) {
    if (!box) return;
    const r = this.size(); const { x, y, k } = this.view;
    const sx = box.x * k + x; const sy = box.y * k + y;
    const inView = sx >= 0 && sy >= 0 && sx + box.w * k <= r.width && sy + box.h * k <= r.height;
    if (!force && inView && k >= minK * 0.75) return;
    const nk = Math.max(k, Math.min(minK, 1.25));
    this.view = { k: nk, x: r.width / 2 - (box.x + box.w / 2) * nk, y: r.height / 2 - (box.y + box.h / 2) * nk };
    this.applyView(true);
  }
  /** Fits the graph; with minK, a big graph is shown from its top at a readable scale. */
  fit({ minK = 0 } = {}) {
    if (!this.layout) return;
    const r = this.size(); const W = r.width || 800; const H = r.height || 500;
    const fitK = Math.min(1.25, Math.min(W / (this.layout.width + 20), H / (this.layout.height + 20)));
    const k = Math.max(fitK, Math.min(minK, 1.25));
    this.view = { k, x: (W - this.layout.width * k) / 2, y: k > fitK ? 8 : Math.max(4, (H - this.layout.height * k) / 2) };
    this.applyView();
  }
  zoomBy(f, cx, cy) {
    const r = this.size();
    cx = cx ?? r.width / 2; cy = cy ?? r.height / 2;
    const k = Math.max(0.1, Math.min(4, this.view.k * f)); const s = k / this.view.k;
    this.view = { k, x: cx - (cx - this.view.x) * s, y: cy - (cy - this.view.y) * s };
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
      this.view.x = drag.vx + e.clientX - drag.x; this.view.y = drag.vy + e.clientY - drag.y; this.applyView();
    });
    const end = (e) => { touches.delete(e.pointerId); drag = null; this.svg.classList.remove('panning'); };
    this.svg.addEventListener('pointerup', end); this.svg.addEventListener('pointercancel', end);
  }
}

/** Toggles a class only when it differs from what was last written (cached in c). */
function setClass(elem, c, name, on) {
  if (c[name] === on) return;
  c[name] = on;
  elem.classList.toggle(name, on);
}

/**
 * Midpoint along the length of curve(x1, y1, x2, y2), what
 * path.getPointAtLength(path.getTotalLength() / 2) returns, without a layout:
 * the curve is point-symmetric about the middle of its end points.
 */
export function curveMid(x1, y1, x2, y2) {
  return { x: (x1 + x2) / 2, y: (y1 + y2) / 2 };
}

/** Bounding box of curve(x1, y1, x2, y2) (its control points included). */
function curveBox(x1, y1, x2, y2) {
  const dy = Math.max(24, Math.abs(y2 - y1) / 2);
  const x = Math.min(x1, x2); const y = Math.min(y1, y2) - dy;
  return { x, y, w: Math.abs(x2 - x1), h: Math.abs(y2 - y1) + 2 * dy };
}

export function curve(x1, y1, x2, y2) {
  const dy = Math.max(24, Math.abs(y2 - y1) / 2) * (y2 >= y1 ? 1 : -1);
  return `M${x1},${y1} C${x1},${y1 + dy} ${x2},${y2 - dy} ${x2},${y2}`;
}
