// Shared helpers for the Node conformance suite (node --test tests/node/).
//
// Loads the package once per test process (node --test runs each file in its
// own process; tests/load-package.mjs), and reads tests/fixtures/pytorch.json,
// the values PyTorch computed (tests/fixtures/gen_fixtures.py). Expected
// values in these tests come from that file or from hand calculation, never
// from hookgrad itself.
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { loadPackage, root } from '../load-package.mjs';

export { root };

/** The hookgrad module, initialised. */
export const { hg } = await loadPackage();

/** The PyTorch fixtures. */
export const fixtures = JSON.parse(
  fs.readFileSync(path.join(root, 'tests/fixtures/pytorch.json'), 'utf8'),
);

/** One scenario of pytorch.json by name (throws when it is missing). */
export function S(name) {
  const s = fixtures.scenarios[name];
  if (!s) throw new Error(`scenario ${name} missing from pytorch.json`);
  return s;
}

// ------------------------------------------------------------- numbers

export const REL = 1e-4;
export const ABS = 1e-6;

function closeNum(a, e) {
  if (typeof e === 'string') return String(a) === e; // 'nan', 'inf'
  if (typeof a !== 'number') return false;
  if (Number.isNaN(e)) return Number.isNaN(a);
  return Math.abs(a - e) <= REL * Math.abs(e) + ABS;
}

function closeDeep(a, e, where, errs) {
  if (e === null || e === undefined) {
    if (a !== null && a !== undefined) errs.push(`${where}: expected null, got ${JSON.stringify(a)}`);
    return;
  }
  if (Array.isArray(e)) {
    if (!Array.isArray(a)) { errs.push(`${where}: expected array ${JSON.stringify(e)}, got ${JSON.stringify(a)}`); return; }
    if (a.length !== e.length) { errs.push(`${where}: length ${a.length} != ${e.length} (got ${JSON.stringify(a)}, expected ${JSON.stringify(e)})`); return; }
    e.forEach((x, i) => closeDeep(a[i], x, `${where}[${i}]`, errs));
    return;
  }
  if (!closeNum(a, e)) errs.push(`${where}: got ${JSON.stringify(a)}, expected ${JSON.stringify(e)}`);
}

/** Deep compare nested arrays of numbers (and nulls) with 1e-4 relative tolerance. */
export function approx(actual, expected, msg = 'value') {
  const errs = [];
  closeDeep(actual, expected, msg, errs);
  if (errs.length) assert.fail(errs.slice(0, 8).join('\n'));
}

/** A tensor's values as nested arrays (number for 0-d), or null. */
export function V(t) {
  if (t === null || t === undefined) return null;
  if (typeof t === 'number') return t;
  return t.toArray();
}

/**
 * The contract says absent values are `null`; wasm-bindgen's Option getters
 * give `undefined`. Tests compare through none() and one test
 * (backward.test.mjs, "absent values are null") checks the contract strictly.
 */
export const none = (x) => (x === undefined ? null : x);

/** A tensor's shape as a plain array (the binding may return a Uint32Array). */
export const shapeOf = (t) => Array.from(t.shape);

/** A list of tensors (or nulls) as values. */
export const Vs = (ts) => Array.from(ts, V);

/** hg.tensor shorthand. */
export function leaf(data, requiresGrad = true) {
  return hg.tensor(data, { requiresGrad });
}

// --------------------------------------------------------------- graphs

/**
 * PyTorch's AccumulateGrad.name() is 'torch::autograd::AccumulateGrad' (its
 * C++ qualified name); the contract names the node 'AccumulateGrad' (its
 * Python type name). We compare against the contract's spelling.
 */
export function normName(n) {
  return typeof n === 'string' ? n.replace(/^torch::autograd::/, '') : n;
}

/** A fixture tree with AccumulateGrad names normalised. */
export function normTree(t) {
  if (t === null) return null;
  if (t.next === '...') return { name: normName(t.name), next: '...' };
  return { name: normName(t.name), next: t.next.map(([c, nr]) => [normTree(c), nr]) };
}

/** hookgrad's backward graph below a node, in the fixture's tree shape. */
export function tree(node, depth = 8) {
  if (node === null || node === undefined) return null;
  if (depth === 0) return { name: node.name, next: '...' };
  return { name: node.name, next: node.nextFunctions.map(([c, nr]) => [tree(c, depth - 1), nr]) };
}

/** Assert that node's graph has the same names / edges as the fixture tree. */
export function assertTree(node, fixtureTree, msg) {
  const depth = maxDepth(fixtureTree);
  assert.deepEqual(tree(node, depth), normTree(fixtureTree), msg);
}

function maxDepth(t) {
  if (t === null) return 0;
  if (t.next === '...') return 0;
  return 1 + Math.max(0, ...t.next.map(([c]) => maxDepth(c)));
}

// --------------------------------------------------------------- errors

/** Messages from PyTorch internals carry a build path; not part of the text we compare. */
export function stripTriggered(msg) {
  return msg.replace(/ \(Triggered internally at [^)]*\)$/, '');
}

/** The anomaly-detection hint is Python-only advice; hookgrad may omit it. */
export const INPLACE_HINT = / Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch\.autograd\.set_detect_anomaly\(True, check_nan=False\)\.$/;

/** Run fn, which must throw an Error; return its message. */
export function thrown(fn) {
  let threw = false;
  let message;
  try {
    fn();
  } catch (e) {
    threw = true;
    message = e instanceof Error ? e.message : String(e);
  }
  assert.ok(threw, 'expected an error to be thrown');
  return message;
}

/** fn must throw exactly PyTorch's message (the fixture's {class, message}). */
export function assertThrowsExact(fn, expected) {
  const got = thrown(fn);
  assert.equal(got, stripTriggered(expected.message));
}

// ------------------------------------------------------------- warnings

// Every text console.warn received in this process, whoever installed
// console.warn at the time. The engine shows a warning the way Python's
// default filter does — once per text and place — so a test may raise a
// warning an earlier test already showed (see warnings.test.mjs "once").
export const SHOWN_WARNINGS = new Set();
const realWarn = console.warn;
console.warn = (...args) => { SHOWN_WARNINGS.add(args.map(String).join(' ')); realWarn(...args); };

/**
 * Run fn and collect the warnings it causes: the `warning` events of
 * hg.trace (the contract's record of warnings) and console.warn calls.
 */
export function captureWarnings(fn) {
  const consoleCalls = [];
  const shownBefore = new Set(SHOWN_WARNINGS);
  const orig = console.warn;
  console.warn = (...args) => { const m = args.map(String).join(' '); consoleCalls.push(m); SHOWN_WARNINGS.add(m); };
  let result;
  let events;
  try {
    events = hg.trace(() => { result = fn(); });
  } finally {
    console.warn = orig;
  }
  const trace = events.filter((e) => e.type === 'warning').map((e) => e.message);
  return { result, trace, console: consoleCalls, events, shownBefore };
}

/**
 * Assert the warnings match the fixture's list: trace events exactly; each
 * one on console.warn unless this process showed that text before.
 */
export function assertWarnings(captured, expectedList, msg = 'warnings') {
  const expected = expectedList.map((w) => stripTriggered(w.message));
  assert.deepEqual(captured.trace, expected, `${msg}: trace warning events`);
  for (const m of expected) {
    assert.ok(captured.console.some((c) => c.includes(m)) || [...captured.shownBefore].some((c) => c.includes(m)),
      `${msg}: console.warn should have been called with: ${m}\n got: ${JSON.stringify(captured.console)}`);
  }
  if (expected.length === 0) assert.deepEqual(captured.console, [], `${msg}: no console.warn expected`);
}

/** Silence console.warn while running fn (for tests that do not check warnings). */
export function quiet(fn) {
  const orig = console.warn;
  console.warn = (...args) => { SHOWN_WARNINGS.add(args.map(String).join(' ')); };
  try {
    return fn();
  } finally {
    console.warn = orig;
  }
}

/**
 * The program of the fixture hook_kinds_order (gen: pyfixtures/tensor_hooks.py):
 * c = a·b with hooks of every kind registered in the fixture's mixed order,
 * e = c·2, and the trace of e.backward(). Returns its tensors, nodes and events.
 */
export function hookKindsOrderRun() {
  const a = leaf(2); const b = leaf(3);
  const c = a.mul(b);
  const fn = c.gradFn;
  fn.registerHook(() => {});
  fn.registerPrehook(() => {});
  c.registerHook((g) => g.add(1));
  c.retainGrad();
  c.registerHook((g) => g.mul(2));
  fn.registerPrehook(() => {});
  const accA = fn.nextFunctions[0][0];
  accA.registerHook(() => {});
  accA.registerPrehook(() => {});
  a.registerPostAccumulateGradHook(() => {});
  a.registerHook((g) => g.add(1000));
  const e = c.mul(2);
  const events = hg.trace(() => e.backward());
  return { a, b, c, fn, accA, e, events };
}
