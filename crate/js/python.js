// `import { loadPython } from 'hookgrad/python'`: PyTorch programs on
// CPython-in-wasm (Pyodide) over hookgrad's engine. The `torch` package is
// hookgrad's Python shim (python/torch in the repository, bundled into
// python-shim.js by the build): every tensor op, backward pass and hook call
// is the engine's, so a Python run gives the same graph() / trace() data as
// a JS run, with print() lines as `log` events in their place.
//
// Pyodide is loaded only when loadPython() is called: a page that never
// runs Python downloads none of it.
import shim from './python-shim.js';
import { engineHelpers } from './python-helpers.js';

const SHIM_ROOT = '/lib/hookgrad';
const isNode = typeof process !== 'undefined' && !!process.versions?.node && typeof window === 'undefined';

/** The engine: the caller's (initialised), else this package's, initialised here. */
async function engine(hg) {
  if (hg) return hg;
  const mod = await import('./hookgrad.js');
  if (isNode) {
    const fs = await import('node:fs');
    mod.initSync({ module: fs.readFileSync(new URL('./hookgrad_bg.wasm', import.meta.url)) });
  } else {
    await mod.default();
  }
  return mod;
}

/** Pyodide's folder: the npm package `pyodide` next to this one (Node), or
 * `pyodide/` beside this file on a site (the build copies it there). */
async function pyodideIndex(indexURL) {
  if (indexURL) return indexURL;
  if (isNode) {
    const { createRequire } = await import('node:module');
    const path = await import('node:path');
    const require = createRequire(import.meta.url);
    return `${path.dirname(require.resolve('pyodide/package.json'))}/`;
  }
  return new URL('./pyodide/', import.meta.url).href;
}

/**
 * `await loadPython({hg?, pyodide?, indexURL?, onProgress?})` → `{run, pyodide, hg}`.
 * `hg`: an initialised hookgrad module (default: this package's);
 * `pyodide`: an already loaded Pyodide (then only the shim is installed in it);
 * `onProgress({stage, loaded?, total?})`: 'pyodide', 'shim', 'ready'.
 */
export async function loadPython(options = {}) {
  const { onProgress = () => {} } = options;
  const hg = await engine(options.hg);
  let pyodide = options.pyodide;
  if (!pyodide) {
    onProgress({ stage: 'pyodide' });
    const { loadPyodide } = await import(/* @vite-ignore */ isNode ? 'pyodide' : `${await pyodideIndex(options.indexURL)}pyodide.mjs`);
    pyodide = await loadPyodide({ indexURL: await pyodideIndex(options.indexURL), stdout: () => {}, stderr: () => {} });
  }
  onProgress({ stage: 'shim' });
  installShim(pyodide);
  const out = { text: '', sink: null };
  const err = { text: '' };
  pyodide.registerJsModule('_hookgrad', {
    hg,
    helpers: engineHelpers(hg),
    stdout: (s) => { out.text += s; },
    stderr: (s) => { err.text += s; },
    log: (line) => hg.recordLog('log', line),
  });
  const runner = pyodide.pyimport('hookgrad_runner');
  onProgress({ stage: 'ready' });

  /** Runs `source` as `python FILE`: `{stdout, stderr, exception, graph, trace}`. */
  function run(source, { semantics = 'pytorch-2', filename = 'main.py', onStdout = null, onStderr = null, trace = true } = {}) {
    out.text = ''; err.text = '';
    out.sink = onStdout; err.sink = onStderr;
    hg.setSemantics(semantics === 'pytorch-1' ? 'pytorch-1' : 'pytorch-2');
    let exception = null;
    let result = { trace: [], graph: { tensors: [], nodes: [] } };
    const warn = runner.engine_warning;
    hg.setWarningHandler((message, atCaller) => warn(message, atCaller));
    // A gradient a hook was handed is the hook's until Python frees it (at
    // once, by reference counting): AccumulateGrad then takes over a gradient
    // exactly when PyTorch's does (hg.setHookHandlesOwn).
    const ownBefore = hg.setHookHandlesOwn(true);
    // Every tensor handle the program gets is released by CPython's
    // reference counting: the garbage collector need not track them.
    const manualBefore = hg.setTensorHandlesManual(true);
    try {
      // Without a trace (the CLI's default) nothing is recorded: a long loop stays flat.
      const traced = trace ? hg.traceRun : (f) => { f(); return result; };
      result = traced(() => {
        const r = runner.run(source, filename, (s) => { out.text += s; if (out.sink) out.sink(s); },
          (s) => { err.text += s; if (err.sink) err.sink(s); }, trace);
        const info = r ? r.toJs({ dict_converter: Object.fromEntries }) : null;
        if (r) r.destroy();
        if (info) {
          exception = { type: info.type, message: info.message, line: info.line ?? null };
          // Thrown so the trace ends with its `error` event, as a JS program's does.
          throw Object.assign(new Error(info.message), { name: info.type });
        }
      });
    } catch (e) {
      if (!exception) exception = { type: e?.name || 'Error', message: String(e?.message ?? e), line: null };
    } finally {
      hg.setWarningHandler(null);
      hg.setHookHandlesOwn(ownBefore);
      hg.setTensorHandlesManual(manualBefore);
      runner.finish();
    }
    placeHooks(result.graph, runner);
    if (exception) {
      const last = result.trace[result.trace.length - 1];
      if (last && last.type === 'error') {
        last.message = `${exception.type}: ${exception.message}`;
        if (exception.line != null) last.line = exception.line;
      }
    }
    return { stdout: out.text, stderr: err.text, exception, graph: result.graph, trace: result.trace };
  }

  return { run, pyodide, hg };
}

/** Writes the shim's files into Pyodide's file system, importable as `torch`. */
function installShim(pyodide) {
  const { FS } = pyodide;
  for (const [rel, text] of Object.entries(shim)) {
    const path = `${SHIM_ROOT}/${rel}`;
    const dir = path.slice(0, path.lastIndexOf('/'));
    FS.mkdirTree(dir);
    FS.writeFile(path, text);
  }
  pyodide.runPython(`import sys\nif ${JSON.stringify(SHIM_ROOT)} not in sys.path: sys.path.insert(0, ${JSON.stringify(SHIM_ROOT)})`);
}

/** Hook rows point at the Python program's lines (the engine saw Pyodide's JS stack). */
function placeHooks(graph, runner) {
  const lines = runner.hook_lines().toJs({ dict_converter: Object.fromEntries });
  for (const x of [...graph.tensors, ...graph.nodes]) {
    for (const h of [...(x.hooks || []), ...(x.preHooks || []), ...(x.postHooks || [])]) {
      const line = lines[h.handle];
      h.source = line ? { line, column: 1 } : null;
    }
  }
}
