// Page side of the program worker: one fresh worker per run (warmed up while
// the page is idle after a run), a watchdog that terminates a runaway program
// and respawns. With `wasmUrl`, the page fetches and compiles the engine's
// wasm once (streaming, off the main thread) and hands the compiled module to
// every worker, which then only fetches the JS glue.

export const WATCHDOG_MS = 4000;

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
    const r = await ready;
    if (!r.ok) {
      worker.terminate();
      this.engineError = r.message;
      return { graph: { tensors: [], nodes: [] }, trace: [], console: [], error: { message: `The hookgrad engine could not be loaded (${r.message}). Build it with \`npm run build\`.` }, engineMissing: true };
    }
    const id = ++this.seq;
    return new Promise((resolve) => {
      const finish = (r) => { clearTimeout(timer); worker.terminate(); this.current = null; resolve(r); };
      // Stop button: the reader ends the run; nothing the worker still holds comes back.
      this.current = { stop: () => finish({ graph: { tensors: [], nodes: [] }, trace: [], console: [], stopped: true,
        error: { message: 'Stopped: you pressed Stop while the program was running. The worker was terminated and a fresh one is ready.' } }) };
      const timer = setTimeout(() => {
        worker.terminate(); this.current = null;
        resolve({ graph: { tensors: [], nodes: [] }, trace: [], console: [], timedOut: true,
          error: { message: `Stopped: the program was still running after ${this.timeoutMs / 1000} s (an endless loop in a hook?). The worker was terminated and a fresh one is ready — fix the code and run again.` } });
      }, this.timeoutMs);
      worker.onmessage = (ev) => {
        if (ev.data.type !== 'result' || ev.data.id !== id) return;
        finish(ev.data);
      };
      worker.onerror = (ev) => {
        finish({ graph: { tensors: [], nodes: [] }, trace: [], console: [], error: { message: `The worker crashed: ${ev.message || 'unknown error'}` } });
      };
      worker.postMessage({ type: 'run', id, program, semantics });
    });
  }
}
