// Deterministic workload data shared by every peer. The native bench
// (bench/native/src/data.rs) reimplements the same generator bit for bit:
// mulberry32 on u32, mapped to [-1, 1) through f64, rounded to f32.

export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const u = (t ^ (t >>> 14)) >>> 0;
    return Math.fround((u / 4294967296) * 2 - 1);
  };
}

export function uniform(seed, n, scale = 1) {
  const r = rng(seed);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.fround(r() * scale);
  return out;
}

// W1: micrograd's MLP(2, [16, 16, 1]), tanh on hidden layers, linear output
// (micrograd's `nonlin = i != len-1`), MSE over 16 samples.
export const W1 = { nin: 2, sizes: [16, 16, 1], samples: 16 };
export function w1Data() {
  const dims = [W1.nin, ...W1.sizes];
  const layers = [];
  let seed = 100;
  for (let l = 0; l < W1.sizes.length; l++) {
    const nin = dims[l], nout = dims[l + 1];
    // Per neuron: nin weights then the bias (micrograd's Neuron order).
    layers.push({ nin, nout, params: uniform(seed++, nout * (nin + 1)) });
  }
  const xs = uniform(1, W1.samples * W1.nin);
  const ys = uniform(2, W1.samples);
  return { layers, xs, ys, nparams: layers.reduce((s, l) => s + l.params.length, 0) };
}

// W2: batch 64, Linear(784, 256) -> relu -> Linear(256, 10), MSE (mean).
// Weights stored [in, out] so forward is x @ W + b in every peer.
export const W2 = { batch: 64, nin: 784, nhid: 256, nout: 10 };
export function w2Data() {
  const { batch, nin, nhid, nout } = W2;
  return {
    x: uniform(10, batch * nin),
    w1: uniform(11, nin * nhid, 1 / Math.sqrt(nin)),
    b1: uniform(12, nhid, 0.1),
    w2: uniform(13, nhid * nout, 1 / Math.sqrt(nhid)),
    b2: uniform(14, nout, 0.1),
    y: uniform(15, batch * nout),
  };
}

// W3: a chain of 2,000 ops on a [16] tensor, alternating mul(MUL) and add(ADD),
// loss = sum. Hooks go on every intermediate (2,000 of them).
export const W3 = { n: 16, ops: 2000, MUL: 1.0005, ADD: 0.001 };
export function w3Data() { return { x: uniform(20, W3.n) }; }

// W4: a 1,000-node graph for the playground: x, w leaves [4]; 333 rounds of
// y = tanh(y * w + x), then sum: 999 op nodes + 2 AccumulateGrad = 1,001.
export const W4 = { n: 4, rounds: 333 };
export function w4Data() { return { x: uniform(30, W4.n), w: uniform(31, W4.n) }; }

/**
 * W1's shapes (issue 31: a graph's speed must not depend on which ops it
 * contains): the bench's own (`add mul sub tanh`, a final `mul(1/16)`);
 * micrograd's own loss, `(out - y).pow(2)` summed and `.div(n)`; and the
 * forward ending in `relu` / `sigmoid` / `exp` on the output neuron; `sum`,
 * the loss left a sum (its root an `add`, as micrograd's `data_loss +
 * reg_loss`). `notidy`
 * is the bench's shape run without `hg.tidy` (the runner yields between
 * steps, so the garbage collector's callbacks free the step's handles).
 */
export const W1_SHAPES = ['mg', 'relu', 'sigmoid', 'exp', 'sum', 'notidy'];

/**
 * W1's loss, written once for every peer with a method-style scalar API
 * (`add mul sub tanh`, and per shape `pow div relu sigmoid exp`): MSE over
 * the samples of the MLP in `layers` (arrays of `{w: [..], b}` neurons),
 * the last layer linear unless the shape ends it in an activation.
 */
export function w1Loss(layers, d, shape) {
  const end = shape === 'relu' || shape === 'sigmoid' || shape === 'exp' ? shape : null;
  let total = null;
  for (let s = 0; s < W1.samples; s++) {
    let x = [d.xs[s * 2], d.xs[s * 2 + 1]];
    layers.forEach((neurons, li) => {
      const last = li === layers.length - 1;
      x = neurons.map(({ w, b }) => {
        let act = b;
        for (let i = 0; i < w.length; i++) act = act.add(w[i].mul(x[i]));
        return last ? (end ? act[end]() : act) : act.tanh();
      });
    });
    let sq;
    if (shape === 'mg') sq = x[0].sub(d.ys[s]).pow(2);
    else {
      const diff = x[0].sub(d.ys[s]);
      sq = diff.mul(diff);
    }
    total = total ? total.add(sq) : sq;
  }
  if (shape === 'sum') return total;
  return shape === 'mg' ? total.div(W1.samples) : total.mul(1 / W1.samples);
}
