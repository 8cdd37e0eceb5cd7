// The sandbox frame's only script. host.js puts it, as text, in the srcdoc of
// an <iframe sandbox="allow-scripts">: an opaque origin (no cookies, no
// storage, no IndexedDB of the site) whose content security policy allows no
// network at all. It must be self-contained (no imports, no closure over this
// module): it is stringified with Function.prototype.toString.
//
// The frame is a worker factory and a relay, nothing more. The page hands it
// files as bytes (scripts, the engine's wasm, later Pyodide); it makes blob:
// URLs of them (created in this origin, so allowed by `script-src blob:` and
// reaching no server), starts workers from them and passes plain messages
// between page and workers. It never renders anything a program sent.
//
// Page → frame: {hgsbx: 1, op, ...}
//   file  {name, data: ArrayBuffer|string}   store a file (replaces one of the same name)
//   spawn {wid, script, classic?}            start a worker from a stored script
//   post  {wid, data}                        post to a worker; top-level values
//         {$module: name} become the compiled WebAssembly.Module of that file,
//         {$url: name} a blob: URL of that file as an ES module (its relative
//         imports "./x.js" pointed at the other stored files), {$file: name}
//         its bytes, {$text: name} its text; nested plain objects likewise
//   kill  {wid}                              terminate a worker
//   ping  {}                                 answered with hello (a frame written
//                                            into the page's HTML may have said
//                                            hello before the page listened)
// Frame → page: {hgsbx: 1, op: 'hello'} once (and per ping), then
//   {op: 'msg', wid, data}  {op: 'error', wid, message, lineno, colno}

export function frameMain() {
  'use strict';
  const files = new Map(); const urls = new Map(); const modules = new Map(); const workers = new Map();
  const up = (m) => { try { parent.postMessage({ hgsbx: 1, ...m }, '*'); } catch (e) { parent.postMessage({ hgsbx: 1, op: 'error', wid: m.wid, message: `The sandbox could not pass a message on (${e && e.message})` }, '*'); } };
  const text = (d) => (typeof d === 'string' ? d : new TextDecoder().decode(d));
  // A module's relative imports ("./hookgrad_core.js") cannot resolve from a
  // blob: URL: each is rewritten to the blob: URL of that stored file.
  const IMPORT = /(\bfrom\s*|\bimport\s*\(?\s*)(["'])\.\/([\w.-]+\.m?js)\2/g;
  function moduleUrl(name, seen = new Set()) {
    if (urls.has(name)) return urls.get(name);
    if (!files.has(name)) throw new Error(`the sandbox was not given ${name}`);
    if (seen.has(name)) throw new Error(`circular import of ${name}`);
    seen.add(name);
    const src = text(files.get(name)).replace(IMPORT, (m, kw, q, dep) => `${kw}${q}${moduleUrl(dep, seen)}${q}`);
    const url = URL.createObjectURL(new Blob([src], { type: 'text/javascript' }));
    urls.set(name, url);
    return url;
  }
  const compiled = (name) => {
    if (!modules.has(name)) modules.set(name, files.has(name) ? WebAssembly.compile(files.get(name)).catch(() => null) : Promise.resolve(null));
    return modules.get(name);
  };
  async function resolve(data) {
    if (!data || typeof data !== 'object' || Array.isArray(data)) return data;
    const out = { ...data };
    for (const [k, v] of Object.entries(data)) {
      if (v && typeof v === 'object' && typeof v.$module === 'string') out[k] = await compiled(v.$module);
      else if (v && typeof v === 'object' && typeof v.$url === 'string') out[k] = moduleUrl(v.$url);
      else if (v && typeof v === 'object' && typeof v.$file === 'string') out[k] = files.get(v.$file) ?? null;
      else if (v && typeof v === 'object' && typeof v.$text === 'string') out[k] = files.has(v.$text) ? text(files.get(v.$text)) : null;
      else if (v && typeof v === 'object' && !Array.isArray(v) && !ArrayBuffer.isView(v) && !(v instanceof ArrayBuffer)) out[k] = await resolve(v);
    }
    return out;
  }
  // A worker that will run a module script: Chromium refuses `new
  // Worker(blob:, {type: 'module'})` in an opaque origin, but a classic
  // worker may import() a blob: module. Its first message (from this frame,
  // at spawn) names the module; messages that arrive while the module loads
  // are kept, then handed to the handler the module installed, in order.
  function moduleWorker() {
    const src = `const q = []; let boot = null;
self.onmessage = (e) => {
  if (boot || !e.data || typeof e.data.hgboot !== 'string') { q.push(e); return; }
  boot = import(e.data.hgboot).then(() => { for (const x of q.splice(0)) self.onmessage?.(x); },
    (err) => { setTimeout(() => { throw new Error('the worker script failed to load: ' + (err && err.message || err)); }); });
};`;
    return new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })));
  }
  let spare = null;
  try { spare = moduleWorker(); } catch { /* made at spawn instead */ }
  addEventListener('message', (ev) => {
    if (ev.source !== parent) return;
    const m = ev.data;
    if (!m || typeof m !== 'object' || m.hgsbx !== 1) return;
    if (m.op === 'ping') up({ op: 'hello' });
    else if (m.op === 'file' && typeof m.name === 'string') {
      files.set(m.name, m.data); modules.delete(m.name);
      const u = urls.get(m.name); if (u) { URL.revokeObjectURL(u); urls.delete(m.name); }
      // Compile a wasm as soon as it arrives (off the main thread), not when a worker first asks.
      if (/\.wasm$/.test(m.name)) compiled(m.name);
    } else if (m.op === 'spawn') {
      let w;
      try {
        if (m.classic) w = new Worker(URL.createObjectURL(new Blob([text(files.get(m.script) || '')], { type: 'text/javascript' })));
        else {
          // The worker started when the frame did (below), if not taken yet:
          // its thread and its JavaScript engine are up by the time the
          // page's files are here. Else a new one.
          w = spare || moduleWorker();
          spare = null;
          w.postMessage({ hgboot: moduleUrl(m.script) });
        }
      } catch (e) { up({ op: 'error', wid: m.wid, message: String(e && e.message || e) }); return; }
      // Posts to a worker go out in order even when one waits for a compile.
      const entry = { w, queue: Promise.resolve() };
      workers.set(m.wid, entry);
      w.onmessage = (e) => up({ op: 'msg', wid: m.wid, data: e.data });
      w.onerror = (e) => { e.preventDefault(); up({ op: 'error', wid: m.wid, message: String(e.message || 'the worker failed'), lineno: e.lineno, colno: e.colno }); };
    } else if (m.op === 'post') {
      const entry = workers.get(m.wid); if (!entry) return;
      entry.queue = entry.queue.then(() => resolve(m.data)).then((d) => entry.w.postMessage(d), (e) => up({ op: 'error', wid: m.wid, message: String(e && e.message || e) }));
    } else if (m.op === 'kill') {
      const entry = workers.get(m.wid);
      if (entry) { entry.w.terminate(); workers.delete(m.wid); }
    }
  });
  up({ op: 'hello' });
}
