// The player: one clock (a single setTimeout chain with a cancel token) that
// moves a frame index; everything on screen is derived from that index.

export const SPEEDS = [0.5, 1, 2, 4];
const BASE_MS = 850;

export class Player {
  constructor({ onFrame = () => {}, onState = () => {} } = {}) {
    this.onFrame = onFrame; this.onState = onState;
    this.k = 0; this.total = 0; this.min = 0; this.playing = false; this.speed = 1; this.stopAt = null; this.token = 0;
  }

  /** `min`: the first step the figure can show (a training loop's earlier, released steps come before it). */
  load(total, k = 0, min = 0) { this.pause(); this.total = total; this.min = Math.min(min, total); this.seek(k); }

  seek(k) {
    this.k = Math.max(this.min, Math.min(this.total, Math.round(k)));
    this.onFrame(this.k, { animate: this.playing });
    this.onState(this);
  }

  step(d) { this.pause(); this.seek(this.k + d); }

  /** Plays until `until` (default: the end); restarts from `from` if given. */
  play({ from = null, until = null } = {}) {
    if (from !== null) this.seek(from);
    if (this.k >= this.total) this.seek(this.min);
    this.stopAt = until ?? this.total; this.playing = true; this.onState(this);
    const token = ++this.token;
    const tick = () => {
      if (token !== this.token || !this.playing) return;
      if (this.k >= this.stopAt) { this.pause(); return; }
      this.seek(this.k + 1);
      setTimeout(tick, BASE_MS / this.speed);
    };
    setTimeout(tick, Math.min(250, BASE_MS / this.speed));
  }

  pause() { this.token++; if (this.playing) { this.playing = false; this.onState(this); } }
  toggle() { if (this.playing) this.pause(); else this.play(); }
  setSpeed(s) { this.speed = SPEEDS.includes(s) ? s : 1; this.onState(this); }
}

/**
 * Writes the step sentence (model/step-text.js) into `el`; at the end of a
 * backward, the summary: every leaf's .grad and the hooks that fired, in order.
 */
export function renderStepText(el, s, parts) {
  el.classList.toggle('is-error', !!s.error);
  el.classList.toggle('is-summary', !!s.summary);
  if (!s.summary) { el.textContent = s.text; return; }
  const span = (cls, text) => { const e = document.createElement('span'); e.className = cls; e.textContent = text; return e; };
  const leaves = span('sum-leaves', '');
  leaves.append(span('sum-k', '.grad of every leaf: '), ...parts.leaves.flatMap((t, i) => [i ? ' · ' : '', span('sum-v', t)]));
  const hooks = span('sum-hooks', '');
  hooks.append(span('sum-k', parts.hooks.length ? 'Hooks that fired, in order: ' : 'No hook fired.'),
    ...parts.hooks.flatMap((t, i) => [i ? ' → ' : '', span('sum-h', `${i + 1}. ${t}`)]));
  el.replaceChildren(span('sum-title', `${s.text} `), leaves, hooks);
}
