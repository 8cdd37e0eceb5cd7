// Vite builds the playground from web/ into web/dist/. The engine package
// (web/pkg, built by `npm run build:wasm`) is not bundled: the program worker
// imports it at run time from ./pkg/, which scripts/build-web.sh copies.
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
// The long-form tutorial pages (web/tutorials/<name>.html).
const TUTORIALS = ['hooks-in-depth', 'adjoint', 'capture', 'legacy-linear'];

export default {
  root: here,
  base: './',
  publicDir: false,
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
