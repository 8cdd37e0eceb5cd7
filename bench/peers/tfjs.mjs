// TensorFlow.js 4.22 (cpu and wasm backends) in this Node process. Gradients
// through tf.grads; every tensor is tidied.
import path from 'node:path';
import { createRequire } from 'node:module';
import { W2, W3, w1Loss } from '../lib/data.mjs';

const require = createRequire(import.meta.url);

export async function load() {
  const tf = await import('@tensorflow/tfjs');
  const wasm = await import('@tensorflow/tfjs-backend-wasm');
  const dist = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'));
  wasm.setWasmPaths(dist + path.sep);
  return tf;
}

export function make(tf, backend) {
  const use = async () => { if (tf.getBackend() !== backend) { await tf.setBackend(backend); await tf.ready(); } };
  return {
    name: `TF.js ${backend}`,
    use,
    w1: {
      setup(d) {
        const params = [];
        for (const l of d.layers) for (const v of l.params) params.push(tf.keep(tf.scalar(v)));
        return { params, layers: d.layers };
      },
      step({ params, layers }, d) {
        const f = (...ps) => {
          let k = 0;
          const L = layers.map((l) => {
            const neurons = [];
            for (let o = 0; o < l.nout; o++) { const w = ps.slice(k, k + l.nin); neurons.push({ w, b: ps[k + l.nin] }); k += l.nin + 1; }
            return neurons;
          });
          return w1Loss(L, d);
        };
        return tf.tidy(() => {
          const { value, grads } = tf.valueAndGrads(f)(params);
          return { loss: value.dataSync()[0], grads: [Float64Array.from(grads.map((g) => g.dataSync()[0]))] };
        });
      },
    },
    w2: {
      setup(d) {
        const { batch, nin, nhid, nout } = W2;
        return {
          x: tf.keep(tf.tensor2d(d.x, [batch, nin])), y: tf.keep(tf.tensor2d(d.y, [batch, nout])),
          p: [tf.keep(tf.tensor2d(d.w1, [nin, nhid])), tf.keep(tf.tensor1d(d.b1)), tf.keep(tf.tensor2d(d.w2, [nhid, nout])), tf.keep(tf.tensor1d(d.b2))],
        };
      },
      step({ x, y, p }) {
        const f = (w1, b1, w2, b2) => {
          const out = x.matMul(w1).add(b1).relu().matMul(w2).add(b2);
          const diff = out.sub(y);
          return diff.mul(diff).mean();
        };
        return tf.tidy(() => {
          const { value, grads } = tf.valueAndGrads(f)(p);
          return { loss: value.dataSync()[0], grads: grads.map((g) => Float64Array.from(g.dataSync())) };
        });
      },
    },
    w3: {
      setup(d) { return { x: tf.keep(tf.tensor1d(d.x)) }; },
      step({ x }, d, variant) {
        if (variant !== 'none') return null; // TF.js has no gradient hooks
        const f = (x0) => {
          let y = x0;
          for (let i = 0; i < W3.ops; i++) y = i % 2 === 0 ? y.mul(W3.MUL) : y.add(W3.ADD);
          return y.sum();
        };
        return tf.tidy(() => {
          const { value, grads } = tf.valueAndGrads(f)([x]);
          return { loss: value.dataSync()[0], grads: [Float64Array.from(grads[0].dataSync())], calls: 0 };
        });
      },
    },
  };
}
