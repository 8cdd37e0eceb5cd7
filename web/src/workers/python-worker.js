// A PyTorch program runs here: CPython (Pyodide) with hookgrad's `torch`
// shim over the engine, inside the sandbox (sandbox/frame.js), which has no
// network. So nothing is fetched: the page handed in every byte — the
// engine's JS and wasm, hookgrad/python (python.js and the shim), Pyodide's
// JS, its wasm (compiled once by the frame), the standard library and the
// lock file — and Pyodide's loader, which fetches by URL, is served those
// bytes by a fetch of our own for as long as it loads (then fetch throws,
// like every way out: no-network.js). Booting takes seconds, so a worker
// runs the next Python program too (runner.js says when it does not).
//
// Messages in:  {type:'init', engine, wasm, python, pyodide: {mjs, asm, wasm, stdlib, lock}}
//               {type:'run', id, program, semantics}
// Messages out: {type:'progress', stage, text} while loading, {type:'ready'} | {type:'init-error', message}
//               {type:'log', id, level, text, from} each printed line, as it is printed
//               {type:'result', id, graph, trace, error, stdout, stderr, ms}
import { lockNetwork } from './no-network.js';
import { withEpilogue } from '../model/python-epilogue.js';
import { userFrames } from '../model/python-traceback.js';

const BASE = 'https://pyodide.invalid/'; // never fetched: our own fetch answers for it
let py = null;
const progress = (stage, text) => self.postMessage({ type: 'progress', stage, text });

/** Boots Pyodide from bytes: its loader asks fetch() and instantiateStreaming() for URLs under BASE. */
async function bootPyodide({ mjs, asm, wasm, stdlib, lock }) {
  const files = { 'python_stdlib.zip': stdlib, 'pyodide.asm.wasm': new Uint8Array(0) };
  const realFetch = self.fetch; const realStreaming = WebAssembly.instantiateStreaming;
  self.fetch = async (url) => {
    const name = String(url).startsWith(BASE) ? String(url).slice(BASE.length) : null;
    if (name && files[name]) return new Response(files[name], { headers: { 'content-type': name.endsWith('.wasm') ? 'application/wasm' : 'application/zip', 'x-hookgrad': name } });
    throw new Error(`${url} is not available in the sandbox`);
  };
  // The compiled module the frame made from the page's bytes: instantiated, not compiled again.
  WebAssembly.instantiateStreaming = async (resp, imports) => {
    const r = await resp;
    if (r?.headers?.get('x-hookgrad') === 'pyodide.asm.wasm' && wasm instanceof WebAssembly.Module) return { instance: await WebAssembly.instantiate(wasm, imports), module: wasm };
    return realStreaming(r, imports);
  };
  try {
    const { loadPyodide } = await import(/* @vite-ignore */ mjs);
    const createPyodideModule = (await import(/* @vite-ignore */ asm)).default;
    return await loadPyodide({ indexURL: BASE, lockFileContents: lock, packageBaseUrl: BASE, createPyodideModule, stdout: () => {}, stderr: () => {}, checkAPIVersion: true });
  } finally {
    self.fetch = realFetch; WebAssembly.instantiateStreaming = realStreaming;
  }
}

/** Python's exception as the page's error record: the message for the step text, the traceback for the console. */
function errorOf(r) {
  const e = r.exception;
  if (!e) return null;
  const at = r.stderr.lastIndexOf('Traceback (most recent call last):');
  const traceback = userFrames((at >= 0 ? r.stderr.slice(at) : e.type === 'SyntaxError' ? r.stderr : '').trimEnd()) || null;
  return { name: e.type, message: `${e.type}: ${e.message}`, line: e.line ?? null, column: null, traceback };
}

self.onmessage = async (ev) => {
  const msg = ev.data || {};
  if (msg.type === 'init') {
    try {
      progress('engine', 'the engine');
      const hg = await import(/* @vite-ignore */ msg.engine);
      await hg.default({ module_or_path: msg.wasm });
      progress('pyodide', 'Python (Pyodide)');
      const pyodide = await bootPyodide(msg.pyodide);
      progress('shim', 'PyTorch for hookgrad (the torch shim)');
      const { loadPython } = await import(/* @vite-ignore */ msg.python);
      py = await loadPython({ hg, pyodide });
      lockNetwork();
      self.postMessage({ type: 'ready' });
    } catch (e) {
      self.postMessage({ type: 'init-error', message: String(e && e.message ? e.message : e) });
    }
  } else if (msg.type === 'run') {
    if (!py) { self.postMessage({ type: 'result', id: msg.id, graph: { tensors: [], nodes: [] }, trace: [], error: { message: 'Python is not loaded.' } }); return; }
    const t0 = performance.now();
    // Each printed line as it is printed: the page keeps them if it has to stop the run.
    let pending = '';
    const onStdout = (s) => {
      pending += s;
      let i;
      while ((i = pending.indexOf('\n')) >= 0) { self.postMessage({ type: 'log', id: msg.id, level: 'log', text: pending.slice(0, i), from: null }); pending = pending.slice(i + 1); }
    };
    // This worker may have run a program before (runner.js reuses it): what a
    // program may switch off for the rest of the process is switched back on.
    try { py.pyodide.runPython('import torch\ntorch.set_grad_enabled(True)\ntorch.set_printoptions(profile="default")'); } catch { /* an older shim */ }
    const r = py.run(withEpilogue(py.pyodide, msg.program), { semantics: msg.semantics, filename: 'main.py', onStdout });
    self.postMessage({ type: 'result', id: msg.id, graph: r.graph, trace: r.trace, error: errorOf(r), stdout: r.stdout, stderr: r.stderr, ms: performance.now() - t0 });
  }
};
