// Clear errors for what a sandboxed program cannot do. The guarantee is the
// sandbox frame's content security policy (sandbox/host.js: connect-src
// 'none', no script or image from any address, an opaque origin without
// storage), which these workers inherit. But a blocked fetch only rejects
// later, after the run has ended, and a CSP report goes to the browser's
// devtools, not to the reader: so the entry points themselves throw at once,
// with a sentence that says why, and the program's console shows it.

const WHY = 'hookgrad runs programs in a sandbox with no network and no storage';

const NAMES = {
  fetch: 'fetch()', XMLHttpRequest: 'XMLHttpRequest', WebSocket: 'WebSocket', EventSource: 'EventSource',
  WebTransport: 'WebTransport', importScripts: 'importScripts()', Worker: 'Worker', SharedWorker: 'SharedWorker',
};
const PROPS = { indexedDB: 'indexedDB', caches: 'caches (the Cache API)', localStorage: 'localStorage', sessionStorage: 'sessionStorage', document: 'document (and document.cookie)', parent: 'parent (the page)', top: 'top (the page)', opener: 'opener' };

/** Replaces the network and storage entry points of this worker with ones that throw a clear error. */
export function lockNetwork(scope = self) {
  for (const [key, what] of Object.entries(NAMES)) {
    const stub = function blocked() { throw new Error(`${what} is not available: ${WHY}.`); };
    try { Object.defineProperty(scope, key, { value: stub, configurable: false, writable: false }); } catch { /* not present here */ }
  }
  for (const [key, what] of Object.entries(PROPS)) {
    try { Object.defineProperty(scope, key, { get() { throw new Error(`${what} is not available: ${WHY}.`); }, configurable: false }); } catch { /* not present here */ }
  }
}
