// The plain-JS floor (lib/micrograd.mjs) on W1 and W3.
import { W3, w1Loss } from '../lib/data.mjs';
import { Value, Vec } from '../lib/micrograd.mjs';

export function make() {
  return {
    name: 'plain-JS micrograd',
    w1: {
      setup(d) {
        return d.layers.map((l) => {
          const neurons = [];
          for (let o = 0; o < l.nout; o++) {
            const w = [];
            for (let i = 0; i < l.nin; i++) w.push(new Value(l.params[o * (l.nin + 1) + i]));
            neurons.push({ w, b: new Value(l.params[o * (l.nin + 1) + l.nin]) });
          }
          return neurons;
        });
      },
      shapes: true,
      step(layers, d, shape) {
        const loss = w1Loss(layers, d, shape);
        for (const n of layers.flat()) { for (const w of n.w) w.grad = 0; n.b.grad = 0; }
        loss.backward();
        const grads = [];
        for (const n of layers.flat()) { for (const w of n.w) grads.push(w.grad); grads.push(n.b.grad); }
        return { loss: loss.data, grads: [Float64Array.from(grads)] };
      },
    },
    w3: {
      setup(d) { return { x: Float64Array.from(d.x) }; },
      step({ x }, d, variant) {
        let y = new Vec(x);
        let calls = 0;
        const hook = variant === 'undef' ? () => { calls++; } : variant === 'mul1' ? (g) => { calls++; return g.map((v) => v * 1); } : null;
        for (let i = 0; i < W3.ops; i++) {
          y = i % 2 === 0 ? y.mul(W3.MUL) : y.add(W3.ADD);
          if (hook) y.registerHook(hook);
        }
        const loss = y.data.reduce((a, b) => a + b, 0);
        let leaf = y; while (leaf._prev) leaf = leaf._prev[0];
        y.sumBackward();
        return { loss, grads: [Float64Array.from(leaf.grad)], calls };
      },
    },
  };
}
