// Page side of the program worker: one fresh worker per run (kept warm in
// advance), a watchdog that terminates a runaway program and respawns.

export const WATCHDOG_MS = 4000;

export class Runner {
  constructor({ pkgUrl, timeoutMs = WATCHDOG_MS, onStatus = () => {} }) {
    this.pkgUrl = pkgUrl; this.timeoutMs = timeoutMs; this.onStatus = onStatus;
    this.next = null; this.seq = 0; this.engineError = null;
    this.warm();
  }

  /** Starts a worker and loads the engine in it, ready for the next run. */
  warm() {
    const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    const ready = new Promise((resolve) => {
      worker.onmessage = (ev) => {
        if (ev.data.type === 'ready') resolve({ ok: true });
        else if (ev.data.type === 'init-error') resolve({ ok: false, message: ev.data.message });
      };
      worker.onerror = (ev) => resolve({ ok: false, message: ev.message || 'the worker failed to start' });
    });
    worker.postMessage({ type: 'init', pkgUrl: this.pkgUrl });
    this.next = { worker, ready };
  }

  /** Runs a program; resolves to the worker's result or a timeout/failure result. */
  async run(program, semantics) {
    const { worker, ready } = this.next;
    this.warm(); // the following run gets a fresh worker
    const r = await ready;
    if (!r.ok) {
      worker.terminate();
      this.engineError = r.message;
      return { graph: { tensors: [], nodes: [] }, trace: [], console: [], error: { message: `The hookgrad engine could not be loaded (${r.message}). Build it with \`npm run build\`.` }, engineMissing: true };
    }
    const id = ++this.seq;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        worker.terminate();
        resolve({ graph: { tensors: [], nodes: [] }, trace: [], console: [], timedOut: true,
          error: { message: `Stopped: the program was still running after ${this.timeoutMs / 1000} s (an endless loop in a hook?). The worker was terminated and a fresh one is ready — fix the code and run again.` } });
      }, this.timeoutMs);
      worker.onmessage = (ev) => {
        if (ev.data.type !== 'result' || ev.data.id !== id) return;
        clearTimeout(timer); worker.terminate(); resolve(ev.data);
      };
      worker.onerror = (ev) => {
        clearTimeout(timer); worker.terminate();
        resolve({ graph: { tensors: [], nodes: [] }, trace: [], console: [], error: { message: `The worker crashed: ${ev.message || 'unknown error'}` } });
      };
      worker.postMessage({ type: 'run', id, program, semantics });
    });
  }
}
