// The floor: a plain-JS, micrograd-style autograd (Karpathy's micrograd,
// engine.py, ported as directly as JS allows: one object per value, a closure
// per node, topological sort then reverse sweep). f64 numbers throughout.

export let created = 0; // op nodes created (the "nodes" of ns/node)
export function resetCount() { created = 0; }

export class Value {
  constructor(data, children = null, backward = null) {
    this.data = data;
    this.grad = 0;
    this._prev = children;
    this._backward = backward;
    if (children) created++;
  }
  add(o) {
    if (typeof o === 'number') {
      const out = new Value(this.data + o, [this], () => { this.grad += out.grad; });
      return out;
    }
    const out = new Value(this.data + o.data, [this, o], () => { this.grad += out.grad; o.grad += out.grad; });
    return out;
  }
  sub(o) { return typeof o === 'number' ? this.add(-o) : this.add(o.mul(-1)); }
  mul(o) {
    if (typeof o === 'number') {
      const out = new Value(this.data * o, [this], () => { this.grad += o * out.grad; });
      return out;
    }
    const out = new Value(this.data * o.data, [this, o], () => { this.grad += o.data * out.grad; o.grad += this.data * out.grad; });
    return out;
  }
  // micrograd: `__pow__` (a number exponent), `__truediv__` = self * other**-1
  // (a number other: a mul by a number), relu; exp and sigmoid as its
  // lecture's engine writes them.
  pow(e) {
    const out = new Value(this.data ** e, [this], () => { this.grad += e * this.data ** (e - 1) * out.grad; });
    return out;
  }
  div(o) { return this.mul(o ** -1); }
  relu() {
    const out = new Value(this.data < 0 ? 0 : this.data, [this], () => { this.grad += (out.data > 0) * out.grad; });
    return out;
  }
  exp() {
    const e = Math.exp(this.data);
    const out = new Value(e, [this], () => { this.grad += e * out.grad; });
    return out;
  }
  sigmoid() {
    const t = 1 / (1 + Math.exp(-this.data));
    const out = new Value(t, [this], () => { this.grad += t * (1 - t) * out.grad; });
    return out;
  }
  tanh() {
    const t = Math.tanh(this.data);
    const out = new Value(t, [this], () => { this.grad += (1 - t * t) * out.grad; });
    return out;
  }
  backward() {
    const topo = [];
    const visited = new Set();
    const build = (v) => {
      if (visited.has(v)) return;
      visited.add(v);
      if (v._prev) for (const c of v._prev) build(c);
      topo.push(v);
    };
    build(this);
    this.grad = 1;
    for (let i = topo.length - 1; i >= 0; i--) if (topo[i]._backward) topo[i]._backward();
  }
}

// The same engine over Float64Array values (for W3's [16] chain), with
// per-value gradient hooks run before the node's backward, as PyTorch runs
// tensor hooks: a hook gets the gradient and may return a replacement.
export class Vec {
  constructor(data, children = null, backward = null) {
    this.data = data;
    this.grad = null;
    this._prev = children;
    this._backward = backward;
    this.hooks = null;
  }
  registerHook(fn) { (this.hooks ||= []).push(fn); }
  mul(c) {
    const d = this.data, n = d.length, od = new Float64Array(n);
    for (let i = 0; i < n; i++) od[i] = d[i] * c;
    const out = new Vec(od, [this], (g) => { const r = new Float64Array(n); for (let i = 0; i < n; i++) r[i] = g[i] * c; return [r]; });
    return out;
  }
  add(c) {
    const d = this.data, n = d.length, od = new Float64Array(n);
    for (let i = 0; i < n; i++) od[i] = d[i] + c;
    return new Vec(od, [this], (g) => [g]);
  }
  // Chain-shaped backward of sum(): every node has one parent, so no topo
  // sort is needed; gradient flows down the chain, hooks applied per value.
  sumBackward() {
    let g = new Float64Array(this.data.length).fill(1);
    let v = this;
    while (v) {
      if (v.hooks) for (const h of v.hooks) { const r = h(g); if (r != null) g = r; }
      if (!v._backward) { v.grad = v.grad ? v.grad.map((a, i) => a + g[i]) : g; break; }
      g = v._backward(g)[0];
      v = v._prev[0];
    }
  }
}
