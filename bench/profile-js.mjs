#!/usr/bin/env node
// Profile hookgrad (web/pkg, or HOOKGRAD_PKG) on one workload with V8's CPU
// profiler, after a warm-up, and print the top functions by self time and by
// total (inclusive) time:
//   node bench/profile-js.mjs w1            (also: w2, w3 [none|undef|mul1], w4 [graph|trace|build])
//   PROFILE_STEPS=40 PROFILE_TOP=30 node bench/profile-js.mjs w3 undef
// Wasm functions show by name when the build keeps its name section
// (wasm-bindgen --keep-debug, then wasm-opt -g).
import inspector from 'node:inspector';
import * as D from './lib/data.mjs';

const [w = 'w1', variant] = process.argv.slice(2);
const { load, make } = await import('./peers/hookgrad.mjs');
const hg = await load();
const p = make(hg);
const s = p[w].setup(D[`${w}Data`]());
const steps = Number(process.env.PROFILE_STEPS) || (w === 'w4' ? 40 : 12);
const top = Number(process.env.PROFILE_TOP) || 22;
const run = () => {
  // W4 in hg.tidy as bench/run.mjs times it: outside a scope the step's
  // handles wait for the collector and the profile is mostly GC.
  if (w === 'w4') hg.tidy(() => { const y = p.w4.build(s); if (variant !== 'build') p.w4[variant || 'graph'](y); });
  else p[w].step(s, D[`${w}Data`](), variant);
};
for (let i = 0; i < 3; i++) run(); // warm-up: compile, grow the heap

const session = new inspector.Session();
session.connect();
const post = (m, params) => new Promise((res, rej) => session.post(m, params, (e, r) => (e ? rej(e) : res(r))));
await post('Profiler.enable');
await post('Profiler.setSamplingInterval', { interval: 100 });
await post('Profiler.start');
const t0 = performance.now();
for (let i = 0; i < steps; i++) run();
const ms = (performance.now() - t0) / steps;
const { profile: prof } = await post('Profiler.stop');
console.log(`${w} ${variant ?? ''}: ${ms.toFixed(2)} ms per step (under the profiler, ${steps} steps)`);

const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const key = (n) => { const cf = n.callFrame; return `${cf.functionName || '(anonymous)'} ${cf.url.split('/').pop()}:${cf.lineNumber + 1}`; };
const self = new Map(); const total = new Map();
prof.samples.forEach((id, i) => {
  const dt = (prof.timeDeltas[i] || 0) / 1000;
  const k = key(byId.get(id));
  self.set(k, (self.get(k) || 0) + dt);
  const seen = new Set();
  for (let n = id; n !== undefined; n = parent.get(n)) {
    const kk = key(byId.get(n));
    if (!seen.has(kk)) { seen.add(kk); total.set(kk, (total.get(kk) || 0) + dt); }
  }
});
const tot = [...self.values()].reduce((a, b) => a + b, 0);
const show = (m, title) => {
  console.log(title);
  for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${v.toFixed(0).padStart(7)} ms ${((100 * v) / tot).toFixed(1).padStart(5)}%  ${k.slice(0, 150)}`);
};
show(self, '-- self time');
if (process.env.PROFILE_TOTAL !== '0') show(total, '-- total time (inclusive)');
