// Handle lifetime: who frees the table entry a JS Tensor, Node or Module
// names (crate/wasm/src/table.rs). Each such object holds one entry, its id
// in `__hg` (0 once released). Objects made inside hg.tidy belong to that
// scope, which frees them in one call at its end; the others are freed by
// the garbage collector, or by dispose(). Releasing a handle never affects
// another handle of the same tensor. A RemovableHandle owns no entry of its
// own (its hook does), so nothing here tracks it.
import * as core from './hookgrad_core.js';

/** The error a released handle's use throws. */
export const released = (what) => `this ${what} handle was released (hg.tidy or dispose()); keep it with hg.keep() or return it from tidy`;

/** Throws for `h`, whose id is not a live one (0: released; else not a handle of `what`). */
export function unusable(h, what) {
  if (h !== null && typeof h === 'object' && h.__hg === 0) throw new Error(released(what));
  throw new TypeError(`expected a ${what} handle, got ${h === null ? 'null' : typeof h}`);
}

// ----- the garbage collector's share ---------------------------------------------
//
// One FinalizationRegistry for every kind: V8 runs the callbacks of one
// registry per task, and Node runs about one such task per event-loop turn;
// with a registry per kind, a program that yields briefly had its node and
// module handles freed thousands of iterations late.
let gcOwned = 0;
const collector = new FinalizationRegistry((id) => {
  gcOwned--;
  core.release_handle(id);
});

// A synchronous loop without hg.tidy never lets the collector's callbacks
// run: every handle it makes stays, the wasm heap grows and each step gets
// slower. Past this many collector-owned handles the facade says so, once
// (TF.js users know the pattern: tf.tidy).
const PILE_UP = 100_000;
let warned = false;
function warnPileUp() {
  warned = true;
  console.warn(
    `hookgrad: ${gcOwned} tensor handles are waiting for the garbage collector. A loop that never yields ` +
      'keeps every handle it makes; wrap each step in hg.tidy(() => { ... }) (return or hg.keep() what must ' +
      'survive), or dispose() handles yourself.',
  );
}

function gcOwn(h, id) {
  collector.register(h, id, h);
  if (++gcOwned > PILE_UP && !warned) warnPileUp();
}

function gcDisown(h) {
  if (!collector.unregister(h)) return false;
  gcOwned--;
  return true;
}

// ----- scopes ---------------------------------------------------------------------

let scope = null; // the innermost tidy's list of handles, or null
const scopes = [];
const kept = new WeakSet();
let keepCalls = 0;
let manualTensors = false;

/**
 * A new handle `h` (entry `id`) is owned: by the innermost tidy, else by
 * the collector — a tensor handle by nobody while setTensorHandlesManual
 * is on (its host disposes it).
 */
export function own(h, id, isTensor) {
  if (scope !== null) scope.push(h);
  else if (!(isTensor && manualTensors)) gcOwn(h, id);
}

/** `hg.setTensorHandlesManual(on)` → the previous setting (the Python mode's: CPython frees each handle). */
export function setTensorHandlesManual(on) {
  const previous = manualTensors;
  manualTensors = !!on;
  return previous;
}

/** Runs `f` outside any tidy scope: what it makes is the caller's, like `new hg.Module`. */
export function unscoped(f) {
  const saved = scope;
  scope = null;
  try {
    return f();
  } finally {
    scope = saved;
  }
}

const isHandle = (x) => x !== null && typeof x === 'object' && typeof x.__hg === 'number' && typeof x.dispose === 'function';

/** Frees one handle now (idempotent). `owned`: by a scope, not the collector. */
function release(h, owned) {
  const id = h.__hg;
  if (id === 0) return;
  h.__hg = 0;
  if (!owned) gcDisown(h);
  core.release_handle(id);
}

/** `h.dispose()` of every handle class. */
export function disposeHandle(h) {
  release(h, false);
}

/** Calls `f` on every handle in a Tensor / Node / Module, array or plain object tree. */
function eachHandle(x, f, seen = new Set()) {
  if (x === null || typeof x !== 'object' || seen.has(x)) return;
  if (isHandle(x)) {
    f(x);
    return;
  }
  seen.add(x);
  if (Array.isArray(x)) {
    for (const v of x) eachHandle(v, f, seen);
    return;
  }
  const proto = Object.getPrototypeOf(x);
  if (proto === Object.prototype || proto === null) for (const v of Object.values(x)) eachHandle(v, f, seen);
}

/**
 * `hg.tidy(fn)`: runs `fn` and releases every Tensor and Node handle created
 * inside it (by ops, backward, or handed to hooks — module handles handed to
 * hooks too; `new hg.Module` is the caller's), except what `fn` returns
 * (a handle, or arrays / plain objects of them) and what `hg.keep()` marked.
 * Nestable; like TF.js's `tf.tidy`. The tensors themselves live on while
 * anything else needs them (a leaf's `.grad`, a graph, another handle).
 */
export function tidy(fn) {
  if (typeof fn !== 'function') {
    throw new TypeError(`tidy(fn): fn must be a function, not ${fn === null ? 'null' : typeof fn}`);
  }
  const mine = [];
  scopes.push(mine);
  scope = mine;
  const keeps = keepCalls;
  let result;
  let ok = false;
  try {
    result = fn();
    ok = true;
  } finally {
    scopes.pop();
    scope = scopes.length ? scopes[scopes.length - 1] : null;
    // Every handle in `mine` was made during fn, so a keep() of one of them
    // moved keepCalls; the WeakSet and the survivor Set are only consulted
    // when they can answer yes (a training step's scope holds ~10^4 handles).
    const anyKept = keepCalls !== keeps;
    let survivors = ok && result !== null && typeof result === 'object' ? new Set() : null;
    if (survivors) eachHandle(result, (h) => survivors.add(h));
    if (survivors !== null && survivors.size === 0) survivors = null;
    const freed = new Uint32Array(mine.length);
    let n = 0;
    for (let i = 0; i < mine.length; i++) {
      const h = mine[i];
      const id = h.__hg;
      if (id === 0) continue;
      if (anyKept && kept.has(h)) gcOwn(h, id);
      else if (survivors !== null && survivors.has(h)) {
        if (scope !== null) scope.push(h);
        else gcOwn(h, id);
      } else {
        h.__hg = 0;
        freed[n++] = id;
      }
    }
    if (n !== 0) core.release_handles(freed.subarray(0, n));
  }
  if (result !== null && typeof result === 'object' && typeof result.then === 'function') {
    throw new Error('tidy(fn): fn must not be async (it returned a Promise); its handles were released');
  }
  return result;
}

/** `hg.keep(t)`: exempts a handle from every enclosing `tidy`; returns `t`. */
export function keep(t) {
  if (!isHandle(t)) throw new TypeError(`keep(t): t must be a Tensor, Node or Module, not ${t === null ? 'null' : typeof t}`);
  if (t.__hg === 0) throw new Error(released(t.constructor.name.toLowerCase()));
  kept.add(t);
  keepCalls++;
  return t;
}

/** `hg.dispose(x)`: releases the handles in a Tensor, Node, array or plain object now. */
export function dispose(x) {
  eachHandle(x, (h) => release(h, false));
}
