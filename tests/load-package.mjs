// The one way the test suites load the built package, so that where it is
// (web/pkg, or HOOKGRAD_PKG=<dir> to run a suite against another build), how
// it is initialised (initSync with its own wasm, in this process) and what a
// missing or half-built package says are decided once. The suites' helpers
// (tests/node/helpers.mjs, tests/hardening/harness.mjs,
// tests/web-unit/fixtures.mjs) and the few files that load it directly call
// this. tests/e2e/package.test.mjs is the exception on purpose: it checks
// that the package resolves by its npm name.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The repository's root. */
export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The package's folder: HOOKGRAD_PKG=<dir>, else web/pkg. */
export const pkgDir = process.env.HOOKGRAD_PKG ? path.resolve(process.env.HOOKGRAD_PKG) : path.join(root, 'web/pkg');

/** A file of the package (e.g. 'python.js') as a URL to import. */
export const pkgUrl = (name, dir = pkgDir) => pathToFileURL(path.join(dir, name)).href;

/**
 * Imports `dir`'s hookgrad.js and initialises it with its wasm; returns
 * `{ hg, wasm }` (`wasm`: the exports initSync returns, e.g. `wasm.memory`).
 * `fresh: true` loads a private copy: ES modules are cached by URL, so a
 * second, independent instance in one process needs its own URL.
 */
export async function loadPackage({ dir = pkgDir, fresh = false } = {}) {
  const js = path.join(dir, 'hookgrad.js');
  const bin = path.join(dir, 'hookgrad_bg.wasm');
  if (!fs.existsSync(js) || !fs.existsSync(bin)) {
    throw new Error(`hookgrad package not built: ${js} / ${bin} missing (run npm run build)`);
  }
  let from = dir;
  if (fresh) {
    from = fs.mkdtempSync(path.join(os.tmpdir(), 'hookgrad-pkg-'));
    fs.cpSync(dir, from, { recursive: true });
  }
  try {
    const hg = await import(pkgUrl('hookgrad.js', from));
    const wasm = hg.initSync({ module: fs.readFileSync(path.join(from, 'hookgrad_bg.wasm')) });
    if (!hg.nn || typeof hg.Module?.prototype?.call !== 'function') {
      throw new Error(`${js} is the raw wasm-bindgen output, not the facade (hg.nn, Module.call): build in progress? rerun after npm run build`);
    }
    return { hg, wasm };
  } finally {
    if (fresh) fs.rmSync(from, { recursive: true, force: true });
  }
}
