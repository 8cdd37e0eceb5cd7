#!/usr/bin/env node
// W1 on bench/floor-wasm (a minimal wasm arena autograd, one JS handle per
// op) beside hookgrad (web/pkg, or HOOKGRAD_PKG) and the plain-JS micrograd,
// interleaved in one process; builds the floor first if needed:
//   node bench/floor-wasm/run.mjs [rounds]
// (bench/PROFILE.md, issue 10: what stands between hookgrad and W1's target.)
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as D from '../lib/data.mjs';
import { make as makeFloor } from '../peers/floor.mjs';
import * as H from '../peers/hookgrad.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkg = path.join(here, 'pkg');
if (!fs.existsSync(path.join(pkg, 'floorwasm_bg.wasm'))) {
  execFileSync('cargo', ['build', '--release', '--target', 'wasm32-unknown-unknown'], { cwd: here, stdio: 'inherit' });
  execFileSync('wasm-bindgen', ['--target', 'web', '--out-dir', pkg, path.join(here, 'target/wasm32-unknown-unknown/release/floorwasm.wasm')], { stdio: 'inherit' });
}
const F = await import(path.join(pkg, 'floorwasm.js'));
F.initSync({ module: fs.readFileSync(path.join(pkg, 'floorwasm_bg.wasm')) });

/** A handle: a plain JS object holding the node's arena index. */
class V {
  constructor(i) { this.i = i; }
  add(o) { return new V(typeof o === 'number' ? F.addk(this.i, o) : F.add(this.i, o.i)); }
  sub(o) { return new V(F.addk(this.i, -o)); }
  mul(o) { return new V(typeof o === 'number' ? F.mulk(this.i, o) : F.mul(this.i, o.i)); }
  tanh() { return new V(F.tanh(this.i)); }
}
const floorWasm = {
  setup(d) {
    return d.layers.map((l) => Array.from({ length: l.nout }, (_, o) => ({
      w: Array.from({ length: l.nin }, (_, i) => new V(F.leaf(l.params[o * (l.nin + 1) + i]))),
      b: new V(F.leaf(l.params[o * (l.nin + 1) + l.nin])),
    })));
  },
  step(layers, d) {
    const params = layers.flat();
    const keep = params.reduce((n, x) => n + x.w.length + 1, 0);
    const loss = D.w1Loss(layers, d);
    for (const n of params) { for (const w of n.w) F.zero_grad(w.i); F.zero_grad(n.b.i); }
    F.backward(loss.i);
    const grads = [];
    for (const n of params) { for (const w of n.w) grads.push(F.grad(w.i)); grads.push(F.grad(n.b.i)); }
    const out = { loss: F.value(loss.i), grads: [Float64Array.from(grads)] };
    F.truncate(keep); // the step's graph is gone, as at the end of hg.tidy
    return out;
  },
};

const d = D.w1Data();
const hg = H.make(await H.load()).w1;
const micrograd = makeFloor().w1;
const peers = { 'floor-wasm': floorWasm, hookgrad: hg, 'plain-JS micrograd': micrograd };
const state = Object.fromEntries(Object.entries(peers).map(([k, p]) => [k, p.setup(d)]));
const ref = micrograd.step(state['plain-JS micrograd'], d);
for (const k of ['floor-wasm', 'hookgrad']) {
  const r = peers[k].step(state[k], d);
  const err = Math.max(...r.grads[0].map((g, i) => Math.abs(g - ref.grads[0][i])));
  if (!(err < 1e-4) || !(Math.abs(r.loss - ref.loss) < 1e-4)) throw new Error(`${k} disagrees with micrograd: max |Δgrad| ${err}`);
}
let nodes = 0;
{ // W1's graph size, counted on the floor (one arena entry per op)
  const keep = state['floor-wasm'].flat().reduce((n, x) => n + x.w.length + 1, 0);
  const loss = D.w1Loss(state['floor-wasm'], d);
  nodes = loss.i + 1 - keep;
  F.truncate(keep);
}
const rounds = Number(process.argv[2]) || 40;
const times = {};
for (let r = -5; r < rounds; r++) {
  for (const [k, p] of Object.entries(peers)) {
    const t0 = performance.now();
    for (let j = 0; j < 3; j++) p.step(state[k], d);
    if (r >= 0) (times[k] ||= []).push((performance.now() - t0) / 3);
  }
}
const median = (x) => { const s = [...x].sort((a, b) => a - b); return s[s.length >> 1]; };
console.log(`W1, ${nodes} ops per step, ${rounds} interleaved rounds (3 steps each), ns per op: median / fastest`);
for (const [k, v] of Object.entries(times)) console.log(`  ${k.padEnd(20)} ${(median(v) * 1e6 / nodes).toFixed(0).padStart(6)} / ${(Math.min(...v) * 1e6 / nodes).toFixed(0)}`);
