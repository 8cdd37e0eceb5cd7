// Pure: how console.log arguments print in the console pane. Tensors use
// their own toString() (the engine's PyTorch repr, e.g. `tensor(8.)`), lists
// print as Python tuples, null as None. Used by the program worker.

/**
 * @param x the value logged
 * @param is { isTensor(x), isNode(x) } recognisers for engine objects
 * @param top strings print raw at the top level and quoted inside lists
 */
export function formatArg(x, is, top = true) {
  try {
    if (x === null) return 'None';
    if (x === undefined) return 'undefined';
    if (is.isTensor(x)) return x.toString();
    if (is.isNode(x)) return `<${x.name} object>`;
    if (Array.isArray(x)) {
      const inner = x.map((v) => formatArg(v, is, false));
      if (x.some((v) => v === null || is.isTensor(v))) return x.length === 1 ? `(${inner[0]},)` : `(${inner.join(', ')})`;
      return `[${inner.join(', ')}]`;
    }
    if (typeof x === 'string') return top ? x : JSON.stringify(x);
    if (typeof x === 'function') return `[Function ${x.name || 'anonymous'}]`;
    if (typeof x !== 'object') return String(x);
    if (x instanceof Error) return `${x.name}: ${x.message}`;
    if (typeof x.name === 'string' && typeof x.registerForwardHook === 'function') return `${x.name}()`;
    return `{${Object.entries(x).map(([k, v]) => `${k}: ${formatArg(v, is, false)}`).join(', ')}}`;
  } catch (e) {
    return `<unprintable: ${e && e.message}>`;
  }
}
