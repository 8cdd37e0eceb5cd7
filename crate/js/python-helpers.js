// The few engine helpers the Python shim calls (module `_hookgrad.helpers`),
// written in JS because they are one call here and several across the FFI:
// flattening values, building arrays and option objects, kinds of values.

const KIND = { tensor: 0, array: 1, object: 2, other: 3, node: 4, pyref: 5 };

/** A Python object passed through a module call: the engine sees an opaque value. */
class PyRef {
  constructor(index) {
    this.index = index;
  }
}

/** A Python exception, returned across the FFI and thrown on the JS side. */
class Threw {
  constructor(name, message) {
    this.name = name;
    this.message = message;
  }
}

export function engineHelpers(hg) {
  // The Python side's one dispatcher `(key, ...args)`, and the keys of the
  // functions JS has collected (their Python callables can go).
  let dispatch = null;
  // Registers: two small arrays of Python's (`R` int32, `F` float64) that the
  // hot calls read their operands from. A call with arguments costs Pyodide
  // ~2 µs more than one without; Python writes R/F and calls with none. Each
  // call reads its registers first, before anything can re-enter Python.
  // R[0], R[1], F[0]: an op's operands; R[3]: the handle to release.
  let regProxies = null;
  let R = null;
  let F = null;
  let D = null; // D[0]: a count, D[1..]: tensor handle indices to release (trelease_many_r)
  const views = [];
  const names = []; // hook names by index (a string argument costs a crossing of its own)
  const refresh = () => {
    for (const v of views) v.release();
    views.length = 0;
    views.push(regProxies[0].getBuffer('i32'), regProxies[1].getBuffer('f64'), regProxies[2].getBuffer('i32'));
    R = views[0].data;
    F = views[1].data;
    D = views[2].data;
  };
  const regs = () => {
    if (R.length === 0) refresh(); // the wasm memory grew: views on the old one are empty
    return R;
  };
  // Handles by index (index 0 is never used: it means "none yet" in Python).
  const table = [undefined];
  const free = [];
  const put = (h) => {
    if (free.length) {
      const i = free.pop();
      table[i] = h;
      return i;
    }
    table.push(h);
    return table.length - 1;
  };
  const collected = [];
  const forget = new FinalizationRegistry((key) => collected.push(key));
  // Tensor hooks (crate/wasm/src/key_hook.rs): the engine calls `keyHook`
  // with the hook's key and its gradient's engine id — numbers, no JS
  // function per hook. The gradient gets its Tensor and table index here
  // (a hook that uses it then needs no crossing for it). Python's
  // dispatcher answers 4 · (table index of the Tensor the hook returned, or
  // 0) + 2 when CPython freed the gradient's Tensor as the hook returned:
  // its handle is released here, no crossing back for it.
  let hookDispatch = null; // Python's `(key, gradient index) -> code`
  const keyHook = (key, id) => {
    const grad = hg.__tensorFromId(id);
    const gi = put(grad);
    const r = hookDispatch(key, gi);
    if (typeof r === 'number') {
      const ri = r >> 2;
      const out = ri > 0 ? table[ri].__hg : 0;
      if (r & 2) {
        table[gi] = undefined;
        free.push(gi);
        grad.dispose();
      }
      return out;
    }
    if (r instanceof Threw) throw Object.assign(new Error(r.message), { name: r.name });
    throw new Error(`internal error: a tensor hook's dispatcher answered ${typeof r}`);
  };
  const { Tensor, Node } = hg;
  const unwrap = (v) => (v && typeof v.toJs === 'function' ? v.toJs({ create_pyproxies: false }) : v);
  return {
    /** A tensor's values, row-major, as a Float64Array (exact float32 values;
     * a typed array keeps -0 and floats, where a JS array crosses as Python ints). */
    flat(t) {
      const a = t.toArray();
      return Float64Array.from(Array.isArray(a) ? a.flat(Infinity) : [a]);
    },
    fromFlat(values, shape, requiresGrad) {
      const v = unwrap(values);
      return hg.tensor(Float32Array.from(v), { shape: Array.from(shape), requiresGrad });
    },
    setRequiresGrad(t, flag) { t.requiresGrad = flag; },
    getGrad(t) { return t.grad; },
    setGrad(t, g) { t.grad = g; },
    /** A JS function calling Python's `f`, named `name` (a proxy has no JS name). */
    setDispatch(f) { dispatch = f; },
    /** A JS function (named `name`) calling Python's callable `key`. */
    callable(key, name) {
      const g = (...a) => {
        const r = dispatch(key, ...a);
        if (r instanceof Threw) throw Object.assign(new Error(r.message), { name: r.name });
        return r;
      };
      Object.defineProperty(g, 'name', { value: name });
      forget.register(g, key);
      return g;
    },
    /** Keys whose JS functions are gone (their Python callables can go);
     * a tensor hook's key only while no new function of it lives. */
    takeCollected() {
      return collected.splice(0);
    },
    /** Tensor-hook keys no engine hook holds any more (their callables can go, the keys be reused). */
    takeDeadHookKeys() {
      const out = [];
      for (let k = hg.__takeDeadHookKey(); k !== 0; k = hg.__takeDeadHookKey()) out.push(k);
      return out;
    },
    setHookDispatch(f) {
      hookDispatch = f;
      hg.__setKeyHooks(keyHook, (i) => names[i]);
    },
    /** `remove()` of a tensor hook's handle, named by its number (slot · 2^32 + id). */
    removeKeyHandle: (n) => hg.__handleFrom(n).remove(),
    same: (a, b) => a === b,
    /** What a Python callable returns when it raised: its wrapper throws this. */
    threw(name, message) {
      return new Threw(name, message);
    },
    array: (...xs) => xs,
    pyref: (index) => new PyRef(index),
    dispose: (h) => h.dispose(),
    // The handle table: Python's hot paths name handles by index (a number
    // crosses the FFI several times cheaper than a proxy of an object).
    tput: put,
    tget: (i) => table[i],
    setRegisters(ri, rf, rd) {
      regProxies = [ri, rf, rd];
      refresh();
    },
    internName(s) {
      names.push(s);
      return names.length - 1;
    },
    /** t.register_hook(fn) in one crossing of numbers: R[0] the tensor's
     * index, R[1] the hook's key, R[2] its name's index. The error for a
     * tensor that does not require grad is PyTorch's RuntimeError. Returns
     * the handle's number (slot · 2^32 + id; no JS object). */
    registerTensorHook_r() {
      const r = regs();
      return hg.__registerKeyHook(table[r[0]], r[1], r[2]);
    },
    /** Releases the D[0] tensor handles at indices D[1..] (Python freed their Tensors). */
    trelease_many_r() {
      regs();
      const n = D[0];
      for (let k = 1; k <= n; k++) {
        const h = table[D[k]];
        table[D[k]] = undefined;
        free.push(D[k]);
        h.dispose();
      }
    },
    trelease_r() {
      const i = regs()[3];
      const h = table[i];
      table[i] = undefined;
      free.push(i);
      h.dispose();
    },
    unary_op_r: (name) => () => put(table[regs()[0]][name]()),
    op_r: (name) => () => {
      const r = regs();
      const a = table[r[0]];
      return put(a[name](table[r[1]]));
    },
    op_nr: (name) => () => {
      const a = table[regs()[0]];
      return put(a[name](F[0]));
    },
    object: () => ({}),
    options: (k, v) => ({ [k]: v }),
    set(o, k, v) { o[k] = v; },
    get: (o, k) => o[k],
    keys: (o) => Object.keys(o),
    kind(v) {
      if (v instanceof Tensor) return KIND.tensor;
      if (Array.isArray(v)) return KIND.array;
      if (v instanceof Node) return KIND.node;
      if (v instanceof PyRef) return KIND.pyref + v.index;
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
    backwardMany(tensors, grads, opts) {
      return hg.backward(tensors, grads, opts);
    },
  };
}
