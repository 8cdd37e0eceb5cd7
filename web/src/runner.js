// Page side of the program worker: one fresh worker per run (warmed up while
// the page is idle after a run), a watchdog that terminates a runaway program
// and respawns. With `wasmUrl`, the page fetches and compiles the engine's
// wasm once (streaming, off the main thread) and hands the compiled module to
// every worker, which then only fetches the JS glue.

import { wrapForParse, parsePlace } from './model/error-place.js';

export const WATCHDOG_MS = 4000;

/**
 * Line and column of a syntax error in `program`, or null. `new Function`
 * reports none in V8, but a classic worker's script error event does
 * (lineno/colno): the program is wrapped in a function expression that is
 * never called, so nothing of it runs; the worker is terminated either way.
 */
export function locateSyntaxError(program, timeoutMs = 1500) {
  if (typeof Worker !== 'function' || typeof Blob !== 'function') return Promise.resolve(null);
  return new Promise((resolve) => {
    let url = null; let w = null;
    const done = (r) => { clearTimeout(t); try { w?.terminate(); } catch { /* already gone */ } if (url) URL.revokeObjectURL(url); resolve(r); };
    const t = setTimeout(() => done(null), timeoutMs);
    try {
      url = URL.createObjectURL(new Blob([wrapForParse(program)], { type: 'text/javascript' }));
      w = new Worker(url);
      w.onerror = (ev) => { ev.preventDefault(); done(parsePlace(ev.lineno, ev.colno, program)); };
      // A script that parses posts nothing; give it a moment, then no place is known.
      setTimeout(() => done(null), Math.min(600, timeoutMs));
    } catch { done(null); }
  });
}

/** Console lines a stopped run printed, as the trace's `log` events (so the page shows them). */
function partialTrace(lines) {
  return lines.map((l) => ({ type: 'log', level: l.level, text: l.text, hook: null }));
}

/** "… in spin (line 12)": the code that printed the last line of a stopped run. */
function lastPrinter(lines) {
  const from = lines[lines.length - 1]?.from;
  if (!from) return '';
  return from.fn ? ` The last line was printed by ${from.fn} (line ${from.line}) — the code still running was probably there.` : ` The last line was printed at line ${from.line}.`;
}

export class Runner {
  constructor({ pkgUrl, wasmUrl = null, timeoutMs = WATCHDOG_MS, onStatus = () => {} }) {
    this.pkgUrl = pkgUrl; this.timeoutMs = timeoutMs; this.onStatus = onStatus;
    this.next = null; this.seq = 0; this.engineError = null; this.warmTimer = null;
    this.wasm = wasmUrl && typeof WebAssembly === 'object' && typeof WebAssembly.compileStreaming === 'function'
      ? WebAssembly.compileStreaming(fetch(wasmUrl)).catch(() => null) : null;
    this.warm();
  }

  /** Warms the next worker once the page has had time to draw (runs do not wait for it). */
  warmLater() {
    if (this.next || this.warmTimer) return;
    const go = () => { this.warmTimer = null; if (!this.next) this.warm(); };
    this.warmTimer = typeof requestIdleCallback === 'function' ? { idle: requestIdleCallback(go, { timeout: 1500 }) } : { t: setTimeout(go, 300) };
  }

  /** Starts a worker and loads the engine in it, ready for the next run. */
  warm() {
    const worker = new Worker(new URL('./workers/program-worker.js', import.meta.url), { type: 'module' });
    const ready = new Promise((resolve) => {
      worker.onmessage = (ev) => {
        if (ev.data.type === 'ready') resolve({ ok: true });
        else if (ev.data.type === 'init-error') resolve({ ok: false, message: ev.data.message });
      };
      worker.onerror = (ev) => resolve({ ok: false, message: ev.message || 'the worker failed to start' });
    });
    worker.postMessage({ type: 'init', pkgUrl: this.pkgUrl, wasm: this.wasm ? 'pending' : null });
    if (this.wasm) {
      this.wasm.then((module) => {
        try { worker.postMessage({ type: 'wasm', module }); } catch { worker.postMessage({ type: 'wasm', module: null }); }
      });
    }
    this.next = { worker, ready };
  }

  /** Runs a program; resolves to the worker's result or a timeout/failure result. */
  async run(program, semantics) {
    if (this.warmTimer) { if (this.warmTimer.idle != null) cancelIdleCallback(this.warmTimer.idle); else clearTimeout(this.warmTimer.t); this.warmTimer = null; }
    if (!this.next) this.warm();
    const { worker, ready } = this.next;
    this.next = null;
    try { return await this.runIn(worker, ready, program, semantics); } finally { this.warmLater(); } // the following run gets a fresh worker
  }

  /** Terminates the running program, if any (its run resolves as stopped). */
  stop() { this.current?.stop(); }

  async runIn(worker, ready, program, semantics) {
    const boot = await ready;
    if (!boot.ok) {
      worker.terminate();
      this.engineError = boot.message;
      return { graph: { tensors: [], nodes: [] }, trace: [], console: [], error: { message: `The hookgrad engine could not be loaded (${boot.message}). Build it with \`npm run build\`.` }, engineMissing: true };
    }
    const id = ++this.seq;
    const lines = []; // what the program printed so far (kept if the run is stopped)
    const r = await new Promise((resolve) => {
      const finish = (r) => { clearTimeout(timer); worker.terminate(); this.current = null; resolve(r); };
      // Stop button: the reader ends the run; the graph the worker held is gone, its printed lines are kept.
      this.current = { stop: () => finish({ graph: { tensors: [], nodes: [] }, trace: partialTrace(lines), console: [], stopped: true,
        error: { message: `Stopped: you pressed Stop while the program was running. The worker was terminated and a fresh one is ready.${lastPrinter(lines)}`, line: lines.at(-1)?.from?.line ?? null, hook: lines.at(-1)?.from?.fn ?? null } }) };
      const timer = setTimeout(() => {
        finish({ graph: { tensors: [], nodes: [] }, trace: partialTrace(lines), console: [], timedOut: true,
          error: { message: `Stopped: the program was still running after ${this.timeoutMs / 1000} s (an endless loop in a hook?). The worker was terminated and a fresh one is ready — fix the code and run again.${lastPrinter(lines)}`, line: lines.at(-1)?.from?.line ?? null, hook: lines.at(-1)?.from?.fn ?? null } });
      }, this.timeoutMs);
      worker.onmessage = (ev) => {
        if (ev.data.id !== id) return;
        if (ev.data.type === 'log') { lines.push(ev.data); return; }
        if (ev.data.type !== 'result') return;
        finish(ev.data);
      };
      worker.onerror = (ev) => {
        finish({ graph: { tensors: [], nodes: [] }, trace: [], console: [], error: { message: `The worker crashed: ${ev.message || 'unknown error'}` } });
      };
      worker.postMessage({ type: 'run', id, program, semantics });
    });
    if (r.error && r.error.line == null && r.error.name === 'SyntaxError') {
      const at = await locateSyntaxError(program);
      if (at) r.error = { ...r.error, ...at };
    }
    return r;
  }
}
