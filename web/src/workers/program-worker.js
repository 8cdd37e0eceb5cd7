// The user's program runs here, never on the page's thread. One worker runs
// one program (a fresh wasm instance each time, so global module hooks and
// ids never leak between runs); the page terminates it if it runs too long.
// Nothing of the engine is patched: run-program.js runs the program under
// hg.traceRun with a console of its own whose lines become `log` events of
// the same trace, so the page replays one timeline.
//
// It runs inside the sandbox (sandbox/frame.js): an opaque origin with no
// network, so it fetches nothing; the page handed the engine in as bytes.
//
// Messages in:  {type:'init', engine, wasm}  {type:'run', id, program, semantics}
//   (engine: a blob: URL of the engine's JS, hookgrad.js; wasm: its compiled
//   WebAssembly.Module — both made by the sandbox frame from the page's bytes)
// Messages out: {type:'ready'} {type:'init-error', message}
//               {type:'log', id, level, text, from}  each console line as it is printed
//                 (from: {fn, line, column} of the code that printed it), so the
//                 page keeps the output of a run it has to stop
//               {type:'result', id, graph, trace, error, ms}

import { programApi, runProgram } from '../model/run-program.js';
import { lockNetwork } from './no-network.js';

let hg = null;
let api = null;
// The page posts the first run right after 'init', without waiting for
// 'ready' (one round trip page ↔ sandbox ↔ worker fewer on the way to the
// first graph): a run that arrives while the engine loads waits for it.
let loading = null;

function run({ id, program, semantics }) {
  const t0 = performance.now();
  const onLine = ({ level, text, from }) => self.postMessage({ type: 'log', id, level, text, from });
  const { graph, trace, error } = runProgram(hg, program, { semantics, api, onLine });
  self.postMessage({ type: 'result', id, graph, trace: Array.isArray(trace) ? trace : [], error, ms: performance.now() - t0 });
}

self.onmessage = async (ev) => {
  const msg = ev.data || {};
  if (msg.type === 'init') {
    let done; loading = new Promise((resolve) => { done = resolve; });
    try {
      if (!(msg.wasm instanceof WebAssembly.Module)) throw new Error('the engine\'s wasm did not reach the sandbox');
      const mod = await import(/* @vite-ignore */ msg.engine);
      await mod.default({ module_or_path: msg.wasm });
      hg = mod; api = programApi(mod);
      lockNetwork(); // the engine is in; from here on the program's code runs here
      self.postMessage({ type: 'ready' });
    } catch (e) {
      self.postMessage({ type: 'init-error', message: String(e && e.message ? e.message : e) });
    } finally { done(); }
  } else if (msg.type === 'run') {
    if (loading) await loading;
    if (!hg) { self.postMessage({ type: 'result', id: msg.id, graph: { tensors: [], nodes: [] }, trace: [], error: { message: 'The engine is not loaded.' } }); return; }
    run(msg);
  }
};
