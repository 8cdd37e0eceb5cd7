// The JS Node, Module and RemovableHandle classes and hg.nn: like Tensor
// (hookgrad_tensor.js), each object holds an id into the engine's handle table
// (crate/wasm/src/table.rs) and each method calls the flat export that
// takes it (crate/wasm/src/node.rs, module.rs, js_hook.rs).
import * as core from './hookgrad_core.js';
import { own, unusable, unscoped, disposeHandle } from './hookgrad_handles.js';
import { MAKE, tensorFrom } from './hookgrad_tensor.js';

function nid(n) {
  const id = n.__hg;
  if (id > 0) return id;
  return unusable(n, 'node');
}

function mid(m) {
  const id = m.__hg;
  if (id > 0) return id;
  return unusable(m, 'module');
}

/** A backward node (`t.gradFn`). */
export class Node {
  /** Not for user code (`private constructor` in hookgrad.d.ts). */
  constructor(key, id) {
    if (key !== MAKE) throw new TypeError('Node has no public constructor: read t.gradFn');
    this.__hg = id;
  }

  // How the engine recognises a Node argument: its id, 0 once released.
  get __hgNode() { return this.__hg; }

  get name() { return core.node_name(nid(this)); }
  get id() { return core.node_id(nid(this)); }
  /** `[[Node or null, inputNr], ...]`. */
  get nextFunctions() { return core.node_next_functions(nid(this)); }
  /** The leaf of an `AccumulateGrad` node, else null. */
  get variable() { return core.node_variable(nid(this)); }
  registerPrehook(hook) { return core.node_register_prehook(nid(this), hook); }
  registerHook(hook) { return core.node_register_hook(nid(this), hook); }
  toString() { return core.node_to_string(nid(this)); }
  /** Releases this handle now (the node lives on while its graph needs it). */
  dispose() { disposeHandle(this); }
  free() {}
}

export function nodeFrom(id) {
  const n = new Node(MAKE, id);
  own(n, id, false);
  return n;
}

export const nodeOrNull = (id) => (id === 0 ? null : nodeFrom(id));

/**
 * `new hg.Module(name, forward)`: a module whose forward is a JS function.
 * A module made with `new` is its caller's (never a tidy's); the module
 * handles the engine hands to hooks belong to the current scope.
 */
export class Module {
  constructor(name, forward, id) {
    if (name !== MAKE) {
      id = core.module_new(name, forward);
    }
    this.__hg = id;
    if (name === MAKE) own(this, id, false);
    else unscoped(() => own(this, id, false));
  }

  // How the engine recognises a Module argument: its id, 0 once released.
  get __hgModule() { return this.__hg; }

  get name() { return core.module_name(mid(this)); }
  get id() { return core.module_id(mid(this)); }
  /** `m.call(a, b, c)`: run the module with hooks, like PyTorch's `__call__`. */
  call(...args) { return core.module_call_args(mid(this), args); }
  callArgs(args) { return core.module_call_args(mid(this), args); }
  /** `module(*args, **kwargs)`: forward(...args, kwargs); hooks see args. */
  callWithKwargs(args, kwargs) { return core.module_call_with_kwargs(mid(this), args, kwargs); }
  registerForwardPreHook(hook, opts) { return core.module_register_forward_pre_hook(mid(this), hook, opts); }
  registerForwardHook(hook, opts) { return core.module_register_forward_hook(mid(this), hook, opts); }
  registerBackwardHook(hook) { return core.module_register_backward_hook(mid(this), hook); }
  registerFullBackwardHook(hook, opts) { return core.module_register_full_backward_hook(mid(this), hook, opts); }
  registerFullBackwardPreHook(hook, opts) { return core.module_register_full_backward_pre_hook(mid(this), hook, opts); }
  registerParameter(name, tensor) { core.module_register_parameter(mid(this), name, tensor); }
  getParameter(name) { return tensorFrom(core.module_get_parameter(mid(this), name)); }
  parameters() { return core.module_parameters(mid(this)); }
  namedParameters() { return core.module_named_parameters(mid(this)); }
  addModule(name, child) { core.module_add_module(mid(this), name, child); }
  namedModules() { return core.module_named_modules(mid(this)); }
  zeroGrad() { core.module_zero_grad(mid(this)); }
  /**
   * Releases this module handle. A module whose forward or hooks reach it
   * (directly, or through a scope shared with a closure that does) forms a
   * cycle through wasm memory the garbage collector cannot see: dispose its
   * handles (hg.tidy does so for module handles it hands out).
   */
  dispose() { disposeHandle(this); }
  free() {}
}

/** A Module object for table entry `id` the engine made (hook arguments, namedModules). */
export function moduleFrom(id) {
  return new Module(MAKE, undefined, id);
}


/**
 * Returned by every `register*`: `remove()` unregisters the hook
 * (idempotent). It holds the table slot of its hook's handle and the
 * handle's id, given as `slot · 2^32 + id`; the slot is the hook's, freed
 * when the hook goes (a slot reused since no longer matches the id), so
 * the object owns nothing that hg.tidy or the collector would free.
 */
export class RemovableHandle {
  /** Not for user code (`private constructor` in hookgrad.d.ts). */
  constructor(key, slotAndId) {
    if (key !== MAKE) throw new TypeError('RemovableHandle has no public constructor: a register*() call returns one');
    // Plain fields, not #private ones: W3 makes a handle per op, and a
    // private field's brand costs ~450 instructions per object (callgrind).
    this.__hgId = slotAndId >>> 0; // the low 32 bits (exact below 2^53)
    this.__hgSlot = (slotAndId - this.__hgId) / 4294967296;
  }

  get id() { return this.__hgId; }
  remove() { core.handle_remove(this.__hgSlot, this.__hgId); }
  free() {}
}

export const handleFrom = (slotAndId) => new RemovableHandle(MAKE, slotAndId);

// ----- hg.nn ------------------------------------------------------------------

/** `new hg.nn.Linear(inFeatures, outFeatures, {bias?, seed?})`. */
class Linear {
  constructor(inFeatures, outFeatures, opts) {
    // Returning an object from a constructor makes `new` yield it: a Module.
    return unscoped(() => moduleFrom(core.nn_linear(inFeatures, outFeatures, opts)));
  }
}

/**
 * `new hg.nn.Sequential(m0, m1, ...)`: children named '0', '1', ...; its
 * forward calls each child like PyTorch's `module(input)`, hooks included.
 */
class Sequential {
  constructor(...modules) {
    const seq = moduleFrom(core.nn_sequential());
    modules.forEach((m, i) => {
      if (!(m instanceof Module)) {
        throw new TypeError(`Sequential(): argument ${i} is not a Module (got ${m === null ? 'null' : typeof m})`);
      }
      seq.addModule(String(i), m);
    });
    return seq;
  }
}

/** `new hg.nn.ReLU({inplace?})`, `Tanh()`, `Sigmoid()`: modules whose forward is the op. */
class ReLU { constructor(opts) { return moduleFrom(core.nn_activation('ReLU', !!opts?.inplace)); } }
class Tanh { constructor() { return moduleFrom(core.nn_activation('Tanh', false)); } }
class Sigmoid { constructor() { return moduleFrom(core.nn_activation('Sigmoid', false)); } }

/** `hg.nn.functional`: PyTorch's `torch.nn.functional` losses and `linear`. */
const functional = Object.freeze({
  /** `mseLoss(input, target, {reduction: 'mean' | 'sum' | 'none'})`. */
  mseLoss: (input, target, opts) => tensorFrom(core.functional_mse_loss(input, target, opts)),
  /** `crossEntropy(logits, targets, {reduction: 'mean' | 'sum' | 'none'})`: targets are class indices. */
  crossEntropy: (logits, targets, opts) => tensorFrom(core.functional_cross_entropy(logits, targets, opts)),
  /** `nllLoss(logProbs, targets, {reduction})`: PyTorch's `F.nll_loss` (crossEntropy after logSoftmax). */
  nllLoss: (logProbs, targets, opts) => tensorFrom(core.functional_nll_loss(logProbs, targets, opts)),
  /** `linear(input, weight, bias?)`: the graph PyTorch's `F.linear` builds. */
  linear: (input, weight, bias) => tensorFrom(core.functional_linear(input, weight, bias)),
});

export const nn = Object.freeze({ Linear, Sequential, ReLU, Tanh, Sigmoid, functional });
