// Page side of the sandbox: user programs (JavaScript and Python) never run
// on the site's origin. A hidden <iframe sandbox="allow-scripts"> — never
// allow-same-origin — has an opaque origin: it reads no cookie, storage or
// IndexedDB of the site. Its content security policy (CSP below) allows no
// network: no fetch/XHR/WebSocket/EventSource/beacon (connect-src 'none'), no
// script, image, font, media, frame or form from any address; its workers
// inherit that policy (they are made from blob: URLs of the frame). So the
// page fetches what the sandbox needs — the program worker's script, the
// engine's JS and wasm, Pyodide — from its own origin and hands in the bytes.
// Page and sandbox talk by postMessage of plain data only; what comes back is
// checked here (shape) and only ever shown as text by the views.
//
// `sandbox.spawn(script)` gives an object shaped like a Worker (postMessage,
// onmessage, onerror, terminate), so runner.js drives a sandboxed worker as it
// drove a plain one.
import { frameMain } from './frame.js';

/** The frame's policy. 'unsafe-eval': the JS program is compiled with `new
 * Function`; 'wasm-unsafe-eval': the engine and Pyodide are wasm; blob: the
 * frame's own object URLs (they carry the bytes the page handed in).
 * `script`: the CSP source that admits the frame's one inline script — a
 * nonce made per frame ('nonce-…'), or the script's hash ('sha256-…') for
 * a frame written into a page's HTML by the build (web/vite.config.js). */
export function sandboxCsp(script) {
  return [
    "default-src 'none'",
    `script-src ${script} blob: 'unsafe-eval' 'wasm-unsafe-eval'`,
    'worker-src blob:',
    "connect-src 'none'", "img-src 'none'", "media-src 'none'", "font-src 'none'", "style-src 'none'",
    "frame-src 'none'", "child-src blob:", "object-src 'none'", "manifest-src 'none'",
    "base-uri 'none'", "form-action 'none'",
  ].join('; ');
}

/** The frame's one script: frame.js's code, called. */
export const frameScript = (main = frameMain) => `(${main.toString()})();`.replace(/<\/script/gi, '<\\/script');

/** The srcdoc of the sandbox frame: the policy first, then frame.js's code
 * (admitted by `nonce`, or, with `hash` — 'sha256-…' of frameScript() — by its hash). */
export function sandboxDoc(nonce, { hash = null, code = frameScript() } = {}) {
  return `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${sandboxCsp(hash ? `'${hash}'` : `'nonce-${nonce}'`)}">`
    + `<script${hash ? '' : ` nonce="${nonce}"`}>${code}</script></head><body></body></html>`;
}

/** The id of the sandbox frame a page's HTML may carry (the playground's: web/vite.config.js writes it, so it loads while the page's scripts do). */
export const PAGE_FRAME_ID = 'hg-sandbox';
/** Where the page's HTML keeps the hello of its frame if it came before host.js listened (web/vite.config.js): the frame's window. */
export const HELLO_SEEN = 'hgSandboxHello';
/** The attributes of every sandbox frame (never allow-same-origin: its origin stays opaque). */
export const FRAME_ATTRS = { sandbox: 'allow-scripts', 'aria-hidden': 'true', tabindex: '-1', title: 'hookgrad sandbox (runs your program)', style: 'position:absolute;width:0;height:0;border:0;visibility:hidden' };

function randomNonce() {
  const b = new Uint8Array(16); crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

let seq = 0;

export class Sandbox {
  /** @param files { name: URL | () => Promise<ArrayBuffer|string> } what the sandbox may be given, fetched on first use */
  constructor(files = {}) {
    this.sources = { ...files };
    this.sent = new Map(); // name → Promise (fetched and posted to the frame)
    this.workers = new Map();
    this.hello = new Promise((resolve) => { this.gotHello = resolve; });
    this.onMessage = (ev) => this.receive(ev);
    window.addEventListener('message', this.onMessage);
    performance.mark?.('hookgrad:sandbox');
    // The page's HTML may carry the frame already (started while the page
    // parsed: its process starts long before the scripts have run). It may
    // have said hello before this listener was there: ask again.
    const pre = document.getElementById(PAGE_FRAME_ID);
    if (pre instanceof HTMLIFrameElement && pre.getAttribute('sandbox') === FRAME_ATTRS.sandbox && !pre.dataset.taken) {
      pre.dataset.taken = '1';
      this.frame = pre;
      if (pre.contentWindow && window[HELLO_SEEN] === pre.contentWindow) { performance.mark?.('hookgrad:sandbox-hello'); this.gotHello(); } else pre.contentWindow?.postMessage({ hgsbx: 1, op: 'ping' }, '*');
      return;
    }
    this.frame = document.createElement('iframe');
    for (const [k, v] of Object.entries(FRAME_ATTRS)) this.frame.setAttribute(k, v);
    this.frame.srcdoc = sandboxDoc(randomNonce());
    (document.body || document.documentElement).append(this.frame);
  }

  /** Adds files the sandbox may be given (name → URL or a function returning bytes). */
  provide(files) { Object.assign(this.sources, files); }

  /** Messages from the frame only (its window; its origin is opaque: "null"). */
  receive(ev) {
    if (ev.source !== this.frame.contentWindow || ev.origin !== 'null') return;
    const m = ev.data;
    if (!m || typeof m !== 'object' || m.hgsbx !== 1 || typeof m.op !== 'string') return;
    if (m.op === 'hello') { performance.mark?.('hookgrad:sandbox-hello'); this.gotHello(); return; }
    const w = this.workers.get(m.wid);
    if (!w) return;
    if (m.op === 'msg') w.onmessage?.({ data: m.data });
    else if (m.op === 'error') w.onerror?.({ message: typeof m.message === 'string' ? m.message : 'the worker failed', lineno: Number(m.lineno) || 0, colno: Number(m.colno) || 0, preventDefault() {} });
  }

  async post(msg, transfer) {
    await this.hello;
    this.frame.contentWindow.postMessage({ hgsbx: 1, ...msg }, '*', transfer);
  }

  /** Fetches a file once (the page's own origin) and gives it to the frame. */
  file(name) {
    if (!this.sent.has(name)) {
      const src = this.sources[name];
      const p = (async () => {
        if (src == null) throw new Error(`no file ${name} for the sandbox`);
        let data;
        if (typeof src === 'function') data = await src();
        else {
          const r = await fetch(src);
          if (!r.ok) throw new Error(`${name}: HTTP ${r.status}`);
          data = await this.read(r, name);
        }
        await this.post({ op: 'file', name, data });
      })();
      this.sent.set(name, p);
      p.catch(() => this.sent.delete(name)); // a later spawn tries again
    }
    return this.sent.get(name);
  }

  /**
   * The body's bytes; with `onFetchProgress` set, reported as they arrive,
   * summed over the files being fetched ({loaded, total, file}: Pyodide is
   * megabytes, and the reader is told how far it is) — for the files
   * `showsProgress(name)` names (all without it). Any other file is read
   * whole: reading the engine chunk by chunk cost the first graph several
   * main-thread tasks.
   */
  async read(r, name) {
    if (!this.onFetchProgress || !r.body || !(this.showsProgress?.(name) ?? true)) return r.arrayBuffer();
    const p = (this.progress ||= { loaded: 0, total: 0, open: 0 });
    const size = Number(r.headers.get('content-length')) || 0;
    p.total += size; p.open++;
    const chunks = []; let got = 0;
    try {
      for (const reader = r.body.getReader(); ;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value); got += value.length; p.loaded += value.length;
        this.onFetchProgress({ loaded: p.loaded, total: p.total, file: name });
      }
    } finally { if (--p.open === 0) this.progress = null; }
    const out = new Uint8Array(got); let at = 0;
    for (const c of chunks) { out.set(c, at); at += c.length; }
    return out.buffer;
  }

  /** Gives the frame a file whose bytes the page already has (e.g. a program to parse). */
  put(name, data) {
    const p = this.post({ op: 'file', name, data });
    this.sent.set(name, p);
    return p;
  }

  /**
   * A worker in the sandbox, started from the file `script` once it and
   * `needs` (files its messages refer to with {$module}/{$url}) are in the
   * frame. Returns a Worker-shaped proxy.
   */
  spawn(script, { needs = [], classic = false } = {}) {
    const wid = ++seq;
    const proxy = { onmessage: null, onerror: null };
    this.workers.set(wid, proxy);
    let gone = false;
    // The worker starts (and imports its script) as soon as its script is
    // in the frame, while the files it needs are still on their way (the
    // engine's wasm is the largest); what is posted to it waits for those.
    const spawned = this.file(script).then(() => (gone ? null : this.post({ op: 'spawn', wid, script, classic })));
    const started = Promise.all([spawned, ...needs.map((n) => this.file(n))])
      .then(() => { performance.mark?.('hookgrad:files-in'); })
      .catch((e) => { proxy.onerror?.({ message: `the sandbox could not start (${e.message})`, preventDefault() {} }); });
    let queue = started;
    proxy.postMessage = (data) => { queue = queue.then(() => { if (!gone) return this.post({ op: 'post', wid, data }); return null; }); };
    proxy.terminate = () => {
      if (gone) return;
      gone = true; this.workers.delete(wid);
      queue.then(() => this.post({ op: 'kill', wid }));
    };
    return proxy;
  }
}

let shared = null;
/** One sandbox per page (every runner of a tutorial page shares it). */
export function pageSandbox(files) {
  if (!shared) shared = new Sandbox(files);
  else shared.provide(files);
  return shared;
}
