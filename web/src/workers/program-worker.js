// The user's program runs here, never on the page's thread. One worker runs
// one program (a fresh wasm instance each time, so global module hooks and
// ids never leak between runs); the page terminates it if it runs too long.
// Nothing of the engine is patched: run-program.js runs the program under
// hg.traceRun with a console of its own whose lines become `log` events of
// the same trace, so the page replays one timeline.
//
// Messages in:  {type:'init', pkgUrl, wasm}  {type:'wasm', module}  {type:'run', id, program, semantics}
//   (wasm: a compiled WebAssembly.Module, null to fetch the engine's own .wasm,
//   or 'pending': a {type:'wasm'} message with the module (or null) follows)
// Messages out: {type:'ready'} {type:'init-error', message}
//               {type:'log', id, level, text, from}  each console line as it is printed
//                 (from: {fn, line, column} of the code that printed it), so the
//                 page keeps the output of a run it has to stop
//               {type:'result', id, graph, trace, error, ms}

import { programApi, runProgram } from '../model/run-program.js';

let hg = null;
let api = null;

function run({ id, program, semantics }) {
  const t0 = performance.now();
  const onLine = ({ level, text, from }) => self.postMessage({ type: 'log', id, level, text, from });
  const { graph, trace, error } = runProgram(hg, program, { semantics, api, onLine });
  self.postMessage({ type: 'result', id, graph, trace: Array.isArray(trace) ? trace : [], error, ms: performance.now() - t0 });
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
      hg = mod; api = programApi(mod);
      self.postMessage({ type: 'ready' });
    } catch (e) {
      self.postMessage({ type: 'init-error', message: String(e && e.message ? e.message : e) });
    }
  } else if (msg.type === 'run') {
    if (!hg) { self.postMessage({ type: 'result', id: msg.id, graph: { tensors: [], nodes: [] }, trace: [], error: { message: 'The engine is not loaded.' } }); return; }
    run(msg);
  }
};
