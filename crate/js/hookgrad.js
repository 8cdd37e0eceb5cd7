// hookgrad's JS entry: the wasm-bindgen output (hookgrad_core.js) plus the
// few conveniences wasm-bindgen cannot export directly.
import init, * as core from './hookgrad_core.js';

export * from './hookgrad_core.js';
export default init;

const { Module, Tensor } = core;

// Memory is managed by the garbage collector (wasm-bindgen weak refs), and a
// tensor is shared by every wrapper that shows it: an explicit free() could
// only break other wrappers (use after free, double free, freeing a module
// while its forward runs). So free() is a harmless no-op here.
for (const cls of [core.Tensor, core.Node, core.Module, core.RemovableHandle]) {
  cls.prototype.free = function free() {};
  if (typeof Symbol.dispose === 'symbol') cls.prototype[Symbol.dispose] = function dispose() {};
}

/** `m.call(a, b, c)`: run the module with hooks, like PyTorch's `__call__`. */
Module.prototype.call = function call(...args) {
  return this.callArgs(args);
};

// `a.add(2)` / `a.add(b)`: dispatch numbers and Tensors to typed exports,
// which skip the generic conversion of an unknown JS value (the common case
// in scalar-heavy code); anything else takes the generic path and its
// PyTorch-style TypeError.
for (const op of ['add', 'sub', 'mul', 'div']) {
  const generic = Tensor.prototype[op];
  const scalar = Tensor.prototype[`__${op}Scalar`];
  const tensor = Tensor.prototype[`__${op}Tensor`];
  Tensor.prototype[op] = function (other) {
    if (typeof other === 'number') return scalar.call(this, other);
    if (other instanceof Tensor && other.__wbg_ptr) return tensor.call(this, other);
    return generic.call(this, other);
  };
}

/** `new hg.nn.Linear(inFeatures, outFeatures, {bias?, seed?})`. */
class Linear {
  constructor(inFeatures, outFeatures, opts) {
    // Returning an object from a constructor makes `new` yield it: a Module.
    return core.__linear(inFeatures, outFeatures, opts);
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

/** `hg.nn.functional`: PyTorch's `torch.nn.functional` losses. */
const functional = Object.freeze({
  /** `mseLoss(input, target, {reduction: 'mean' | 'sum' | 'none'})`. */
  mseLoss: (input, target, opts) => core.__mseLoss(input, target, opts),
  /** `crossEntropy(logits, targets)`: targets are class indices. */
  crossEntropy: (logits, targets) => core.__crossEntropy(logits, targets),
});

export const nn = Object.freeze({ Linear, Sequential, ReLU, Tanh, Sigmoid, functional });
