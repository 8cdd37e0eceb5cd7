// Runs a user program against the engine and returns what the page replays:
// `hg.traceRun` gives one timeline (ops, backward steps, hooks, warnings and
// the program's console lines as `log` events) plus the graph of every tensor
// the run touched. Nothing is patched: the program gets the engine's own
// exports and a console object of its own that formats each line
// (console-format.js) and hands it to the engine (`hg.recordLog`), which
// places it in the trace (a line printed by a hook follows that hook's event).
// Used by the program worker, and in Node by the tests and fixture generator.
import { formatArg } from './console-format.js';
import { failedHook, hookErrorPlace, programFrame } from './error-place.js';

export const MAX_LINES = 400;
/** Lines the program's text is shifted by in `new Function` (header + "use strict"). */
export const PROGRAM_LINE_OFFSET = 3;

/** The program's `console`: log/info/debug/warn/error → `log` events.
 * `onLine(line)` (the worker's) also gets each line as it is printed, with the
 * function and program line that printed it, so a run stopped by the
 * watchdog keeps its output. */
export function programConsole(hg, { max = MAX_LINES, onLine = null } = {}) {
  const is = {
    isTensor: (x) => !!x && typeof x === 'object' && (typeof hg.Tensor === 'function' ? x instanceof hg.Tensor : typeof x.item === 'function'),
    isNode: (x) => !!x && typeof x === 'object' && 'nextFunctions' in x && typeof x.registerPrehook === 'function',
  };
  let n = 0;
  const line = (level) => (...args) => {
    if (n > max) return;
    n++;
    let text = n > max ? `(console output cut after ${max} lines)` : args.map((a) => formatArg(a, is)).join(' ');
    if (text.length > 4000) text = `${text.slice(0, 4000)}…`;
    hg.recordLog(n > max ? 'warn' : level, text);
    if (onLine) onLine({ level: n > max ? 'warn' : level, text, from: programFrame(new Error().stack, PROGRAM_LINE_OFFSET) });
  };
  return Object.freeze({ log: line('log'), info: line('info'), debug: line('debug'), warn: line('warn'), error: line('error') });
}

/** The `hg` a program sees: the engine's exports without the page's own
 * entry points; the page's PyTorch 2 / 1.x switch owns the semantics. */
export function programApi(hg) {
  const api = { ...hg };
  for (const k of ['trace', 'traceRun', 'graph', 'recordLog', 'initSync', 'default']) delete api[k];
  api.setSemantics = () => hg.recordLog('warn', 'hg.setSemantics() is ignored here: use the PyTorch 2 / PyTorch 1.x switch at the top of the page.');
  return Object.freeze(api);
}

/** `{message, name, line, column}` of an uncaught exception (place in the user's program). */
export function errorInfo(e) {
  const message = e instanceof Error ? `${e.name === 'Error' ? '' : `${e.name}: `}${e.message}` : `Uncaught ${formatArg(e, { isTensor: () => false, isNode: () => false })}`;
  const m = e && typeof e.stack === 'string' ? /<anonymous>:(\d+):(\d+)/.exec(e.stack) : null;
  // A hook's own exception, rethrown by the engine in PyTorch's words, is the
  // engine Error's `cause`: its stack says where in the hook it was thrown.
  const thrownAt = e && e.cause ? programFrame(e.cause.stack, PROGRAM_LINE_OFFSET) : null;
  return { message, name: e instanceof Error ? e.name : null, line: m ? Number(m[1]) - PROGRAM_LINE_OFFSET : null, column: m ? Number(m[2]) : null, thrownAt };
}

/** Runs `program` (source text); returns `{graph, trace, error}`. */
export function runProgram(hg, program, { semantics = 'pytorch-2', api = programApi(hg), onLine = null } = {}) {
  let error = null; let trace = []; let graph = { tensors: [], nodes: [] };
  try {
    hg.setSemantics(semantics === 'pytorch-1' ? 'pytorch-1' : 'pytorch-2');
    const fn = new Function('hg', 'console', `"use strict";\n${program}\n`);
    const cons = programConsole(hg, { onLine });
    // The exception is rethrown so the trace ends with its `error` event.
    ({ trace, graph } = hg.traceRun(() => {
      try { fn(api, cons); } catch (e) { error = errorInfo(e); throw e; }
    }));
  } catch (e) {
    error = error || errorInfo(e);
  }
  // Hook rows name where the program registered them: lines of the program's
  // own text (V8 counts the Function's header lines too).
  for (const x of [...graph.tensors, ...graph.nodes]) {
    for (const h of [...(x.hooks || []), ...(x.preHooks || []), ...(x.postHooks || [])]) {
      if (h.source) h.source = { line: h.source.line - PROGRAM_LINE_OFFSET, column: h.source.column };
    }
  }
  // An error inside a hook: the trace's error event names the hook; point at it.
  const inHook = error && hookErrorPlace(failedHook(error.message, trace), graph, program);
  if (inHook && error.thrownAt) {
    // The line inside the hook that threw (the hook's own exception's stack).
    error = { ...error, ...inHook, line: error.thrownAt.line, column: error.thrownAt.column, hook: inHook.hook.replace(/, (defined|registered) here$/, ', thrown here') };
  } else if (inHook) error = { ...error, ...inHook };
  const { thrownAt, ...plain } = error || {};
  if (error) error = plain; // posted to the page: plain data only
  return { graph, trace, error };
}
