// Shared set-up for the hardening suites (node --test tests/hardening/).
//
// Loads the package once per test process (tests/load-package.mjs) and keeps
// the wasm exports initSync returns: `wasm.memory.buffer.byteLength` is the
// instance's memory size (the soak reads it).
import assert from 'node:assert/strict';
import { loadPackage, root } from '../load-package.mjs';

export { root };

/** The hookgrad module, initialised, and its raw wasm exports (for `wasm.memory`). */
export const { hg, wasm } = await loadPackage();

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
