// Pure: gradients changed in place by a hook, found in the recorded run.
//
// A node hands the same gradient tensor to several edges (AddBackward0 gives
// one tensor to both inputs). A hook that changes its gradient in place
// (`grad.mul_(100)`, returning nothing) changes what every one of those edges
// carries, though only its own tensor's event says so. The trace shows it
// exactly: a node later *receives* a value different from what its single
// incoming edge carried, with no hook of its own in between. The hook whose
// before → after is that change, run in between, made it.

import { sameValue } from './format.js';

/**
 * Step index of the hook → the edges it changed in place:
 * [{ from, to, index, before, after, by }] (`by`: the hook's function name).
 */
export function inPlaceChanges(model) {
  const out = new Map();
  const carried = new Map(); // `${to}:${inputNr}` → { from, index, value, step }
  const touched = new Set(); // edge keys fed by more than one edge: sums, not followed
  const hookedSince = new Map(); // node id → last step a hook ran for it
  model.steps.forEach(({ event: ev, focus }, i) => {
    if (ev.type === 'hook' && focus.node != null) hookedSince.set(focus.node, i);
    // A post-hook's result is what the node's edges carry from then on.
    if (ev.type === 'hook' && (ev.kind === 'node-post' || ev.kind === 'module-backward') && ev.node != null && Array.isArray(ev.after)) {
      for (const c of carried.values()) if (c.from === ev.node) { c.value = ev.after[c.index] ?? null; c.step = i; }
    }
    if (ev.type !== 'node') return;
    // What this node received against what its edges carried.
    (ev.gradOutputs || []).forEach((got, nr) => {
      const key = `${ev.node}:${nr}`; const c = carried.get(key);
      if (!c || touched.has(key) || c.value == null || got == null || sameValue(c.value, got)) return;
      if ((hookedSince.get(ev.node) ?? -1) > c.step) return; // its own hook changed it: a step of its own
      for (let h = i - 1; h > c.step; h--) {
        const hv = model.steps[h].event;
        if (hv.type !== 'hook' || !sameValue(hv.before ?? null, c.value) || !sameValue(hv.after ?? null, got)) continue;
        if (!out.has(h)) out.set(h, []);
        out.get(h).push({ from: c.from, to: ev.node, index: c.index, before: c.value, after: got, by: hv.name || hv.kind });
        break;
      }
    });
    (model.nodes.get(ev.node)?.next || []).forEach((e, j) => {
      if (e.node == null) return;
      const key = `${e.node}:${e.inputNr}`;
      if (carried.has(key) && carried.get(key).from !== ev.node) touched.add(key);
      carried.set(key, { from: ev.node, index: j, value: ev.gradInputs?.[j] ?? null, step: i });
    });
  });
  return out;
}
