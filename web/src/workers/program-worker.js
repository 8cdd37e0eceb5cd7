// The user's program runs here, never on the page's thread. One worker runs
// one program (a fresh wasm instance each time, so global module hooks and
// ids never leak between runs); the page terminates it if it runs too long.
//
// Messages in:  {type:'init', pkgUrl, wasm}  {type:'wasm', module}  {type:'run', id, program, semantics}
//   (wasm: a compiled WebAssembly.Module, null to fetch the engine's own .wasm,
//   or 'pending': a {type:'wasm'} message with the module (or null) follows)
// Messages out: {type:'ready'} {type:'init-error', message}
//               {type:'result', id, graph, trace, console, error, ms}

import { formatArg } from '../model/console-format.js';

let hg = null;
let TensorClass = null;
const state = { hookCalls: 0, hookDepth: 0, quiet: 0, lines: [], tensors: new Map() };
const MAX_LINES = 400;

const isTensor = (x) => !!x && typeof x === 'object' && (TensorClass ? x instanceof TensorClass : typeof x.item === 'function' && 'gradFn' in x);
const isNode = (x) => !!x && typeof x === 'object' && 'nextFunctions' in x && typeof x.registerPrehook === 'function';

const fmtArg = (x, top = true) => formatArg(x, { isTensor, isNode }, top);

function pushLine(level, args, source = 'program') {
  if (state.lines.length >= MAX_LINES) return;
  let text = args.map((a) => fmtArg(a)).join(' ');
  if (text.length > 4000) text = `${text.slice(0, 4000)}…`;
  state.lines.push({ level, text, source, hook: state.hookCalls, inHook: state.hookDepth > 0 });
  if (state.lines.length === MAX_LINES) state.lines.push({ level: 'warn', text: `(console output cut after ${MAX_LINES} lines)`, source: 'page', hook: state.hookCalls, inHook: false });
}

const userConsole = Object.freeze({
  log: (...a) => pushLine('log', a), info: (...a) => pushLine('log', a), debug: (...a) => pushLine('log', a),
  warn: (...a) => pushLine('warn', a), error: (...a) => pushLine('error', a),
});

/** Wraps a hook so the page can tell which console lines a hook printed. */
function wrapHook(fn) {
  if (typeof fn !== 'function') return fn;
  const wrapped = function (...args) {
    state.hookCalls++; state.hookDepth++;
    try { return fn.apply(this, args); } finally { state.hookDepth--; }
  };
  Object.defineProperty(wrapped, 'name', { value: fn.name });
  return wrapped;
}

function record(v) {
  if (state.hookDepth > 0 || state.quiet > 0) return v;
  if (isTensor(v)) { try { state.tensors.set(v.id, v); } catch { /* freed */ } }
  else if (Array.isArray(v)) for (const x of v) if (isTensor(x)) record(x);
  return v;
}

/** Patches the package's classes once: hook registration and tensor tracking. */
function instrument(mod) {
  TensorClass = typeof mod.Tensor === 'function' ? mod.Tensor : null;
  const classes = Object.values(mod).filter((v) => typeof v === 'function' && v.prototype && Object.getOwnPropertyNames(v.prototype).length > 1);
  if (mod.nn) classes.push(...Object.values(mod.nn).filter((v) => typeof v === 'function' && v.prototype));
  for (const C of classes) {
    for (const key of Object.getOwnPropertyNames(C.prototype)) {
      const d = Object.getOwnPropertyDescriptor(C.prototype, key);
      if (key === 'constructor' || !d || typeof d.value !== 'function' || key === 'toString' || key === 'free') continue;
      const orig = d.value;
      const isReg = key.startsWith('register') && key !== 'registerParameter' && key !== 'registerBuffer';
      C.prototype[key] = function (...args) {
        if (isReg) args = args.map(wrapHook);
        return record(orig.apply(this, args));
      };
    }
  }
  const api = { ...mod };
  for (const [key, v] of Object.entries(mod)) {
    if (typeof v !== 'function' || (v.prototype && Object.getOwnPropertyNames(v.prototype).length > 1)) continue;
    if (key === 'default' || key === 'initSync' || key === 'trace' || key === 'graph' || key === 'setSemantics') continue;
    if (key === 'noGrad') api[key] = (fn) => { state.quiet++; try { return v(fn); } finally { state.quiet--; } };
    else if (key.startsWith('register')) api[key] = (...args) => v(...args.map(wrapHook));
    else api[key] = (...args) => record(v(...args));
  }
  for (const k of ['trace', 'graph', 'initSync', 'default']) delete api[k];
  // The page's PyTorch 2 / 1.x switch owns the semantics of a run.
  api.setSemantics = () => pushLine('warn', ['hg.setSemantics() is ignored here: use the PyTorch 2 / PyTorch 1.x switch at the top of the page.'], 'page');
  return Object.freeze(api);
}

let api = null;

function run({ id, program, semantics }) {
  const t0 = performance.now();
  state.lines = []; state.hookCalls = 0; state.hookDepth = 0; state.quiet = 0; state.tensors = new Map();
  let error = null; let trace = []; let graph = { tensors: [], nodes: [] };
  // Engine warnings go to console.warn: show them in the console pane too.
  const saved = { warn: console.warn, log: console.log, error: console.error };
  console.warn = (...a) => pushLine('warn', a, 'engine');
  try {
    if (typeof hg.setSemantics === 'function') hg.setSemantics(semantics === 'pytorch-1' ? 'pytorch-1' : 'pytorch-2');
    const fn = new Function('hg', 'console', `"use strict";\n${program}\n`);
    trace = hg.trace(() => {
      try { fn(api, userConsole); } catch (e) { error = errorInfo(e); }
    });
  } catch (e) {
    error = error || errorInfo(e);
  } finally {
    Object.assign(console, saved);
  }
  try {
    graph = hg.graph([...state.tensors.values()]);
  } catch (e) {
    error = error || errorInfo(e);
  }
  const lines = state.lines.map((l) => ({ ...l, afterRun: false }));
  if (error) lines.push({ level: 'error', text: error.message, source: 'page', hook: state.hookCalls, inHook: false, afterRun: true });
  self.postMessage({ type: 'result', id, graph, trace: Array.isArray(trace) ? trace : [], console: lines, error, ms: performance.now() - t0 });
}

function errorInfo(e) {
  const message = e instanceof Error ? `${e.name === 'Error' ? '' : `${e.name}: `}${e.message}` : `Uncaught ${fmtArg(e)}`;
  const m = e && typeof e.stack === 'string' ? /<anonymous>:(\d+):(\d+)/.exec(e.stack) : null;
  return { message, line: m ? Number(m[1]) - 3 : null };
}

let gotWasm = null;
self.onmessage = async (ev) => {
  const msg = ev.data || {};
  if (msg.type === 'wasm') { gotWasm?.(msg.module || null); return; }
  if (msg.type === 'init') {
    try {
      const wasm = msg.wasm === 'pending' ? new Promise((resolve) => { gotWasm = resolve; }) : msg.wasm || null;
      const mod = await import(/* @vite-ignore */ msg.pkgUrl);
      const module = await wasm;
      await mod.default(module ? { module_or_path: module } : undefined);
      hg = mod; api = instrument(mod);
      self.postMessage({ type: 'ready' });
    } catch (e) {
      self.postMessage({ type: 'init-error', message: String(e && e.message ? e.message : e) });
    }
  } else if (msg.type === 'run') {
    if (!hg) { self.postMessage({ type: 'result', id: msg.id, graph: { tensors: [], nodes: [] }, trace: [], console: [], error: { message: 'The engine is not loaded.' } }); return; }
    run(msg);
  }
};
