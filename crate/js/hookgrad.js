// hookgrad's JS entry: the wasm-bindgen output (hookgrad_core.js) plus what
// wasm-bindgen cannot export directly: handle lifetimes (hg.tidy, hg.keep,
// dispose), variadic Module.call, typed fast paths and hg.nn.
import coreInit, * as core from './hookgrad_core.js';
import { __decodeTape } from './records.js';

export * from './hookgrad_core.js';
export { __decodeTape };

const { Module, Tensor, Node } = core;

// ----- initialisation: keep the wasm exports (handles are freed through them)

let wasm = null;

/** `await init()` (browser) — as wasm-bindgen's, also keeps the exports. */
export default async function init(...args) {
  wasm = await coreInit(...args);
  connect();
  return wasm;
}

/** `hg.initSync({module})` (Node) — as wasm-bindgen's, also keeps the exports. */
export function initSync(...args) {
  wasm = core.initSync(...args);
  connect();
  return wasm;
}

/** Hands the instance what it calls back into: the record decoder and the hook trampoline. */
function connect() {
  core.__setTapeDecoder(__decodeTape);
  core.__setHookTrampoline(hookCalls);
  bindRaw();
}

// ----- hook calls ---------------------------------------------------------------
//
// The engine calls every JS hook through this object (crate/wasm/src/hooks.rs,
// `Trampoline`): each method catches for itself and answers with a number,
// so a call costs no wasm-bindgen `handleError`/`apply` wrapper, and a tensor
// hook's gradient crosses as a pointer wrapped here. Answers: 0 — returned
// undefined or null; -2 — threw (the exception is kept for take()); for
// tensor(), a live Tensor's code (> 0, crate/wasm/src/handle_code.rs);
// otherwise -1 (apply: 1) — returned something else, kept for take().

let kept_ = undefined;
const hookCalls = {
  tensor(f, ptr) {
    try {
      const r = f(Tensor.__wrap(ptr));
      if (r === undefined || r === null) return 0;
      if (r instanceof Tensor && r.__wbg_ptr) return r.__wbg_ptr >>> 0;
      kept_ = r;
      return -1;
    } catch (e) {
      kept_ = e;
      return -2;
    }
  },
  apply(f, a, b, c, n) {
    try {
      const r = n === 1 ? f(a) : n === 2 ? f(a, b) : n === 3 ? f(a, b, c) : n === 0 ? f() : f(...a);
      if (r === undefined || r === null) return 0;
      kept_ = r;
      return 1;
    } catch (e) {
      kept_ = e;
      return -2;
    }
  },
  take() {
    const v = kept_;
    kept_ = undefined;
    return v;
  },
};

// ----- handles ------------------------------------------------------------------
//
// A Tensor (or Node) object is one handle: it owns one reference to the core
// tensor, freed when the handle is released. Handles made inside hg.tidy
// belong to that scope (no FinalizationRegistry entry: the scope frees them);
// the others are freed by the garbage collector. Releasing a handle never
// affects another handle of the same tensor.
//
// A Tensor's `__wbg_ptr` is its code (crate/wasm/src/handle_code.rs): even,
// the pointer of a wasm-bindgen box; odd, a deferred scalar op's row that
// the handle holds without a box (what the typed ops below make); 0,
// released. Before any wasm-bindgen method runs, `boxed()` gives a row
// handle its box.

const released = (what) => `this ${what} handle was released (hg.tidy or dispose()); keep it with hg.keep() or return it from tidy`;
const RELEASED = { tensor: released('tensor'), node: released('node'), module: released('module') };

// One FinalizationRegistry for every kind of handle the GC owns. V8 runs
// the callbacks of one registry per task, and Node runs about one such task
// per event-loop turn: with a registry per kind, a program that yields
// briefly (a few setImmediate turns) had its node and module handles freed
// thousands of iterations late — the wasm heap grew with the backlog. The
// held value is the handle's code times 4 plus its kind (exact in a double).
const KIND = { tensor: 0, node: 1, module: 2, handle: 3 };
/** Frees a handle's wasm side by kind; `gc`: 1 from the collector's callback, 0 now (wasm-bindgen's second argument). */
const FREE = [
  (p) => wasm.__dropHandle(p),
  (p, gc) => wasm.__wbg_node_free(p, gc),
  (p, gc) => wasm.__wbg_module_free(p, gc),
  (p, gc) => wasm.__wbg_removablehandle_free(p, gc),
];
const collector = new FinalizationRegistry((held) => {
  const kind = held % 4;
  FREE[kind]((held - kind) / 4, 1);
});
/** Hands handle `h` (code `ptr`) to the garbage collector. */
const gcOwn = (h, kind, ptr) => collector.register(h, ptr * 4 + KIND[kind], h);
/** Takes it back (true if the collector owned it). */
const gcDisown = (h) => collector.unregister(h);
const kindOf = (h) => (h instanceof Tensor ? 'tensor' : h instanceof Node ? 'node' : 'module');
// wasm-bindgen's free(): also leaves wasm-bindgen's own registry (a no-op
// for the handles the facade's `collector` owns, i.e. all of them).
const rawFree = Module.prototype.free;

/**
 * `new hg.Module(name, forward)`, exported in place of wasm-bindgen's class
 * (same prototype, so `instanceof` and every method are unchanged): its
 * constructor registers the handle with wasm-bindgen's own registry, and a
 * second registry is a second task before a finished module is freed (see
 * `collector`). The handle moves to the facade's. A subclass (`class Net
 * extends hg.Module`) gets its own prototype.
 */
function NewModule(name, forward) {
  if (new.target === undefined) throw new TypeError("Class constructor Module cannot be invoked without 'new'");
  const m = new Module(name, forward);
  const ptr = m.__destroy_into_raw(); // out of wasm-bindgen's registry
  m.__wbg_ptr = ptr;
  gcOwn(m, 'module', ptr);
  if (new.target !== NewModule) Object.setPrototypeOf(m, new.target.prototype);
  return m;
}
NewModule.prototype = Module.prototype;
Object.defineProperty(NewModule, 'name', { value: 'Module' });
Object.defineProperty(Module.prototype, 'constructor', { value: NewModule, writable: true, configurable: true });
export { NewModule as Module };

/** Scope stack of hg.tidy: the innermost scope's handles, or null. */
let scope = null;
const scopes = [];
/** Handles hg.keep() exempted from every enclosing tidy. */
const kept = new WeakSet();
/** Calls of hg.keep() so far (lets tidy skip the WeakSet when none happened). */
let keepCalls = 0;

// RemovableHandle: `{id, remove()}`. Inside a tidy it is scope-owned; at
// the end it is freed only if everything it removes from is gone (then
// remove() could only be a no-op, and stays one); otherwise the GC owns it.
const { RemovableHandle } = core;
RemovableHandle.__wrap = function wrap(ptr) {
  const h = Object.create(RemovableHandle.prototype);
  h.__wbg_ptr = ptr;
  if (scope !== null) scope.push(h);
  else gcOwn(h, 'handle', ptr);
  return h;
};
{
  const proto = RemovableHandle.prototype;
  const idGet = Object.getOwnPropertyDescriptor(proto, 'id').get;
  const remove = proto.remove;
  Object.defineProperty(proto, 'id', {
    configurable: true,
    get() { return this.__wbg_ptr === 0 ? this.__hgId : idGet.call(this); },
  });
  proto.remove = function remove_() {
    if (this.__wbg_ptr !== 0) remove.call(this);
    else if (this.__hgById) core.__removeHook(this.__hgSlot, this.__hgId);
  };
}
/**
 * The RemovableHandle `t.registerHook(fn)` returns: a plain object holding
 * the id and the slot where the core keeps the handle (crate/wasm/src/hooks.rs,
 * given as `slot · 2^32 + id`), so it owns no wasm memory and neither
 * hg.tidy nor the GC has anything to free.
 */
function ByIdHandle(slotAndId) {
  const id = slotAndId >>> 0;
  this.__wbg_ptr = 0;
  this.__hgId = id;
  this.__hgSlot = (slotAndId - id) / 4294967296;
  this.__hgById = true;
}
ByIdHandle.prototype = RemovableHandle.prototype;
/**
 * End of the outermost tidy for the RemovableHandles it owned, in one call:
 * a handle whose hook lists are all gone is freed (its remove() could only
 * be a no-op; it keeps its id), the others go to the garbage collector.
 */
function settleHandles(hs) {
  const ptrs = new Uint32Array(hs.length);
  for (let k = 0; k < hs.length; k++) ptrs[k] = hs[k].__wbg_ptr;
  const ids = core.__settleHandles(ptrs); // 0 while live (ids start at 1)
  for (let k = 0; k < hs.length; k++) {
    const h = hs[k];
    if (ids[k] === 0) gcOwn(h, 'handle', h.__wbg_ptr);
    else {
      h.__hgId = ids[k];
      h.__wbg_ptr = 0;
    }
  }
}

// The typed arithmetic exports, called raw (the wasm functions themselves,
// bound in connect()): `__opNumber(kind, a, v)` and `__opTensor(kind, a, b)`
// take handle codes and answer the new handle's code, or 0 with its error
// kept for core.__takeError() (crate/wasm/src/handle_code.rs). `kind` is
// the index in OPS, then UNARY's from 4, then POW. The dispatchers below
// check the handles themselves.
const OPS = ['add', 'sub', 'mul', 'div'];
const UNARY = ['tanh', 'neg', 'exp', 'log', 'sigmoid', 'relu'];
const POW = 10;
const UNARY_MORE = ['sin', 'cos', 'abs', 'sqrt']; // kinds 11.. (after POW)
const raw = { number: null, tensor: null, boxRow: null };
function bindRaw() {
  raw.number = wasm.__opNumber;
  raw.tensor = wasm.__opTensor;
  raw.boxRow = wasm.__boxRow;
}
/** A raw typed export's answer as a handle (or its error, thrown). */
function made(code) {
  if (code === 0) throw core.__takeError();
  return Tensor.__wrap(code);
}
/**
 * A live handle's box pointer: a row handle (odd code) gets its box now,
 * which takes over its hold on the row (for the garbage collector's
 * callback too). Generated methods take only box pointers.
 */
function boxed(h) {
  const code = h.__wbg_ptr;
  if ((code & 1) === 0) return code;
  const ptr = raw.boxRow(code);
  h.__wbg_ptr = ptr;
  if (gcDisown(h)) gcOwn(h, 'tensor', ptr);
  return ptr;
}
const rawRegisterHookId = Tensor.prototype.__registerHookId;

/**
 * `hg.setTensorHandlesManual(on)` → the previous setting. While on, a tensor
 * handle made outside hg.tidy is its caller's to dispose(): the garbage
 * collector does not track it (registering and unregistering it cost more
 * than the op). For a host that frees every handle itself — the Python mode,
 * where CPython's reference counting disposes each one.
 */
let manualTensors = false;
export function setTensorHandlesManual(on) {
  const previous = manualTensors;
  manualTensors = !!on;
  return previous;
}

for (const [cls, kind] of [[Tensor, 'tensor'], [Node, 'node'], [Module, 'module']]) {
  // wasm-bindgen makes every returned handle with `Class.__wrap(ptr)`.
  const manual = kind === 'tensor';
  cls.__wrap = function wrap(ptr) {
    const h = Object.create(cls.prototype);
    h.__wbg_ptr = ptr;
    if (scope !== null) scope.push(h);
    else if (!(manual && manualTensors)) gcOwn(h, kind, ptr);
    return h;
  };
  guardPrototype(cls, RELEASED[kind]);
}

/**
 * Every method and accessor of `cls` throws `message` on a released handle,
 * and runs on a box (`boxed`): one test of the code on the common path.
 */
function guardPrototype(cls, message) {
  const unusable = (h) => {
    if (h.__wbg_ptr === 0) throw new Error(message);
    boxed(h);
  };
  const guard = (f) => {
    switch (f.length) {
      case 0: return function () { if (this.__wbg_ptr === 0 || this.__wbg_ptr & 1) unusable(this); return f.call(this); };
      case 1: return function (a) { if (this.__wbg_ptr === 0 || this.__wbg_ptr & 1) unusable(this); return f.call(this, a); };
      case 2: return function (a, b) { if (this.__wbg_ptr === 0 || this.__wbg_ptr & 1) unusable(this); return f.call(this, a, b); };
      default: return function (...args) { if (this.__wbg_ptr === 0 || this.__wbg_ptr & 1) unusable(this); return f.apply(this, args); };
    }
  };
  const proto = cls.prototype;
  for (const key of Object.getOwnPropertyNames(proto)) {
    if (key === 'constructor' || key === 'free' || key === '__destroy_into_raw') continue;
    const d = Object.getOwnPropertyDescriptor(proto, key);
    if (key === '__hgStash') {
      // How the binding recognises a Tensor argument: a released handle is
      // its error; an object that never had a handle is simply not a Tensor.
      const f = d.value;
      proto[key] = function __hgStash() {
        if (!this.__wbg_ptr) { if (this.__wbg_ptr === 0) unusable(this); return; }
        boxed(this);
        f.call(this);
      };
    } else if (typeof d.value === 'function') {
      const g = guard(d.value);
      Object.defineProperty(g, 'name', { value: key });
      proto[key] = g;
    } else if (d.get || d.set) {
      Object.defineProperty(proto, key, {
        configurable: true,
        enumerable: d.enumerable,
        get: d.get && guard(d.get),
        set: d.set && guard(d.set),
      });
    }
  }
}

// How the binding recognises a live Tensor argument in one property read
// (crate/wasm/src/convert.rs, live_tensor_fast): its code, 0 once released.
Object.defineProperty(Tensor.prototype, '__hgPtr', {
  configurable: true,
  get() { return this.__wbg_ptr; },
});

const isHandle = (x) => x instanceof Tensor || x instanceof Node || x instanceof Module;

/** Frees one handle now (idempotent). `owned`: by a scope, not the GC. */
function release(h, owned) {
  const ptr = h.__wbg_ptr;
  if (ptr === 0) return;
  const kind = kindOf(h);
  if (kind === 'module') {
    rawFree.call(h); // also leaves wasm-bindgen's registry
    if (!owned) gcDisown(h);
    return;
  }
  h.__wbg_ptr = 0;
  if (!owned) gcDisown(h);
  FREE[KIND[kind]](ptr, 0);
}

/** Calls `f` on every handle in a Tensor / Node, array or plain object tree. */
function eachHandle(x, f, seen = new Set()) {
  if (x === null || typeof x !== 'object' || seen.has(x)) return;
  if (isHandle(x)) { f(x); return; }
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
    // RemovableHandles last: once the scope's tensors are released, the
    // hook lists of a finished graph are usually gone, and their handles
    // can be freed now instead of through the FinalizationRegistry.
    const handles = [];
    const freed = []; // tensor handles' codes, released in one call
    for (let i = 0; i < mine.length; i++) {
      const h = mine[i];
      const ptr = h.__wbg_ptr;
      if (ptr === 0) continue;
      if (!anyKept && (survivors === null || !survivors.has(h)) && h instanceof Tensor) {
        h.__wbg_ptr = 0;
        freed.push(ptr);
        continue;
      }
      if (h instanceof RemovableHandle) {
        handles.push(h);
        continue;
      }
      if (anyKept && kept.has(h)) gcOwn(h, kindOf(h), h.__wbg_ptr);
      else if (survivors !== null && survivors.has(h)) {
        if (scope !== null) scope.push(h);
        else gcOwn(h, kindOf(h), h.__wbg_ptr);
      } else release(h, true);
    }
    if (freed.length !== 0) core.__freeTensors(new Uint32Array(freed));
    if (handles.length !== 0) {
      if (scope !== null) for (const h of handles) scope.push(h); // decided by the outermost tidy
      else settleHandles(handles);
    }
  }
  if (result !== null && typeof result === 'object' && typeof result.then === 'function') {
    throw new Error('tidy(fn): fn must not be async (it returned a Promise); its handles were released');
  }
  return result;
}

/** `hg.keep(t)`: exempts a handle from every enclosing `tidy`; returns `t`. */
export function keep(t) {
  if (!isHandle(t)) throw new TypeError(`keep(t): t must be a Tensor, Node or Module, not ${t === null ? 'null' : typeof t}`);
  if (t.__wbg_ptr === 0) throw new Error(RELEASED[kindOf(t)]);
  kept.add(t);
  keepCalls++;
  return t;
}

/** `hg.dispose(x)`: releases the handles in a Tensor, Node, array or plain object now. */
export function dispose(x) {
  eachHandle(x, (h) => release(h, false));
}

/** `t.dispose()`: releases this handle now; other handles of the tensor are unaffected. */
Tensor.prototype.dispose = function dispose() { release(this, false); };
Node.prototype.dispose = function dispose() { release(this, false); };
/**
 * `m.dispose()`: releases this module handle. A module whose forward or
 * hooks reach it (directly, or through a scope shared with a closure that
 * does) forms a cycle through wasm memory the garbage collector cannot see:
 * dispose its handles (hg.tidy does so for module handles it hands out).
 */
Module.prototype.dispose = function dispose() { release(this, false); };

// free() stays a harmless no-op (the contract: users never call free()); a
// handle is released with dispose(), and `using` (Symbol.dispose) disposes.
for (const cls of [Tensor, Node, Module, RemovableHandle]) {
  cls.prototype.free = function free() {};
  if (typeof Symbol.dispose === 'symbol') {
    cls.prototype[Symbol.dispose] = cls.prototype.dispose ?? function dispose() {};
  }
}

/**
 * `hg.memory()`: `{tensors, nodes, handles, wasmBytes}` — live tensors, live
 * graph nodes, live JS handles (Tensor and Node objects not yet released or
 * collected) and the wasm linear memory in bytes.
 */
export function memory() {
  return core.__memory();
}

// ----- conveniences -------------------------------------------------------------

/** `m.call(a, b, c)`: run the module with hooks, like PyTorch's `__call__`. */
Module.prototype.call = function call(...args) {
  return this.callArgs(args);
};

// `a.add(2)` / `a.add(b)`: dispatch numbers and Tensors to typed exports,
// which skip the generic conversion of an unknown JS value (the common case
// in scalar-heavy code); anything else (a released handle too) takes the
// generic path and its error.
OPS.forEach((op, kind) => {
  const generic = Tensor.prototype[op];
  const f = function (other) {
    const p = this.__wbg_ptr;
    if (p) {
      if (typeof other === 'number') return made(raw.number(kind, p, other));
      if (other instanceof Tensor && other.__wbg_ptr) return made(raw.tensor(kind, p, other.__wbg_ptr));
    }
    return generic.call(this, other);
  };
  Object.defineProperty(f, 'name', { value: op });
  Tensor.prototype[op] = f;
});
// `a.exp()` and the other unary ops, `a.pow(2)`: the same typed export
// (crate/wasm/src/handle_code.rs numbers them so).
const unaryKinds = [...UNARY.map((op, i) => [op, 4 + i]), ...UNARY_MORE.map((op, i) => [op, POW + 1 + i])];
for (const [op, kind] of unaryKinds) {
  const generic = Tensor.prototype[op];
  const f = function () {
    const p = this.__wbg_ptr;
    return p ? made(raw.number(kind, p, 0)) : generic.call(this);
  };
  Object.defineProperty(f, 'name', { value: op });
  Tensor.prototype[op] = f;
}
{
  const generic = Tensor.prototype.pow;
  Tensor.prototype.pow = function pow(exponent) {
    const p = this.__wbg_ptr;
    return p && typeof exponent === 'number' ? made(raw.number(POW, p, exponent)) : generic.call(this, exponent);
  };
}

// `t.registerHook(fn)`: a function on a live handle takes the by-id path
// (ByIdHandle); anything else, or what that path did not register (it
// answers 0 on an error), the generic one, with its errors.
{
  const generic = Tensor.prototype.registerHook;
  Tensor.prototype.registerHook = function registerHook(f) {
    if (this.__wbg_ptr !== 0 && typeof f === 'function') {
      boxed(this);
      const slotAndId = rawRegisterHookId.call(this, f);
      if (slotAndId !== 0) return new ByIdHandle(slotAndId);
    }
    return generic.call(this, f);
  };
}

/** Runs `f` outside any tidy scope: what it makes is the caller's, like `new hg.Module`. */
function unscoped(f) {
  const saved = scope;
  scope = null;
  try { return f(); } finally { scope = saved; }
}

/** `new hg.nn.Linear(inFeatures, outFeatures, {bias?, seed?})`. */
class Linear {
  constructor(inFeatures, outFeatures, opts) {
    // Returning an object from a constructor makes `new` yield it: a Module.
    return unscoped(() => core.__linear(inFeatures, outFeatures, opts));
  }
}

/**
 * `new hg.nn.Sequential(m0, m1, ...)`: children named '0', '1', ...; its
 * forward calls each child like PyTorch's `module(input)`, hooks included.
 */
class Sequential {
  constructor(...modules) {
    const seq = core.__sequential();
    modules.forEach((m, i) => {
      if (!(m instanceof Module)) {
        throw new TypeError(`Sequential(): argument ${i} is not a Module (got ${m === null ? 'null' : typeof m})`);
      }
      seq.addModule(String(i), m);
    });
    return seq;
  }
}

/** `new hg.nn.ReLU()`, `Tanh()`, `Sigmoid()`: modules whose forward is the op. */
class ReLU { constructor() { return core.__activation('ReLU'); } }
class Tanh { constructor() { return core.__activation('Tanh'); } }
class Sigmoid { constructor() { return core.__activation('Sigmoid'); } }

/** `hg.nn.functional`: PyTorch's `torch.nn.functional` losses and `linear`. */
const functional = Object.freeze({
  /** `mseLoss(input, target, {reduction: 'mean' | 'sum' | 'none'})`. */
  mseLoss: (input, target, opts) => core.__mseLoss(input, target, opts),
  /** `crossEntropy(logits, targets, {reduction: 'mean' | 'sum' | 'none'})`: targets are class indices. */
  crossEntropy: (logits, targets, opts) => core.__crossEntropy(logits, targets, opts),
  /** `linear(input, weight, bias?)`: the graph PyTorch's `F.linear` builds. */
  linear: (input, weight, bias) => core.__functionalLinear(input, weight, bias),
});

export const nn = Object.freeze({ Linear, Sequential, ReLU, Tanh, Sigmoid, functional });
