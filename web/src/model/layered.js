// Pure: a fast layered layout for big graphs (hundreds to thousands of
// units), where dagre takes seconds (10 s for 2,000 units) or overflows its
// stack on long chains. Same input and output as layout.computeLayout.
//
//  1. ranks: longest path from the inputs; a unit without inputs (a leaf)
//     sits one rank above its first consumer, not at the top of the figure;
//  2. order inside a rank: barycenters of the neighbours, swept down and up,
//     units of one module call kept together;
//  3. x: each unit wants the mean x of its neighbours, then overlaps are
//     pushed apart (left and right pass averaged);
//  4. folding: a deep graph (a 1,000-op chain is 1,000 ranks) is cut into
//     columns of consecutive ranks, side by side, so the figure gets the
//     pane's aspect ratio instead of a hairline at "Fit".
// Every step is O(units + edges) per sweep (sorting per rank aside).

const NODESEP = 16; const RANKSEP = 28; const SUBSEP = 10; const COLGAP = 64; const M = 8;

/** Kahn's topological order; units on a cycle (none expected) come last, in input order. */
function topoOrder(n, succ, pred) {
  const indeg = pred.map((p) => p.length); const order = []; const queue = [];
  for (let i = 0; i < n; i++) if (!indeg[i]) queue.push(i);
  for (let q = 0; q < queue.length; q++) {
    const v = queue[q]; order.push(v);
    for (const w of succ[v]) if (--indeg[w] === 0) queue.push(w);
  }
  if (order.length < n) { const seen = new Set(order); for (let i = 0; i < n; i++) if (!seen.has(i)) order.push(i); }
  return order;
}

/** Rank of every unit (see 1. above). */
export function rankUnits(n, succ, pred) {
  const order = topoOrder(n, succ, pred); const pos = new Int32Array(n);
  order.forEach((v, i) => { pos[v] = i; });
  const rank = new Int32Array(n);
  for (const v of order) for (const u of pred[v]) if (pos[u] < pos[v]) rank[v] = Math.max(rank[v], rank[u] + 1);
  // Sources move down next to their first consumer.
  for (let v = 0; v < n; v++) {
    if (pred[v].length || !succ[v].length) continue;
    let r = Infinity; for (const w of succ[v]) r = Math.min(r, rank[w]);
    if (Number.isFinite(r) && r > 0) rank[v] = r - 1;
  }
  return rank;
}

/**
 * How many columns of consecutive ranks give the largest scale in a pane of
 * the given aspect (width / height). Returns the rank at which each column starts.
 */
export function foldRanks(layerW, layerH, aspect, breaks = []) {
  const R = layerW.length; let best = { scale: -1, starts: [0] };
  const total = layerH.reduce((a, h) => a + h + RANKSEP, 0);
  for (let C = 1; C <= Math.min(R, 80); C++) {
    // Cut where the running height passes i/C of the total; moved to the
    // nearest module boundary (a rank where the outermost module changes)
    // when one is within a third of a column, so a module is not split.
    const starts = [0]; let acc = 0; const per = R / C;
    for (let r = 0; r < R; r++) {
      if (starts.length < C && acc >= (total * starts.length) / C && r > starts[starts.length - 1]) {
        let cut = r; let d = Infinity;
        for (const b of breaks) if (b > starts[starts.length - 1] && Math.abs(b - r) <= per / 3 && Math.abs(b - r) < d) { d = Math.abs(b - r); cut = b; }
        starts.push(cut);
        if (cut > r) { for (let q = r; q < cut; q++) acc += layerH[q] + RANKSEP; r = cut; }
      }
      acc += layerH[r] + RANKSEP;
    }
    let w = 0; let h = 0;
    for (let c = 0; c < starts.length; c++) {
      const end = c + 1 < starts.length ? starts[c + 1] : R; let cw = 0; let ch = 0;
      for (let r = starts[c]; r < end; r++) { cw = Math.max(cw, layerW[r]); ch += layerH[r] + RANKSEP; }
      w += cw + (c ? COLGAP : 0); h = Math.max(h, ch);
    }
    const scale = Math.min(aspect / Math.max(1, w), 1 / Math.max(1, h));
    if (scale > best.scale * 1.02) best = { scale, starts };
  }
  return best.starts;
}

/** Units of one rank (sorted by x) dealt over k rows, packed left to right: [rows, width]. */
function staggerRank(L, x, units, k) {
  const rows = Array.from({ length: k }, () => []);
  L.forEach((v, i) => rows[i % k].push(v));
  const nx = new Map(); let hi = 0;
  for (let i = 0; i < L.length; i++) {
    const v = L[i]; const w = units[v].w;
    // After the unit k places back (same row), and 1/k of a slot right of the one before (reading order).
    const same = i >= k ? L[i - k] : null; const prev = i ? L[i - 1] : null;
    let c = w / 2;
    if (same != null) c = Math.max(c, nx.get(same) + (units[same].w + w) / 2 + NODESEP);
    if (prev != null) c = Math.max(c, nx.get(prev) + ((units[prev].w + w) / 2 + NODESEP) / k);
    nx.set(v, c); hi = Math.max(hi, c + w / 2);
  }
  return [rows, hi, nx];
}

/**
 * Ranks wider than the best target width are dealt over a few rows (a
 * shallow graph with many leaves: otherwise a hairline at "Fit"). The target
 * is the one that gives the largest scale in a pane of `aspect`. Rewrites x
 * of the moved units; returns the new list of layers.
 */
export function staggerRanks(layers, x, units, aspect) {
  const span = (L) => (L.length ? Math.max(...L.map((v) => x[v] + units[v].w / 2)) - Math.min(...L.map((v) => x[v] - units[v].w / 2)) : 0);
  const heights = layers.map((L) => Math.max(0, ...L.map((v) => units[v].h)));
  const widths = layers.map(span); const maxW = Math.max(0, ...widths);
  const plan = (target) => {
    let w = 0; let h = 0; const ks = [];
    layers.forEach((L, r) => {
      let k = 1; let lw = widths[r];
      while (lw > target && k < Math.min(4, L.length)) { k++; lw = staggerRank(L, x, units, k)[1]; }
      ks.push(k); w = Math.max(w, lw); h += k * heights[r] + RANKSEP + (k - 1) * SUBSEP;
    });
    return { ks, scale: Math.min(aspect / Math.max(1, w), 1 / Math.max(1, h)) };
  };
  let best = plan(Infinity);
  for (const f of [0.8, 0.65, 0.5, 0.4, 0.3]) { const p = plan(maxW * f); if (p.scale > best.scale * 1.05) best = p; }
  if (best.ks.every((k) => k === 1)) return layers;
  const out = [];
  layers.forEach((L, r) => {
    const k = best.ks[r];
    if (k === 1) { out.push(L); return; }
    // Centred where the rank was.
    const [rows, w, nx] = staggerRank(L, x, units, k);
    const lo = Math.min(...L.map((v) => x[v] - units[v].w / 2));
    const shift = lo + (widths[r] - w) / 2;
    for (const v of L) x[v] = nx.get(v) + shift;
    rows.forEach((row, i) => { if (i) row.cont = true; });
    out.push(...rows);
  });
  return out;
}

/**
 * A unit that does not belong to a module is moved out of that module's
 * frame (its members' x-span over the rows it covers, and the row above,
 * where the frame's label band reaches) to the nearer side,
 * then the row is spread again: a leaf consumed inside a module (lesson 5's
 * r) otherwise lands between the module's members, inside its frame.
 */
export function keepOutOfFrames(layers, x, units, clusters) {
  const byId = new Map(clusters.map((c) => [c.id, c]));
  const chain = (u) => { const s = new Set(); for (let k = u.parent; k && byId.has(k); k = byId.get(k).parent) s.add(k); return s; };
  const ins = units.map(chain);
  const span = new Map();
  layers.forEach((L, r) => {
    for (const v of L) for (const k of ins[v]) {
      const b = span.get(k) || { x0: Infinity, x1: -Infinity, r0: r, r1: r };
      b.x0 = Math.min(b.x0, x[v] - units[v].w / 2); b.x1 = Math.max(b.x1, x[v] + units[v].w / 2); b.r0 = Math.min(b.r0, r); b.r1 = Math.max(b.r1, r);
      span.set(k, b);
    }
  });
  const PAD = 12;
  layers.forEach((L, r) => {
    let moved = false;
    for (const v of L) {
      const half = units[v].w / 2;
      for (const [k, b] of span) {
        if (ins[v].has(k) || r < b.r0 - 1 || r > b.r1 || x[v] + half <= b.x0 - PAD || x[v] - half >= b.x1 + PAD) continue;
        // A unit whose own module encloses this one stays (the frames nest).
        if ([...ins[v]].some((a) => chain({ parent: k }).has(a))) continue;
        const left = b.x0 - PAD - NODESEP / 2 - half; const right = b.x1 + PAD + NODESEP / 2 + half;
        x[v] = Math.abs(left - x[v]) <= Math.abs(right - x[v]) ? left : right; moved = true;
      }
    }
    if (!moved) return;
    // Spread the row again, keeping the new order: from the middle outwards.
    L.sort((a, b) => x[a] - x[b]);
    for (let i = 1; i < L.length; i++) x[L[i]] = Math.max(x[L[i]], x[L[i - 1]] + (units[L[i - 1]].w + units[L[i]].w) / 2 + NODESEP);
  });
}

/** Lays out a layout input (layout.buildLayoutInput) for a pane of `aspect` = width / height. */
export function layeredLayout(input, { aspect = 1.3 } = {}) {
  const units = input.units; const n = units.length;
  const index = new Map(units.map((u, i) => [u.id, i]));
  const succ = units.map(() => []); const pred = units.map(() => []);
  for (const e of input.edges) {
    const v = index.get(e.v); const w = index.get(e.w);
    if (v === undefined || w === undefined || v === w) continue;
    succ[v].push(w); pred[w].push(v);
  }
  const rank = rankUnits(n, succ, pred);
  let R = 0; for (let i = 0; i < n; i++) R = Math.max(R, rank[i] + 1); // grows when wide ranks are staggered (3b)
  const layers = Array.from({ length: R }, () => []);
  const topo = topoOrder(n, succ, pred);
  for (const v of topo) layers[rank[v]].push(v);
  const order = new Float64Array(n);
  const renumber = (L) => L.forEach((v, i) => { order[v] = i; });
  layers.forEach(renumber);
  // 2. barycenter sweeps (down using inputs, up using consumers); a module's units stay together.
  const sweep = (L, nb) => {
    const bary = new Map();
    for (const v of L) {
      let s = 0; let c = 0; for (const u of nb[v]) { s += order[u]; c++; }
      bary.set(v, c ? s / c : order[v]);
    }
    const group = new Map();
    for (const v of L) { const k = units[v].parent || `#${v}`; const g = group.get(k) || { s: 0, c: 0 }; g.s += bary.get(v); g.c++; group.set(k, g); }
    const gb = (v) => { const g = group.get(units[v].parent || `#${v}`); return g.s / g.c; };
    L.sort((a, b) => gb(a) - gb(b) || bary.get(a) - bary.get(b));
    renumber(L);
  };
  for (let it = 0; it < 2; it++) {
    for (let r = 1; r < R; r++) sweep(layers[r], pred);
    for (let r = R - 2; r >= 0; r--) sweep(layers[r], succ);
  }
  // 3. x coordinates (centres), rank by rank from the top, then once more from the bottom.
  const x = new Float64Array(n);
  for (const L of layers) { let acc = 0; for (const v of L) { x[v] = acc + units[v].w / 2; acc += units[v].w + NODESEP; } }
  // Inner units (with inputs and consumers) are placed first, where their
  // inner neighbours are; leaves and roots then take the free spot nearest
  // to their neighbours. (Averaging everyone makes a chain of adds with a
  // leaf on each drift sideways by half a box per rank.)
  const inner = (v) => pred[v].length > 0 && succ[v].length > 0;
  const sep = (a, b) => (units[a].w + units[b].w) / 2 + NODESEP;
  const place = (L, nb) => {
    const want = (v, innerOnly) => {
      let s = 0; let c = 0;
      for (const u of nb[v]) if (!innerOnly || inner(u)) { s += x[u]; c++; }
      return c ? s / c : innerOnly ? want(v, false) : x[v];
    };
    const I = L.filter(inner); const w = I.map((v) => want(v, true));
    const left = []; const right = [];
    for (let i = 0; i < I.length; i++) left[i] = i ? Math.max(w[i], left[i - 1] + sep(I[i - 1], I[i])) : w[i];
    for (let i = I.length - 1; i >= 0; i--) right[i] = i < I.length - 1 ? Math.min(w[i], right[i + 1] - sep(I[i + 1], I[i])) : w[i];
    for (let i = 0; i < I.length; i++) { const m = (left[i] + right[i]) / 2; x[I[i]] = i ? Math.max(m, x[I[i - 1]] + sep(I[i - 1], I[i])) : m; }
    // Taken intervals [x0, x1] (separation included), sorted.
    const taken = I.map((v) => [x[v] - units[v].w / 2 - NODESEP / 2, x[v] + units[v].w / 2 + NODESEP / 2]);
    const rest = L.filter((v) => !inner(v)).map((v) => [v, want(v, false)]).sort((a, b) => a[1] - b[1]);
    for (const [v, c] of rest) {
      const half = units[v].w / 2 + NODESEP / 2; let best = c; let cost = Infinity; let at = 0;
      for (let g = 0; g <= taken.length; g++) {
        const lo = g ? taken[g - 1][1] + half : -Infinity; const hi = g < taken.length ? taken[g][0] - half : Infinity;
        if (lo > hi) continue;
        const p = Math.min(hi, Math.max(lo, c));
        if (Math.abs(p - c) < cost) { cost = Math.abs(p - c); best = p; at = g; }
      }
      x[v] = best; taken.splice(at, 0, [best - half, best + half]);
    }
    L.sort((a, b) => x[a] - x[b]); renumber(L);
  };
  for (let r = 1; r < R; r++) place(layers[r], pred);
  for (let r = R - 2; r >= 0; r--) place(layers[r], succ);
  // 3b. a rank much wider than the pane allows (many leaves side by side) is
  // staggered over a few rows, in its left-to-right order.
  const wrapped = staggerRanks(layers, x, units, aspect);
  // Rows of one staggered rank are closer together: no edge runs between them.
  const gapAfter = wrapped.map((L, r) => (r + 1 < wrapped.length && wrapped[r + 1].cont ? SUBSEP : RANKSEP));
  layers.splice(0, layers.length, ...wrapped); R = layers.length;
  if (n <= 400) keepOutOfFrames(layers, x, units, input.clusters);
  // 4. fold the ranks into columns.
  const layerMin = []; const layerW = []; const layerH = [];
  for (const L of layers) {
    let lo = Infinity; let hi = -Infinity; let h = 0;
    for (const v of L) { lo = Math.min(lo, x[v] - units[v].w / 2); hi = Math.max(hi, x[v] + units[v].w / 2); h = Math.max(h, units[v].h); }
    layerMin.push(L.length ? lo : 0); layerW.push(L.length ? hi - lo : 0); layerH.push(h);
  }
  // Ranks where the outermost module changes: the preferred places to fold.
  const byId = new Map(input.clusters.map((c) => [c.id, c]));
  const top = (u) => { let k = u.parent; while (k && byId.get(k)?.parent && byId.has(byId.get(k).parent)) k = byId.get(k).parent; return k && byId.has(k) ? k : ''; };
  const sig = layers.map((L) => [...new Set(L.map((v) => top(units[v])))].sort().join('|'));
  const breaks = []; for (let r = 1; r < R; r++) if (sig[r] !== sig[r - 1]) breaks.push(r);
  const starts = foldRanks(layerW, layerH, aspect, breaks);
  const pos = {}; const column = {}; let colX = 0;
  for (let c = 0; c < starts.length; c++) {
    const end = c + 1 < starts.length ? starts[c + 1] : R;
    let lo = Infinity; let hi = -Infinity;
    for (let r = starts[c]; r < end; r++) if (layers[r].length) { lo = Math.min(lo, layerMin[r]); hi = Math.max(hi, layerMin[r] + layerW[r]); }
    if (!Number.isFinite(lo)) { lo = 0; hi = 0; }
    let y = 0;
    for (let r = starts[c]; r < end; r++) {
      for (const v of layers[r]) { const u = units[v]; pos[u.id] = { x: colX + x[v] - u.w / 2 - lo, y: y + (layerH[r] - u.h) / 2, w: u.w, h: u.h }; column[u.id] = c; }
      y += layerH[r] + gapAfter[r];
    }
    colX += hi - lo + COLGAP;
  }
  return finish(input, pos, column);
}

/** Module boxes around their members (innermost first), then everything shifted to start at (M, M). */
function finish(input, pos, column = {}) {
  const byId = new Map(input.clusters.map((c) => [c.id, c]));
  // One frame per module and column: a module folded over two columns gets two frames.
  const boxes = new Map();
  const grow = (id, b, col) => {
    for (let k = id; k && byId.has(k); k = byId.get(k).parent) {
      if (!boxes.has(k)) boxes.set(k, new Map());
      const cur = boxes.get(k).get(col);
      if (!cur) boxes.get(k).set(col, { x0: b.x, y0: b.y, x1: b.x + b.w, y1: b.y + b.h });
      else { cur.x0 = Math.min(cur.x0, b.x); cur.y0 = Math.min(cur.y0, b.y); cur.x1 = Math.max(cur.x1, b.x + b.w); cur.y1 = Math.max(cur.y1, b.y + b.h); }
    }
  };
  for (const u of input.units) if (u.parent && pos[u.id]) grow(u.parent, pos[u.id], column[u.id] ?? 0);
  const depth = (id) => { let d = 0; for (let k = byId.get(id)?.parent; k; k = byId.get(k)?.parent) d++; return d; };
  const clusters = {}; const clusterParts = {};
  for (const [id, cols] of boxes) {
    // Nested modules get a little less padding than their parents, so the frames do not coincide.
    const pad = Math.max(4, 12 - 3 * depth(id));
    const frames = [...cols.keys()].sort((a, b) => a - b).map((c) => { const b = cols.get(c); return { x: b.x0 - pad, y: b.y0 - pad - 26, w: b.x1 - b.x0 + 2 * pad, h: b.y1 - b.y0 + 2 * pad + 26 }; });
    clusters[id] = frames[0];
    if (frames.length > 1) clusterParts[id] = frames.slice(1);
  }
  const all = [...Object.values(pos), ...Object.values(clusters), ...Object.values(clusterParts).flat()];
  if (!all.length) return { pos, clusters, clusterParts, width: 0, height: 0, dir: 'TB' };
  let x0 = Infinity; let y0 = Infinity; let x1 = -Infinity; let y1 = -Infinity;
  for (const b of all) { x0 = Math.min(x0, b.x); y0 = Math.min(y0, b.y); x1 = Math.max(x1, b.x + b.w); y1 = Math.max(y1, b.y + b.h); }
  for (const b of all) { b.x += M - x0; b.y += M - y0; }
  return { pos, clusters, clusterParts, width: x1 - x0 + 2 * M, height: y1 - y0 + 2 * M, dir: 'TB' };
}
