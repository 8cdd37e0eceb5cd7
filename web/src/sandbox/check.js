// What comes back from the sandbox is a program's to forge: the program runs
// in the worker and can `postMessage` anything a structured clone carries.
// These checks keep the page's side sound — right types at the top level,
// strings where text is shown, numbers where places are — so a forged
// message can at worst show wrong numbers, never break or script the page
// (the views write every text with textContent).

const str = (x, max = 20000) => (typeof x === 'string' ? x.slice(0, max) : x == null ? null : String(x).slice(0, max));
const int = (x) => (Number.isInteger(x) ? x : null);
const isObj = (x) => !!x && typeof x === 'object' && !Array.isArray(x);

/** An error record: {message, name, line, column, hook, …} with the known fields typed. */
export function checkError(e) {
  if (e == null) return null;
  if (!isObj(e)) return { message: str(e) };
  const out = { ...e, message: str(e.message) ?? 'error', line: int(e.line), column: int(e.column) };
  for (const k of ['name', 'hook', 'type', 'traceback']) if (k in e) out[k] = str(e[k]);
  return out;
}

/** A run's result: graph {tensors, nodes}, trace [...], error, ms. */
export function checkResult(d) {
  if (!isObj(d)) return { graph: { tensors: [], nodes: [] }, trace: [], error: { message: 'The sandbox sent a malformed result.' } };
  const g = isObj(d.graph) ? d.graph : {};
  const graph = { ...g, tensors: Array.isArray(g.tensors) ? g.tensors.filter(isObj) : [], nodes: Array.isArray(g.nodes) ? g.nodes.filter(isObj) : [] };
  const trace = Array.isArray(d.trace) ? d.trace.filter((ev) => isObj(ev) && typeof ev.type === 'string') : [];
  for (const ev of trace) if (ev.type === 'log') ev.text = str(ev.text) ?? '';
  return { ...d, graph, trace, error: checkError(d.error), ms: Number.isFinite(d.ms) ? d.ms : null };
}

/** A console line the worker posts as it is printed: {level, text, from}. */
export function checkLine(d) {
  const level = ['log', 'info', 'debug', 'warn', 'error'].includes(d.level) ? d.level : 'log';
  const from = isObj(d.from) ? { fn: str(d.from.fn, 200), line: int(d.from.line), column: int(d.from.column) } : null;
  return { type: 'log', id: d.id, level, text: str(d.text) ?? '', from };
}

export const isMessage = (d) => isObj(d) && typeof d.type === 'string';
