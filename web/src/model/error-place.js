// Pure: where in the user's program an error happened, for the message and
// the marker in the editor.
//
// - Runtime errors: V8's stack names the program's frames `<anonymous>:L:C`
//   (run-program.js's errorInfo subtracts the `new Function` header).
// - Syntax errors: `new Function` reports none, so the page parses the
//   program once more as a classic worker script (wrapForParse) and reads the
//   error event's lineno/colno (runner.js: locateSyntaxError).
// - Errors inside a hook: the engine rethrows them in PyTorch's words
//   ("tensor hook 'h' on tensor 'c' raised an error: …") with the hook's own
//   exception as `cause`; its stack gives the line that threw
//   (run-program.js). The trace's `error` event names the hook (`hook`,
//   `hookKind`, `hookName`); without a `cause`, the place is the hook's
//   definition (or, for an anonymous hook, the line that registered it, from
//   its row in the graph).

/** Lines `wrapForParse` puts before the program. */
export const PARSE_HEADER_LINES = 2;

/** The program as a function expression, parsed (never called) to locate a syntax error. */
export function wrapForParse(program) {
  // Same grammar as run-program.js's `new Function('hg', 'console', '"use strict";\n' + program)`.
  return `(function (hg, console) {\n"use strict";\n${program}\n});`;
}

/** A parse error event's lineno/colno → the program's 1-based line and column. */
export function parsePlace(lineno, colno, program) {
  const line = lineno - PARSE_HEADER_LINES;
  const lines = program.split('\n').length;
  if (!(line >= 1)) return null;
  return { line: Math.min(line, lines), column: colno >= 1 ? colno : null };
}

/** What the engine's messages call each kind of hook (an anonymous hook's label). */
const KIND_WHAT = {
  tensor: 'tensor hook', 'retain-grad': 'retain_grad', 'node-pre': 'pre-hook', 'node-post': 'hook',
  'post-accumulate': 'post-accumulate-grad hook', 'module-pre': 'forward pre-hook', 'module-forward': 'forward hook',
  'module-backward': 'backward hook', 'module-full-backward': 'full backward hook',
  'module-full-backward-pre': 'full backward pre-hook', pack: 'pack hook', unpack: 'unpack hook', 'multi-grad': 'multi-grad hook',
};

/**
 * The hook whose exception `message` is, from the trace's `error` event for
 * it (the latest whose message ends the thrown one: an enclosing call may
 * prefix its own words), or null: { handle, kind, name }.
 */
export function failedHook(message, trace) {
  const text = String(message || '');
  for (let i = (trace || []).length - 1; i >= 0; i--) {
    const e = trace[i];
    if (e.type === 'error' && e.hook != null && text.endsWith(e.message)) return { handle: e.hook, kind: e.hookKind, name: e.hookName };
  }
  return null;
}

/** Hook rows of a graph (tensors' hooks, nodes' pre/post hooks). */
function hookRows(graph) {
  return [...(graph?.tensors || []).flatMap((t) => t.hooks || []), ...(graph?.nodes || []).flatMap((n) => [...(n.preHooks || []), ...(n.postHooks || [])])];
}

/**
 * { line, column, hook } for an error raised inside `hook` (failedHook's), or
 * null. Prefers the function's definition (`function name(`, `name = (`…) in
 * the program, then the registration site the engine recorded in its row.
 */
export function hookErrorPlace(hook, graph, program) {
  if (!hook) return null;
  const name = hook.name || null;
  const label = name ? `hook ${name}` : KIND_WHAT[hook.kind] || 'hook';
  if (name && /^[\w$]+$/.test(name)) {
    const lines = program.split('\n');
    const def = new RegExp(`(function\\s*\\*?\\s*${name}\\s*\\(|\\b${name}\\s*[:=]\\s*(?:async\\s*)?(?:function\\b|\\(|[\\w$]+\\s*=>))`);
    for (let i = 0; i < lines.length; i++) {
      const m = def.exec(lines[i]);
      if (m) return { line: i + 1, column: m.index + 1, hook: `${label}, defined here` };
    }
  }
  const row = hookRows(graph).find((r) => r.handle === hook.handle && r.source);
  if (row) return { line: row.source.line, column: row.source.column, hook: `${label}, registered here` };
  return null;
}

/** Function name and program line of the innermost program frame of a stack, or null. */
export function programFrame(stack, lineOffset) {
  for (const l of String(stack || '').split('\n')) {
    const m = /at (?:(?:new |async )?([\w$.<>]+) \()?.*<anonymous>:(\d+):(\d+)\)?\s*$/.exec(l);
    if (m) {
      const fn = m[1] && m[1] !== 'eval' && m[1] !== 'anonymous' ? m[1].replace(/^Object\./, '') : null;
      return { fn, line: Number(m[2]) - lineOffset, column: Number(m[3]) };
    }
  }
  return null;
}
