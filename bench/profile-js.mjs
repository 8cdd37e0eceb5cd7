#!/usr/bin/env node
// Profile hookgrad (web/pkg) on one workload with V8's CPU profiler and print
// the top self-time functions (JS, wasm, GC):
//   node bench/profile-js.mjs w1            (also: w2, w3 [none|undef|mul1], w4 [graph|trace])
// Wasm functions show by name when the build keeps its name section.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const [w = 'w1', variant] = process.argv.slice(2);
if (process.env.BENCH_PROFILE_CHILD) {
  const D = await import('./lib/data.mjs');
  const { load, make } = await import('./peers/hookgrad.mjs');
  const p = make(await load());
  const s = p[w].setup(D[`${w}Data`]());
  const t0 = performance.now();
  const n = w === 'w4' ? 20 : 8;
  for (let i = 0; i < n; i++) {
    if (w === 'w4') { const y = p.w4.build(s); if (variant !== 'build') p.w4[variant || 'graph'](y); }
    else p[w].step(s, D[`${w}Data`](), variant);
  }
  console.log(`${w} ${variant ?? ''}: ${((performance.now() - t0) / n).toFixed(1)} ms per step (under the profiler)`);
} else {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hg-prof-'));
  const r = spawnSync(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, fileURLToPath(import.meta.url), w, ...(variant ? [variant] : [])], { env: { ...process.env, BENCH_PROFILE_CHILD: '1' }, stdio: 'inherit' });
  if (r.status) process.exit(r.status);
  const prof = JSON.parse(fs.readFileSync(path.join(dir, fs.readdirSync(dir)[0])));
  const self = new Map(); const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  prof.samples.forEach((id, i) => { const cf = byId.get(id).callFrame; const k = `${cf.functionName || '(anonymous)'} ${cf.url.split('/').pop()}:${cf.lineNumber + 1}`; self.set(k, (self.get(k) || 0) + (prof.timeDeltas[i] || 0) / 1000); });
  const tot = [...self.values()].reduce((a, b) => a + b, 0);
  for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`${v.toFixed(0).padStart(7)} ms ${((100 * v) / tot).toFixed(1).padStart(5)}%  ${k.slice(0, 140)}`);
  fs.rmSync(dir, { recursive: true, force: true });
}
