// Page side of the program workers (JavaScript, and Python when a reader
// picks it): one fresh worker per run (warmed up while the page is idle
// after a run), a watchdog that terminates a runaway program and respawns. Workers run in the sandbox (sandbox/host.js): an opaque
// origin with no network. The page fetches the worker's script and the
// engine (its JS and wasm) from its own origin once and hands the bytes in;
// the sandbox compiles the wasm once and gives the module to every worker.

import { wrapForParse, parsePlace } from './model/error-place.js';
import { pageSandbox } from './sandbox/host.js';
import { checkResult, checkLine, isMessage } from './sandbox/check.js';
// The program workers, bundled by Vite as files of their own: their URLs, fetched as bytes.
import programWorkerUrl from './workers/program-worker.js?worker&url';
import pythonWorkerUrl from './workers/python-worker.js?worker&url';

export const WATCHDOG_MS = 4000;
/** The engine package's JS modules (hookgrad.js and what it imports; tests/node/sandbox-files.test.mjs keeps this list whole). */
export const ENGINE_JS = ['hookgrad.js', 'hookgrad_core.js', 'records.js', 'hookgrad_handles.js', 'hookgrad_tensor.js', 'hookgrad_classes.js'];
export const ENGINE_WASM = 'hookgrad_bg.wasm';
/** hookgrad/python: loadPython and the `torch` shim it writes into Pyodide. */
export const PYTHON_JS = ['python.js', 'python-shim.js', 'python-helpers.js'];
/** Pyodide's files, served by the site from pkg/pyodide/ (scripts/build-web.sh copies them). */
export const PYODIDE = ['pyodide.mjs', 'pyodide.asm.mjs', 'pyodide.asm.wasm', 'python_stdlib.zip', 'pyodide-lock.json'];

/** The page's sandbox, given where the worker scripts and the engine package are. Nothing is fetched until a worker needs it. */
export function engineSandbox(pkgUrl) {
  const base = new URL('./', pkgUrl);
  const files = {
    'program-worker.js': new URL(programWorkerUrl, import.meta.url).href,
    'python-worker.js': new URL(pythonWorkerUrl, import.meta.url).href,
    [ENGINE_WASM]: new URL(ENGINE_WASM, base).href,
  };
  for (const f of [...ENGINE_JS, ...PYTHON_JS]) files[f] = new URL(f, base).href;
  for (const f of PYODIDE) files[f] = new URL(`pyodide/${f}`, base).href;
  return pageSandbox(files);
}

/** Per language: the worker, the files it needs, its init message (the frame fills in the placeholders). */
const KINDS = {
  js: { script: 'program-worker.js', needs: [...ENGINE_JS, ENGINE_WASM],
    init: { type: 'init', engine: { $url: 'hookgrad.js' }, wasm: { $module: ENGINE_WASM } } },
  python: { script: 'python-worker.js', needs: [...ENGINE_JS, ENGINE_WASM, ...PYTHON_JS, ...PYODIDE],
    init: { type: 'init', engine: { $url: 'hookgrad.js' }, wasm: { $module: ENGINE_WASM }, python: { $url: 'python.js' },
      pyodide: { mjs: { $url: 'pyodide.mjs' }, asm: { $url: 'pyodide.asm.mjs' }, wasm: { $module: 'pyodide.asm.wasm' }, stdlib: { $file: 'python_stdlib.zip' }, lock: { $text: 'pyodide-lock.json' } } } },
};

let parseSeq = 0;
/**
 * Line and column of a syntax error in `program`, or null. `new Function`
 * reports none in V8, but a classic worker's script error event does
 * (lineno/colno): the program is wrapped in a function expression that is
 * never called. The wrapper is only text — a program can close it and run
 * code — so this worker too runs in the sandbox, and is terminated either way.
 */
export function locateSyntaxError(program, sandbox, timeoutMs = 1500) {
  if (!sandbox) return Promise.resolve(null);
  return new Promise((resolve) => {
    const name = `parse-${++parseSeq}.js`;
    let w = null;
    const done = (r) => { clearTimeout(t); try { w?.terminate(); } catch { /* already gone */ } resolve(r); };
    const t = setTimeout(() => done(null), timeoutMs);
    sandbox.put(name, wrapForParse(program)).then(() => {
      w = sandbox.spawn(name, { classic: true });
      w.onerror = (ev) => done(ev.lineno ? parsePlace(ev.lineno, ev.colno, program) : null);
      // A script that parses posts nothing; give it a moment, then no place is known.
      setTimeout(() => done(null), Math.min(900, timeoutMs));
    }, () => done(null));
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
  /** onProgress({stage, text, loaded?, total?}): what the Python worker is loading (stage 'ready' at the end). */
  constructor({ pkgUrl, timeoutMs = WATCHDOG_MS, onStatus = () => {}, onProgress = () => {} }) {
    this.pkgUrl = pkgUrl; this.timeoutMs = timeoutMs; this.onStatus = onStatus; this.onProgress = onProgress;
    this.next = { js: null, python: null }; this.seq = 0; this.engineError = null; this.warmTimer = { js: null, python: null };
    this.sandbox = engineSandbox(pkgUrl);
    this.sandbox.onFetchProgress = (p) => this.onProgress({ stage: 'download', text: 'Python (Pyodide)', ...p });
    this.sandbox.showsProgress = (name) => PYODIDE.includes(name);
    this.warm('js');
  }

  /** Warms the next worker once the page has had time to draw (runs do not wait for it). */
  warmLater(lang = 'js') {
    if (this.next[lang] || this.warmTimer[lang]) return;
    const go = () => { this.warmTimer[lang] = null; if (!this.next[lang]) this.warm(lang); };
    this.warmTimer[lang] = typeof requestIdleCallback === 'function' ? { idle: requestIdleCallback(go, { timeout: 1500 }) } : { t: setTimeout(go, 300) };
  }

  /** Starts loading Python (Pyodide, the shim) in a worker, if not yet: the page calls it when the reader picks Python. Resolves when it is ready. */
  preparePython() {
    if (!this.next.python) this.warm('python');
    return this.next.python.ready;
  }

  /** Starts a worker and loads the engine (and Python) in it, ready for the next run. */
  warm(lang = 'js') {
    const kind = KINDS[lang];
    const worker = this.sandbox.spawn(kind.script, { needs: kind.needs });
    const ready = new Promise((resolve) => {
      worker.onmessage = (ev) => {
        if (!isMessage(ev.data)) return;
        if (ev.data.type === 'ready') { performance.mark?.(`hookgrad:${lang}-ready`); resolve({ ok: true }); if (lang === 'python') this.onProgress({ stage: 'ready', text: 'Python is ready' }); }
        else if (ev.data.type === 'init-error') resolve({ ok: false, message: String(ev.data.message) });
        else if (ev.data.type === 'progress') this.onProgress({ stage: String(ev.data.stage), text: String(ev.data.text) });
      };
      worker.onerror = (ev) => resolve({ ok: false, message: ev.message || 'the worker failed to start' });
    });
    worker.postMessage(kind.init);
    this.next[lang] = { worker, ready };
  }

  /** Runs a program (lang 'js' or 'python'); resolves to the worker's result or a timeout/failure result. */
  async run(program, semantics, lang = 'js') {
    if (!KINDS[lang]) lang = 'js';
    const t = this.warmTimer[lang];
    if (t) { if (t.idle != null) cancelIdleCallback(t.idle); else clearTimeout(t.t); this.warmTimer[lang] = null; }
    if (!this.next[lang]) this.warm(lang);
    const { worker, ready } = this.next[lang];
    this.next[lang] = null;
    try { return await this.runIn(worker, ready, program, semantics, lang); } finally { this.warmLater(lang); } // the following run gets a fresh worker (or, for Python, this one again: runIn)
  }

  /** Terminates the running program, if any (its run resolves as stopped). */
  stop() { this.current?.stop(); }

  async runIn(worker, ready, program, semantics, lang) {
    const id = ++this.seq;
    // A JavaScript run is posted at once: the worker keeps it until its
    // engine is in (program-worker.js), one round trip fewer than posting it
    // on 'ready'. (A worker that fails to load is terminated below, run and all.)
    const early = lang === 'js';
    if (early) { performance.mark?.('hookgrad:run-post'); worker.postMessage({ type: 'run', id, program, semantics }); }
    const boot = await ready;
    if (!boot.ok) {
      worker.terminate();
      this.engineError = boot.message;
      const what = lang === 'python' ? 'Python (Pyodide and the torch shim)' : 'The hookgrad engine';
      return { graph: { tensors: [], nodes: [] }, trace: [], console: [], error: { message: `${what} could not be loaded (${boot.message}). Build it with \`npm run build\`.` }, engineMissing: true };
    }
    // A Python step costs several JS ones (each op crosses Pyodide's FFI): lesson 14's
    // 300 training steps take ~4 s on a loaded 2-core machine, so Python gets 3× the time.
    const limit = lang === 'python' ? this.timeoutMs * 3 : this.timeoutMs;
    const lines = []; // what the program printed so far (kept if the run is stopped)
    // A Python worker (Pyodide booted: seconds) serves the next Python run too,
    // when this one ends normally: the worker resets grad mode and print
    // options before each run, and a program that registers global module
    // hooks — state the engine keeps — gets a worker of its own afterwards.
    const reusable = lang === 'python' && !/register_module_/.test(program);
    const r = await new Promise((resolve) => {
      const finish = (r, { healthy = false } = {}) => {
        clearTimeout(timer); this.current = null;
        if (healthy && reusable && !this.next.python) this.next.python = { worker, ready: Promise.resolve({ ok: true }) };
        else worker.terminate();
        resolve(r);
      };
      // Stop button: the reader ends the run; the graph the worker held is gone, its printed lines are kept.
      this.current = { stop: () => finish({ graph: { tensors: [], nodes: [] }, trace: partialTrace(lines), console: [], stopped: true,
        error: { message: `Stopped: you pressed Stop while the program was running. The worker was terminated and a fresh one is ready.${lastPrinter(lines)}`, line: lines.at(-1)?.from?.line ?? null, hook: lines.at(-1)?.from?.fn ?? null } }) };
      const timer = setTimeout(() => {
        finish({ graph: { tensors: [], nodes: [] }, trace: partialTrace(lines), console: [], timedOut: true,
          error: { message: `Stopped: the program was still running after ${limit / 1000} s (an endless loop in a hook?). The worker was terminated and a fresh one is ready — fix the code and run again.${lastPrinter(lines)}`, line: lines.at(-1)?.from?.line ?? null, hook: lines.at(-1)?.from?.fn ?? null } });
      }, limit);
      worker.onmessage = (ev) => {
        if (!isMessage(ev.data) || ev.data.id !== id) return;
        if (ev.data.type === 'log') { if (lines.length < 2000) lines.push(checkLine(ev.data)); return; }
        if (ev.data.type !== 'result') return;
        finish(checkResult(ev.data), { healthy: true });
      };
      worker.onerror = (ev) => {
        finish({ graph: { tensors: [], nodes: [] }, trace: [], console: [], error: { message: `The worker crashed: ${ev.message || 'unknown error'}` } });
      };
      if (!early) worker.postMessage({ type: 'run', id, program, semantics });
    });
    if (lang === 'js' && r.error && r.error.line == null && r.error.name === 'SyntaxError') {
      const at = await locateSyntaxError(program, this.sandbox);
      if (at) r.error = { ...r.error, ...at };
    }
    return r;
  }
}
