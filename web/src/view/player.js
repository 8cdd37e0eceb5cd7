// The player: one clock (a single setTimeout chain with a cancel token) that
// moves a frame index; everything on screen is derived from that index.

export const SPEEDS = [0.5, 1, 2, 4];
const BASE_MS = 850;

export class Player {
  constructor({ onFrame = () => {}, onState = () => {} } = {}) {
    this.onFrame = onFrame; this.onState = onState;
    this.k = 0; this.total = 0; this.playing = false; this.speed = 1; this.stopAt = null; this.token = 0;
  }

  load(total, k = 0) { this.pause(); this.total = total; this.seek(k); }

  seek(k) {
    this.k = Math.max(0, Math.min(this.total, Math.round(k)));
    this.onFrame(this.k, { animate: this.playing });
    this.onState(this);
  }

  step(d) { this.pause(); this.seek(this.k + d); }

  /** Plays until `until` (default: the end); restarts from `from` if given. */
  play({ from = null, until = null } = {}) {
    if (from !== null) this.seek(from);
    if (this.k >= this.total) this.seek(0);
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
