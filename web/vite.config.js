// Vite builds the playground from web/ into web/dist/. The engine package
// (web/pkg, built by `npm run build:wasm`) is not bundled: the program worker
// imports it at run time from ./pkg/, which scripts/build-web.sh copies.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

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

// The long-form tutorial pages (web/tutorials/<name>.html).
const TUTORIALS = ['hooks-in-depth', 'adjoint', 'capture', 'legacy-linear'];

export default {
  root: here,
  base: './',
  publicDir: false,
  plugins: [pageHead],
  server: { host: '127.0.0.1' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    rollupOptions: {
      input: { home: `${here}index.html`, playground: `${here}playground.html`, embed: `${here}embed.html`,
        ...Object.fromEntries(TUTORIALS.map((t) => [`tutorial-${t}`, `${here}tutorials/${t}.html`])) },
      // No "JavaScript callbacks ran for N s" report after every build.
      checks: { bundlerTimings: false, pluginTimings: false },
    },
  },
  worker: { format: 'es' },
};
