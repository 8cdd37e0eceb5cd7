// Shared set-up for the hardening suites (node --test tests/hardening/).
//
// Loads web/pkg/hookgrad.js once per test process with initSync and keeps
// the wasm exports initSync returns: `wasm.memory.buffer.byteLength` is the
// instance's memory size (the soak reads it). HOOKGRAD_PKG=<dir> points the
// suites at another build of the package, as in tests/node/.
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, '../..');
const pkgDir = process.env.HOOKGRAD_PKG ? path.resolve(process.env.HOOKGRAD_PKG) : path.join(root, 'web/pkg');
const pkgJs = path.join(pkgDir, 'hookgrad.js');
const pkgWasm = path.join(pkgDir, 'hookgrad_bg.wasm');
if (!fs.existsSync(pkgJs) || !fs.existsSync(pkgWasm)) {
  throw new Error(`hookgrad package not built: ${pkgJs} / ${pkgWasm} missing (run npm run build)`);
}

/** The hookgrad module, initialised. */
export const hg = await import(pathToFileURL(pkgJs).href);
/** The raw wasm exports (for `wasm.memory`). */
export const wasm = hg.initSync({ module: fs.readFileSync(pkgWasm) });

/** Current wasm linear memory size in bytes. */
export const memoryBytes = () => wasm.memory.buffer.byteLength;

/** A leaf that requires grad. */
export const L = (data) => hg.tensor(data, { requiresGrad: true });

/** Messages that mean the wasm instance trapped or a RefCell was left borrowed. */
export const TRAP = /unreachable|recursive use of an object|already (mutably )?borrowed|null pointer passed to rust|RuntimeError: memory access|table index is out of bounds/i;

/**
 * Run fn; it must throw a JS Error (not a string, not a trap) whose message
 * equals `expected` (string) or matches it (RegExp). Returns the error.
 */
export function expectError(fn, expected, what = 'call') {
  let err;
  let threw = false;
  try {
    fn();
  } catch (e) {
    threw = true;
    err = e;
  }
  assert.ok(threw, `${what}: expected an Error to be thrown, but it returned normally`);
  assert.ok(err instanceof Error, `${what}: threw a non-Error: ${String(err)}`);
  assert.ok(!(err instanceof WebAssembly.RuntimeError), `${what}: wasm trap: ${err.message}`);
  assert.doesNotMatch(err.message, TRAP, `${what}: trap-like message`);
  assert.ok(err.message.length > 0, `${what}: empty message`);
  if (typeof expected === 'string') assert.equal(err.message, expected, `${what}: message`);
  else if (expected instanceof RegExp) assert.match(err.message, expected, `${what}: message`);
  return err;
}

/**
 * The canary: proves the instance still works after a misuse. Checks the
 * global state (grad mode, semantics) was restored, then runs a small graph
 * with a tensor hook, a node pre-hook, retainGrad, trace() and graph().
 */
export function canary() {
  assert.equal(hg.isGradEnabled(), true, 'canary: grad mode left disabled');
  assert.equal(hg.getSemantics(), 'pytorch-2', 'canary: semantics changed');
  const a = L(2);
  const b = L(3);
  const seen = [];
  const h = a.registerHook((g) => { seen.push(g.item()); return g.mul(1); });
  let c;
  const events = hg.trace(() => {
    c = a.mul(b);
    c.retainGrad();
    c.gradFn.registerPrehook(() => undefined);
    c.backward();
  });
  assert.equal(a.grad.item(), 3, 'canary: a.grad');
  assert.equal(b.grad.item(), 2, 'canary: b.grad');
  assert.equal(c.grad.item(), 1, 'canary: c.grad');
  assert.deepEqual(seen, [3], 'canary: hook saw');
  assert.ok(events.some((e) => e.type === 'node' && e.name === 'MulBackward0'), 'canary: trace');
  const g = hg.graph([c]);
  assert.equal(g.nodes.length, 3, 'canary: graph nodes');
  h.remove();
  assert.equal(hg.tensor([[1, 2], [3, 4]]).matmul(hg.tensor([1, 1])).toArray().join(), '3,7', 'canary: matmul');
}

/** Silence console.warn while running fn. */
export function quiet(fn) {
  const orig = console.warn;
  console.warn = () => {};
  try {
    return fn();
  } finally {
    console.warn = orig;
  }
}
