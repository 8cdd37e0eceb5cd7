#!/usr/bin/env node
// Minifies the package's JavaScript in place (the wasm-bindgen glue
// hookgrad_core.js, the facade hookgrad.js, records.js): what a page fetches
// is what the tests run. Run by build-wasm.sh on the release build only (the
// dev build of `npm run test:fast` stays readable).
//
// Issue 10, W5: the three files are 16.7 KB gzip as written (doc comments,
// long local names), 9.1 KB minified. Function and class names are kept
// (`keepNames`): they are visible to users (`Tensor.name`,
// `t.registerHook.name`) and wasm-bindgen's glue prints a class's name in
// its "expected instance of Tensor" error.
//
// The minifier is rolldown's (oxc), the bundler Vite already installs,
// pinned in package.json.
import fs from 'node:fs';
import path from 'node:path';
import { minifySync } from 'rolldown/utils';

const dir = process.argv[2];
if (!dir) throw new Error('usage: minify-pkg.mjs <package dir>');
const OPTIONS = {
  module: true,
  compress: { keepNames: { function: true, class: true } },
  mangle: { toplevel: true, keepNames: true },
};
let before = 0;
let after = 0;
for (const f of fs.readdirSync(dir).filter((f) => f.endsWith('.js')).sort()) {
  const file = path.join(dir, f);
  const src = fs.readFileSync(file, 'utf8');
  const r = minifySync(f, src, OPTIONS);
  if (r.errors.length) throw new Error(`minify ${f}: ${r.errors.map((e) => e.message).join('; ')}`);
  fs.writeFileSync(file, r.code);
  before += src.length;
  after += r.code.length;
}
console.error(`[build] minified the package's JS: ${before} → ${after} bytes`);
