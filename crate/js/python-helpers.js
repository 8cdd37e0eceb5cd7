// The few engine helpers the Python shim calls (module `_hookgrad.helpers`),
// written in JS because they are one call here and several across the FFI:
// flattening values, building arrays and option objects, kinds of values.

const KIND = { tensor: 0, array: 1, object: 2, other: 3, node: 4 };

export function engineHelpers(hg) {
  const { Tensor, Node } = hg;
  const unwrap = (v) => (v && typeof v.toJs === 'function' ? v.toJs({ create_pyproxies: false }) : v);
  return {
    flat(t) {
      const a = t.toArray();
      return Array.isArray(a) ? a.flat(Infinity) : [a];
    },
    fromFlat(values, shape, requiresGrad) {
      const v = unwrap(values);
      return hg.tensor(Float32Array.from(v), { shape: Array.from(shape), requiresGrad });
    },
    setRequiresGrad(t, flag) { t.requiresGrad = flag; },
    getGrad(t) { return t.grad; },
    setGrad(t, g) { t.grad = g; },
    /** A JS function calling Python's `f`, named `name` (a proxy has no JS name). */
    named(f, name) {
      const g = (...a) => f(...a);
      Object.defineProperty(g, 'name', { value: name });
      return g;
    },
    same: (a, b) => a === b,
    array: (...xs) => xs,
    object: () => ({}),
    options: (k, v) => ({ [k]: v }),
    set(o, k, v) { o[k] = v; },
    get: (o, k) => o[k],
    keys: (o) => Object.keys(o),
    kind(v) {
      if (v instanceof Tensor) return KIND.tensor;
      if (Array.isArray(v)) return KIND.array;
      if (v instanceof Node) return KIND.node;
      if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) return KIND.object;
      return KIND.other;
    },
    linear(x, w, b) {
      const F = hg.nn.functional;
      if (typeof F.linear !== 'function') throw new Error('hookgrad does not implement torch.nn.functional.linear yet');
      return b === null || b === undefined ? F.linear(x, w) : F.linear(x, w, b);
    },
    clamp(t, min, max) {
      if (typeof t.clamp !== 'function') throw new Error('hookgrad does not implement torch.clamp yet');
      return t.clamp(min ?? null, max ?? null);
    },
    powTensor(t, e) { return t.pow(e); },
    rpow(base, t) {
      if (typeof hg.pow !== 'function') throw new Error('hookgrad does not implement a number raised to a tensor yet');
      return hg.pow(base, t);
    },
    reduce(t, method, dims, keepdim) {
      return dims.length === 1 ? t[method](dims[0], keepdim) : t[method](dims, keepdim);
    },
    norm(t, p, dims, keepdim) {
      if (typeof t.norm !== 'function') throw new Error('hookgrad does not implement torch.norm yet');
      return dims === null || dims === undefined ? t.norm(p) : t.norm(p, dims.length === 1 ? dims[0] : dims, keepdim);
    },
    backwardMany() {
      throw new Error('hookgrad does not implement torch.autograd.backward of several tensors yet');
    },
  };
}
