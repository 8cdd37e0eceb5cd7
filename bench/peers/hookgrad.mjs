// hookgrad (web/pkg, wasm) on every workload, through the public JS API only.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { W2, W3, W4, w1Loss } from '../lib/data.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const pkgDir = process.env.HOOKGRAD_PKG ? path.resolve(process.env.HOOKGRAD_PKG) : path.join(root, 'web', 'pkg');

/** The instance's memory (to report how far the wasm heap grew). */
export let wasmMemory = null;
export let loaded = null;

export async function load() {
  if (!fs.existsSync(path.join(pkgDir, 'hookgrad_bg.wasm'))) throw new Error(`${pkgDir}/hookgrad_bg.wasm is missing: run \`npm run build:wasm\` first`);
  const hg = await import(path.join(pkgDir, 'hookgrad.js'));
  const wasm = fs.readFileSync(path.join(pkgDir, 'hookgrad_bg.wasm'));
  // The bytes actually benchmarked, for W5 (web/pkg may be rebuilt mid-run).
  // The engine's JS is the package's top-level .js files but the Python
  // mode's (python.js, its helpers and the bundled shim load only with Python).
  const engineJs = (f) => f.endsWith('.js') && !f.startsWith('python');
  loaded = { wasm, js: fs.readdirSync(pkgDir).filter(engineJs).map((f) => fs.readFileSync(path.join(pkgDir, f))) };
  const out = hg.initSync({ module: wasm });
  wasmMemory = out?.memory ?? null;
  return hg;
}

// toArray() gives nested arrays; copy them out with plain loops into a
// Float64Array (Array#flat is slow enough to distort W2).
function flat(a) {
  if (typeof a === 'number') return Float64Array.of(a);
  let n = 1;
  for (let x = a; Array.isArray(x); x = x[0]) n *= x.length;
  const out = new Float64Array(n);
  let k = 0;
  const walk = (x) => { if (typeof x[0] === 'number') { for (let i = 0; i < x.length; i++) out[k++] = x[i]; } else for (const r of x) walk(r); };
  walk(a);
  return out;
}

export function make(hg) {
  // Each step in hg.tidy, as TF.js's peer runs each in tf.tidy: the step's
  // handles are freed at its end (no FinalizationRegistry entries, no garbage
  // left for the collector). A build without tidy runs the step bare.
  const scoped = typeof hg.tidy === 'function' ? hg.tidy : (f) => f();
  const T = (data, shape, requiresGrad = false) =>
    shape.length === 0 ? hg.tensor(data[0], { requiresGrad }) : hg.tensor(data, { shape, requiresGrad });

  return {
    name: 'hookgrad (wasm)',
    w1: {
      setup(d) {
        return d.layers.map((l) => {
          const neurons = [];
          for (let o = 0; o < l.nout; o++) {
            const w = [];
            for (let i = 0; i < l.nin; i++) w.push(hg.tensor(l.params[o * (l.nin + 1) + i], { requiresGrad: true }));
            const b = hg.tensor(l.params[o * (l.nin + 1) + l.nin], { requiresGrad: true });
            neurons.push({ w, b });
          }
          return neurons;
        });
      },
      shapes: true,
      // `notidy`: as an ordinary script writes it, no hg.tidy; the runner
      // yields between steps, so the collector's callbacks free the handles.
      step(layers, d, shape) { return shape === 'notidy' ? this.bare(layers, d, shape) : scoped(() => this.bare(layers, d, shape)); },
      bare(layers, d, shape) {
        const loss = w1Loss(layers, d, shape);
        for (const n of layers.flat()) { for (const w of n.w) w.grad = null; n.b.grad = null; }
        loss.backward();
        const grads = [];
        for (const n of layers.flat()) { for (const w of n.w) grads.push(w.grad.item()); grads.push(n.b.grad.item()); }
        return { loss: loss.item(), grads: [Float64Array.from(grads)] };
      },
    },
    w2: {
      setup(d) {
        const { batch, nin, nhid, nout } = W2;
        return {
          x: T(d.x, [batch, nin]), y: T(d.y, [batch, nout]),
          p: [T(d.w1, [nin, nhid], true), T(d.b1, [nhid], true), T(d.w2, [nhid, nout], true), T(d.b2, [nout], true)],
        };
      },
      step(s) { return scoped(() => this.bare(s)); },
      bare({ x, y, p }) {
        const [w1, b1, w2, b2] = p;
        for (const t of p) t.grad = null;
        const out = x.matmul(w1).add(b1).relu().matmul(w2).add(b2);
        const diff = out.sub(y);
        const loss = diff.mul(diff).mean();
        loss.backward();
        return { loss: loss.item(), grads: p.map((t) => flat(t.grad.toArray())) };
      },
    },
    w3: {
      setup(d) { return { x: T(d.x, [W3.n], true) }; },
      step(s, d, variant) { return scoped(() => this.bare(s, d, variant)); },
      bare({ x }, d, variant) {
        x.grad = null;
        let y = x;
        let calls = 0;
        const hook = variant === 'undef' ? () => { calls++; } : variant === 'mul1' ? (g) => { calls++; return g.mul(1); } : null;
        for (let i = 0; i < W3.ops; i++) {
          y = i % 2 === 0 ? y.mul(W3.MUL) : y.add(W3.ADD);
          if (hook) y.registerHook(hook);
        }
        const loss = y.sum();
        loss.backward();
        return { loss: loss.item(), grads: [flat(x.grad.toArray())], calls };
      },
    },
    w4: {
      setup(d) { return { x: T(d.x, [W4.n], true), w: T(d.w, [W4.n], true) }; },
      build({ x, w }) {
        x.grad = null; w.grad = null;
        let y = x;
        for (let r = 0; r < W4.rounds; r++) y = y.mul(w).add(x).tanh();
        return y.sum();
      },
      graph(y) { return JSON.stringify(hg.graph([y])).length; },
      trace(y) { return JSON.stringify(hg.trace(() => y.backward())).length; },
      nodes(y) { return hg.graph([y]).nodes.length; },
      /** One W4 sample: build, graph()+JSON, trace()+JSON in ms, in hg.tidy as the other workloads' steps. */
      timed(st) {
        return scoped(() => {
          const a = performance.now(); const y = this.build(st);
          const b = performance.now(); this.graph(y);
          const c = performance.now(); this.trace(y);
          const d = performance.now();
          return [b - a, c - b, d - c];
        });
      },
    },
  };
}
