// A surprise lesson's switch (lessons-surprises.js): the one place in its
// program that flips, and a summary of a run for the page's two columns
// "before / after the switch". Pure: the summary is read from the engine's
// run (its analyzed trace), never written by hand.
import { frameAt, hookTitle, hookPlace } from './trace-model.js';
import { formatValue } from './format.js';

/** The program with the switch's text [from, to] replaced (or back: `back`). Throws if the text is not there once. */
export function flipSwitch(program, [from, to], back = false) {
  const [a, b] = back ? [to, from] : [from, to];
  const parts = program.split(a);
  if (parts.length !== 2) throw new Error(`the switch's text is not in the program once: ${a}`);
  return parts.join(b);
}

/** Which side a program is on: 'off' (as written), 'on' (switched) or null (edited beyond the switch). */
export function switchSide(program, [from, to]) {
  const off = program.split(from).length === 2; const on = program.split(to).length === 2;
  if (on && (!off || to.includes(from))) return 'on';
  if (off) return 'off';
  return null;
}

/**
 * What a run did, for the before / after columns: the hooks that fired and
 * the .grad writes of backward, in the engine's order (counted when one
 * repeats in a row), each .grad at the end, the warnings and the error.
 */
export function runSummary(model, error = null) {
  const hooks = [];
  for (const s of model.steps.slice(model.figureStart || 0)) {
    const ev = s.event;
    let text;
    if (ev.type === 'hook') text = `${hookTitle(ev)} on ${hookPlace(ev, model.tName, model.nName)}`;
    else if (ev.type === 'accumulate') text = `${model.tName(ev.tensor)}.grad written`;
    else continue;
    const last = hooks[hooks.length - 1];
    if (last?.text === text) last.n++; else hooks.push({ text, n: 1 });
  }
  const end = frameAt(model, model.steps.length);
  const grads = [...model.tensors.values()].filter((t) => t.requiresGrad && (t.isLeaf || t.retainsGrad))
    .map((t) => `${model.tName(t.id)}.grad = ${end.grads.get(t.id) == null ? 'None' : formatValue(end.grads.get(t.id))}`);
  const warnings = [...new Set(model.trace.filter((ev) => ev.type === 'warning').map((ev) => ev.message))];
  return { hooks: hooks.map((h) => (h.n > 1 ? `${h.text} ×${h.n}` : h.text)), grads, warnings, error: error?.message ?? null };
}
