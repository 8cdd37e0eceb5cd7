// Vite builds the playground from web/ into web/dist/. The engine package
// (web/pkg, built by `npm run build:wasm`) is not bundled: the program worker
// imports it at run time from ./pkg/, which scripts/build-web.sh copies.
import fs from 'node:fs';
import crypto from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { sandboxDoc, frameScript, PAGE_FRAME_ID, FRAME_ATTRS, HELLO_SEEN } from './src/sandbox/host.js';

const here = fileURLToPath(new URL('.', import.meta.url));

// One page head: the lines every page shares (charset, viewport, color
// scheme, icon) live in web/src/page-head.html, and each page marks where
// they go with a `<!-- page-head … -->` comment, first in its <head> (the
// charset must come early). Pages keep only what is theirs (title,
// description, styles). A page without the marker fails the build.
const PAGE_HEAD = /^([ \t]*)<!-- page-head\b[^>]*-->$/m;
const pageHead = {
  name: 'hookgrad-page-head',
  transformIndexHtml: {
    order: 'pre',
    handler(html, ctx) {
      const m = html.match(PAGE_HEAD);
      if (!m) throw new Error(`${ctx.filename}: no <!-- page-head --> marker in its <head> (see web/vite.config.js)`);
      const lines = fs.readFileSync(`${here}src/page-head.html`, 'utf8').trim().split('\n');
      return html.replace(PAGE_HEAD, lines.map((l) => m[1] + l).join('\n'));
    },
  },
};

// A page whose entry is a small boot script that imports the page's code
// (web/src/boot.js: it starts the sandbox and the engine first) would fetch
// that code only once the boot script has run. The code's chunks get a
// <link rel="modulepreload"> in the page instead, so they load from the
// start, beside the boot script, and are evaluated when it imports them.
const preloadDynamic = {
  name: 'hookgrad-preload-dynamic',
  transformIndexHtml: {
    order: 'post',
    handler(html, { chunk, bundle }) {
      // Only a page whose entry is a boot script (boot.js: the playground; embed-boot.js: the embed).
      if (!chunk || !bundle || !chunk.moduleIds?.some((id) => /\/src\/(embed-)?boot\.js$/.test(id))) return html;
      const files = new Set();
      const add = (name) => {
        const c = bundle[name];
        if (!c || c.type !== 'chunk' || files.has(name) || name === chunk.fileName) return;
        files.add(name);
        for (const dep of c.imports) add(dep);
      };
      // Only the dynamic imports of the entry itself (boot.js → main.js), not
      // those deeper down (the editor, the layout worker: after the first graph).
      for (const name of chunk.dynamicImports) add(name);
      // The entry's static imports, transitively (a chunk both boot scripts share imports the runner's).
      const statics = [];
      const addStatic = (name) => { if (statics.includes(name) || !bundle[name]) return; statics.push(name); for (const dep of bundle[name].imports) addStatic(dep); };
      for (const name of chunk.imports) addStatic(name);
      const have = new Set(statics);
      const rel = (name) => `./${name}`; // pages at the site root (Vite base './')
      const tags = [...files].filter((f) => !have.has(f)).map((f) => ({ tag: 'link', attrs: { rel: 'modulepreload', crossorigin: true, href: rel(f) }, injectTo: 'head' }));
      // The JavaScript program worker's script: boot.js hands it to the sandbox
      // first of all (runner.js fetches it with fetch(), which this preload
      // matches). Not the Python worker's: a JavaScript page loads nothing of Python.
      const worker = Object.keys(bundle).find((f) => /(^|\/)program-worker-[\w-]+\.js$/.test(f));
      // The page's style sheet, inlined: a linked one is fetched before the
      // boot script may run (a deferred script waits for style sheets), and
      // the page is laid out once, styled. 25 KB (5 KB gzip), no url() in it.
      const inlined = html.replace(/<link rel="stylesheet" crossorigin href="\.\/(assets\/[\w.-]+\.css)">/g, (tag, file) => {
        const css = bundle[file];
        if (!css || css.type !== 'asset') throw new Error(`${file}: not in the bundle (hookgrad-preload-dynamic, web/vite.config.js)`);
        const text = String(css.source);
        if (/url\(|@import/.test(text)) throw new Error(`${file}: has url() or @import, which would resolve against the page once inlined`);
        return `<style>${text.replace(/<\/style/gi, '<\\/style')}</style>`;
      });
      // The boot script runs as soon as it has arrived, before the page's
      // first layout (boot.js waits for the parsed document itself before
      // importing the page).
      const entry = `<script type="module" crossorigin src="${rel(chunk.fileName)}"></script>`;
      if (!inlined.includes(entry)) throw new Error(`${chunk.fileName}: its <script> tag is not where hookgrad-preload-dynamic looks (web/vite.config.js)`);
      // First requests first: the boot script, its static imports and the
      // program worker's script go before the engine's preloads. A host on
      // HTTP/1.1 (6 connections per origin in Chromium) otherwise sends the
      // boot script only once one of the engine's 7 requests is done; it
      // starts the chain the engine's files wait for (they are handed to
      // the sandbox by the boot script's code).
      const first = [entry.replace('<script ', '<script async ')];
      let out = inlined.replace(entry, '');
      for (const dep of statics) {
        const link = `<link rel="modulepreload" crossorigin href="${rel(dep)}">`;
        out = out.replace(link, '');
        first.push(link);
      }
      if (worker) first.push(`<link rel="preload" as="fetch" crossorigin href="${rel(worker)}">`);
      const at = out.indexOf('<link rel="preload" href="./pkg/');
      out = at >= 0 ? `${out.slice(0, at)}${first.join('\n  ')}\n  ${out.slice(at)}` : out.replace('</head>', `  ${first.join('\n  ')}\n</head>`);
      return { html: out, tags };
    },
  },
};

// The sandbox frame written into the page (the playground's `<!-- sandbox-frame -->`
// marker, first in its <body>): the browser starts the frame — in Chromium a
// process of its own, 100–200 ms — while it parses the page, not once the
// page's scripts have run; sandbox/host.js takes this frame instead of making
// one. The same attributes and policy as a frame made by host.js, the script
// admitted by its hash (a static page has no per-load nonce).
const SANDBOX_MARK = /^([ \t]*)<!-- sandbox-frame\b[^>]*-->$/m;
const escAttr = (s) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const sandboxFrame = {
  name: 'hookgrad-sandbox-frame',
  transformIndexHtml: {
    order: 'post',
    handler(html, ctx) {
      const m = html.match(SANDBOX_MARK);
      if (!m) return html;
      // A page without a boot script (the tutorials) preloads the program
      // worker's script here: its runner hands it to this frame first.
      const worker = ctx.bundle && Object.keys(ctx.bundle).find((f) => /(^|\/)program-worker-[\w-]+\.js$/.test(f));
      if (worker && !html.includes(worker)) {
        const up = '../'.repeat(Math.max(0, String(ctx.path || '/').split('/').length - 2)) || './';
        html = html.replace('</head>', `  <link rel="preload" as="fetch" crossorigin href="${up}${worker}">\n</head>`);
      }
      const code = frameScript();
      const hash = `sha256-${crypto.createHash('sha256').update(code, 'utf8').digest('base64')}`;
      const attrs = { id: PAGE_FRAME_ID, ...FRAME_ATTRS, srcdoc: sandboxDoc(null, { hash, code }) };
      const tag = `<iframe ${Object.entries(attrs).map(([k, v]) => `${k}="${escAttr(v)}"`).join(' ')}></iframe>`;
      // The frame usually boots before the page's scripts run: its hello is
      // kept here for sandbox/host.js (which checks it came from this frame),
      // instead of a ping and a second hello through a busy main thread.
      const keep = `<script>addEventListener('message', function hello(e) { if (e.data && e.data.hgsbx === 1 && e.data.op === 'hello' && e.origin === 'null') { window.${HELLO_SEEN} = e.source; removeEventListener('message', hello); } });</script>`;
      return html.replace(SANDBOX_MARK, `${m[1]}${keep}\n${m[1]}${tag}`);
    },
  },
};

// The long-form tutorial pages (web/tutorials/<name>.html).
const TUTORIALS = ['hooks-in-depth', 'adjoint', 'capture', 'legacy-linear'];

export default {
  root: here,
  base: './',
  publicDir: false,
  plugins: [pageHead, preloadDynamic, sandboxFrame],
  server: { host: '127.0.0.1' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // Every browser that runs the site (es2022) supports modulepreload: no
    // polyfill chunk on the way to the boot script (one request fewer).
    modulePreload: { polyfill: false },
    rollupOptions: {
      input: { home: `${here}index.html`, playground: `${here}playground.html`, embed: `${here}embed.html`,
        ...Object.fromEntries(TUTORIALS.map((t) => [`tutorial-${t}`, `${here}tutorials/${t}.html`])) },
      // The boot scripts' code in one chunk with the runner's: both boot
      // scripts share it, and a chunk of their own would also take the
      // pages' style sheet (which the boot script would then fetch again
      // before importing the page, though it is inlined in the HTML).
      output: { manualChunks: (id) => (/\/src\/(early-runner|runner)\.js$|vite\/preload-helper/.test(id) ? 'runner' : undefined) },
      // No "JavaScript callbacks ran for N s" report after every build.
      checks: { bundlerTimings: false, pluginTimings: false },
    },
  },
  worker: { format: 'es' },
};
