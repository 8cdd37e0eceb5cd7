// Pure: the texts a record shows over a run (a tensor's grad row, a hook
// badge's "before → after"), and the widest of each, so that boxes are sized
// for them before the figure is drawn and a short value (≤ SHORT_VALUE
// numbers) is never cut. Shared by the layout (sizes) and the view (texts).
import { abbreviate, isShortValue, MAX_W, VALUE_X, MONO_CHAR } from './records.js';
import { sameValue } from './format.js';

/** Width of a 11.5 px mono character in a badge. */
export const BADGE_CHAR = 7.6;
/** Characters of a grad row in a MAX_W-wide box: what a long value is abbreviated to. */
export const GRAD_CHARS = Math.floor((MAX_W - VALUE_X - 8) / MONO_CHAR);

const TENSOR_KINDS = new Set(['tensor', 'retain-grad', 'post-accumulate']);

/** Hook value in a badge: lists as tuples, tensors as values; at most n characters unless short. */
export function hookValueText(kind, v, n) {
  if (Array.isArray(v) && !TENSOR_KINDS.has(kind)) {
    const whole = v.map((x) => abbreviate(x, Infinity));
    const tuple = (parts) => (parts.length === 1 ? `(${parts[0]},)` : `(${parts.join(', ')})`);
    if (tuple(whole).length <= n) return tuple(whole);
    const parts = v.map((x) => abbreviate(x, Math.max(4, Math.floor(n / Math.max(1, v.length)) - 2)));
    const s = tuple(parts);
    // A tuple whose short parts do not fit is named, never cut.
    if (s.length <= n && v.every((x, i) => !isShortValue(x) || parts[i] === whole[i])) return s;
    return `(${v.length} value${v.length === 1 ? '' : 's'})`;
  }
  return abbreviate(v, n);
}

/**
 * A badge's second line for a hook call: "before → after" when the hook
 * changed the value, the value it saw when it did not. `room`: characters.
 */
export function badgeText(kind, before, after, room = Infinity) {
  if (sameValue(before ?? null, after ?? null)) return hookValueText(kind, after, room);
  const half = Math.max(3, Math.floor((room - 3) / 2));
  return `${hookValueText(kind, before, half)} → ${hookValueText(kind, after, half)}`;
}

/**
 * The widest text each record will show over the run: grad rows per tensor
 * id and badge lines per hook handle (characters, as the view writes them).
 */
export function widestShown(model) {
  const grad = new Map(); const badge = new Map();
  const more = (map, key, s) => map.set(key, Math.max(map.get(key) || 0, s.length));
  for (const [id, g] of model.initialGrad || []) if (g != null) more(grad, id, abbreviate(g, GRAD_CHARS));
  for (const ev of model.trace || []) {
    if ((ev.type === 'accumulate' || ev.type === 'grad-set') && ev.grad != null) more(grad, ev.tensor, abbreviate(ev.grad, GRAD_CHARS));
    if (ev.type !== 'hook') continue;
    if (ev.kind === 'retain-grad' && ev.tensor != null && ev.after != null) more(grad, ev.tensor, abbreviate(ev.after, GRAD_CHARS));
    more(badge, ev.handle, badgeText(ev.kind, ev.before, ev.after));
  }
  return { grad, badge };
}
