// hookgrad's JS entry: the wasm-bindgen output (hookgrad_core.js) plus the
// few conveniences wasm-bindgen cannot export directly.
import init, * as core from './hookgrad_core.js';

export * from './hookgrad_core.js';
export default init;

/** `m.call(a, b, c)`: run the module with hooks, like PyTorch's `__call__`. */
core.Module.prototype.call = function call(...args) {
  return this.callArgs(args);
};

/** `new hg.nn.Linear(inFeatures, outFeatures, {bias?, seed?})`. */
class Linear {
  constructor(inFeatures, outFeatures, opts) {
    // Returning an object from a constructor makes `new` yield it: a Module.
    return core.__linear(inFeatures, outFeatures, opts);
  }
}

export const nn = Object.freeze({ Linear });
