// hookgrad's JS entry: the engine's public API over the wasm-bindgen output
// (hookgrad_core.js, flat functions over handle ids). The classes are this
// package's own (hookgrad_tensor.js, hookgrad_classes.js), each object an id into the
// engine's handle table; their lifetime (hg.tidy, hg.keep, dispose) is
// hookgrad_handles.js's.
import coreInit, * as core from './hookgrad_core.js';
import { __decodeTape } from './records.js';
import { Tensor, tensorFrom, link } from './hookgrad_tensor.js';
import { Node, Module, RemovableHandle, nodeFrom, nodeOrNull, moduleFrom, handleFrom, nn } from './hookgrad_classes.js';

export { Tensor, Node, Module, RemovableHandle, nn, __decodeTape };
export { tidy, keep, dispose, setTensorHandlesManual } from './hookgrad_handles.js';
export {
  tensor, zeros, ones, randn, cat, stack, pow, grad, backward, noGrad, setGradEnabled, isGradEnabled,
  setSemantics, getSemantics, graph, trace, traceRun, recordLog, setWarningHandler, setHookHandlesOwn,
  registerModuleForwardPreHook, registerModuleForwardHook, registerModuleFullBackwardHook,
  registerModuleFullBackwardPreHook, savedTensorsHooks, pushSavedTensorsHooks, popSavedTensorsHooks,
  registerMultiGradHook, applyCustomFunction,
  // For the tests: turning the deferral of 0-d ops off, and the record decoder's seam.
  defer_scalar_ops as __deferScalarOps, __setTapeDecoder,
} from './hookgrad_core.js';

link(nodeOrNull, handleFrom);

// ----- custom autograd functions (torch.autograd.Function) --------------------

/**
 * `hg.customFunction(name, {forward, backward})`: PyTorch's custom autograd
 * Function. `apply(...args)` runs `forward(ctx, ...args)` with grad mode off,
 * then gives its Tensor output(s) one `<name>Backward` node, whose backward
 * calls `backward(ctx, ...gradOutputs)` (a Tensor, null, or an array with one
 * entry per argument of forward). `ctx`: `saveForBackward(...tensors)`,
 * `savedTensors` (in backward), `needsInputGrad`, `markNonDifferentiable(...)`,
 * `setMaterializeGrads(bool)`, and any property of your own.
 */
export function customFunction(name, { forward, backward }) {
  if (typeof forward !== 'function' || typeof backward !== 'function') {
    throw new TypeError('customFunction(name, {forward, backward}): forward and backward must be functions');
  }
  return {
    name,
    apply(...args) {
      const ctx = new FunctionCtx(args.map((a) => a instanceof Tensor && a.requiresGrad));
      const out = core.noGrad(() => forward(ctx, ...args));
      const many = Array.isArray(out);
      const opts = { saved: ctx.toSave, nonDifferentiable: ctx.nonDifferentiable, materializeGrads: ctx.materializeGrads };
      // Kept, these would hold the outputs from the ctx, which the node owns:
      // a cycle through the engine's handle table no collector can see.
      delete ctx.toSave;
      delete ctx.nonDifferentiable;
      const outs = core.applyCustomFunction(name, args, many ? out : [out], backwardOf(ctx, backward), opts);
      return many ? outs : outs[0];
    },
  };
}

/** The engine's callback: it captures only ctx and the user's backward. */
function backwardOf(ctx, backward) {
  return (grads, saved) => {
    ctx.savedTensors = saved;
    try {
      return backward(ctx, ...grads);
    } finally {
      delete ctx.savedTensors; // an unpacked output holds the node
    }
  };
}

class FunctionCtx {
  constructor(needsInputGrad) {
    this.needsInputGrad = needsInputGrad;
    this.toSave = [];
    this.nonDifferentiable = [];
    this.materializeGrads = true;
  }
  saveForBackward(...ts) { this.toSave = ts; }
  markNonDifferentiable(...ts) { this.nonDifferentiable = ts; }
  setMaterializeGrads(v) { this.materializeGrads = !!v; }
}

// ----- initialisation ---------------------------------------------------------

/** `await init()` (browser) — as wasm-bindgen's, then connects the engine to this facade. */
export default async function init(...args) {
  const wasm = await coreInit(...args);
  connect();
  return wasm;
}

/** `hg.initSync({module})` (Node) — as wasm-bindgen's, then connects the engine to this facade. */
export function initSync(...args) {
  const wasm = core.initSync(...args);
  connect();
  return wasm;
}

/** Hands the instance what it calls back into: the record decoder and `facade`. */
function connect() {
  core.__setTapeDecoder(__decodeTape);
  core.connect(facade);
}

/**
 * `hg.memory()`: `{tensors, nodes, handles, wasmBytes}` — live tensors, live
 * graph nodes, live JS handles (Tensor and Node objects not yet released or
 * collected) and the wasm linear memory in bytes.
 */
export function memory() {
  return core.memory_counts();
}

// ----- what the engine calls back (crate/wasm/src/facade.rs) --------------------
//
// New handle objects, and the hook trampoline: each call method catches for
// itself and answers with a number, so a call costs no wasm-bindgen
// `handleError`/`apply` wrapper, and a tensor hook's gradient crosses as a
// table id. Answers: 0 — returned undefined or null; -2 — threw (the
// exception is kept for take()); for callTensorHook and callKeyHook, a live Tensor's id
// (> 0); otherwise -1 (call: 1) — returned something else, kept for take().

let kept_ = undefined;
// The host's key-hook dispatcher (crate/wasm/src/key_hook.rs): `call(key,
// id) -> number` and `name(index) -> string`; set by __setKeyHooks.
let keyCall_ = null;
let keyName_ = null;
const facade = {
  tensor: tensorFrom,
  node: nodeFrom,
  module: moduleFrom,
  handle: handleFrom,
  callTensorHook(f, id) {
    try {
      const r = f(tensorFrom(id));
      if (r === undefined || r === null) return 0;
      if (r instanceof Tensor && r.__hg > 0) return r.__hg;
      kept_ = r;
      return -1;
    } catch (e) {
      kept_ = e;
      return -2;
    }
  },
  call(f, a, b, c, n) {
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
  callKeyHook(key, id) {
    try {
      return keyCall_(key, id);
    } catch (e) {
      kept_ = e;
      return -2;
    }
  },
  keyHookName: (i) => (keyName_ === null ? '' : String(keyName_(i))),
  take() {
    const v = kept_;
    kept_ = undefined;
    return v;
  },
};

// ----- hooks a host names by number (the Python mode: crate/js/python-helpers.js) ----

/**
 * Sets the one dispatcher of the host's key hooks: the engine calls
 * `call(key, gradientId)` (numbers only) and reads back the id of the live
 * Tensor the hook returned, or 0 for none (a throw is the hook's error).
 */
export function __setKeyHooks(call, name) {
  keyCall_ = call;
  keyName_ = name;
}

/** `t.registerHook` for the host's hook `key`: the handle as a number (slot · 2^32 + id). */
export function __registerKeyHook(t, key, nameIndex) {
  const n = core.tensor_register_key_hook(t.__hg, key, nameIndex);
  if (n === 0) throw core.take_error();
  return n;
}

/** A key no hook holds any more (its callable can go), or 0. */
export const __takeDeadHookKey = () => core.take_dead_hook_key();
/** A Tensor owning table entry `id` (a key hook's gradient, when the host needs its object). */
export const __tensorFromId = tensorFrom;
/** The RemovableHandle of a handle number. */
export const __handleFrom = handleFrom;

// `using` (Symbol.dispose) disposes; a RemovableHandle owns nothing to release.
if (typeof Symbol.dispose === 'symbol') {
  for (const cls of [Tensor, Node, Module]) cls.prototype[Symbol.dispose] = cls.prototype.dispose;
  RemovableHandle.prototype[Symbol.dispose] = function dispose() {};
}
