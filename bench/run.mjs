#!/usr/bin/env node
// `npm run bench`: hookgrad (web/pkg wasm and native Rust) against TF.js cpu,
// TF.js wasm and a plain-JS micrograd floor, on workloads W1–W6 (see
// bench/README.md). Every peer is checked against a reference (loss and all
// gradients to 1e-3 relative) before it is timed; repetitions are
// interleaved round-robin across peers; the table (medians ± half the
// interquartile range) is printed and written to bench/RESULTS.md.
//
// PyTorch (torch.set_num_threads(1)) runs W1–W3 in a python3 subprocess
// per round, as the native peer does (bench/peers/torch_peer.py); without
// python3 + torch its column says why.
//
// The Python mode (bench/python.mjs): the PyTorch peer's own script run by
// hookgrad's Python mode beside real PyTorch, and Python's start-up times.
//
// Options: --rounds N (timed repetitions per peer and workload, default 7),
// --quick (3 rounds), --no-native, --no-torch, --no-page, --no-python, --only w1,w2,...
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import * as D from './lib/data.mjs';
import * as MG from './lib/micrograd.mjs';
import { median, fmtMs, fmtCell, fmtBytes, compare, spreadPct } from './lib/stats.mjs';
import { runNative, asResult } from './lib/native.mjs';
import { runTorch, payload as torchPayload } from './lib/torch.mjs';
import * as Sizes from './lib/sizes.mjs';
import * as HG from './peers/hookgrad.mjs';
import * as TF from './peers/tfjs.mjs';
import * as Floor from './peers/floor.mjs';
import { measurePython, pythonReport } from './python.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..');
const argv = process.argv.slice(2);
const opt = (n) => { const i = argv.indexOf(n); return i >= 0 ? argv[i + 1] : undefined; };
const flag = (n) => argv.includes(n);
const ROUNDS = Number(opt('--rounds') ?? (flag('--quick') ? 3 : 7));
const ONLY = opt('--only')?.split(',');
const want = (w) => !ONLY || ONLY.some((o) => w.startsWith(o));
const log = (...a) => console.error('[bench]', ...a);
const t0 = performance.now();
const loadStart = os.loadavg();

// ----- peers ------------------------------------------------------------------
const hg = await HG.load();
const wasmStat = fs.statSync(path.join(HG.pkgDir, 'hookgrad_bg.wasm')); // what was loaded (web/pkg may be rebuilt meanwhile)
// TF.js greets Node users on import; keep stdout for the table.
const origLog = console.log; console.log = () => {};
const tf = await TF.load();

const PEERS = ['hookgrad', 'native', 'torch', 'tfcpu', 'tfwasm', 'floor'];
const LABEL = { hookgrad: 'hookgrad wasm', native: 'hookgrad native', torch: 'PyTorch 1-thread', tfcpu: 'TF.js cpu', tfwasm: 'TF.js wasm', floor: 'plain-JS micrograd' };
const js = { hookgrad: HG.make(hg), tfcpu: TF.make(tf, 'cpu'), tfwasm: TF.make(tf, 'wasm'), floor: Floor.make() };

const data = { w1: D.w1Data(), w2: D.w2Data(), w3: D.w3Data(), w4: D.w4Data() };
const TASKS = ['w1', ...D.W1_SHAPES.map((s) => `w1_${s}`), 'w2', 'w3_none', 'w3_undef', 'w3_mul1'].filter(want);
const wl = (task) => task.split('_')[0];
const variant = (task) => task.split('_')[1];
// W1's other shapes (lib/data.mjs) run on the peers that write them (hookgrad
// and the floor); native and PyTorch run the bench's own shape.
const isShape = (task) => wl(task) === 'w1' && variant(task) != null;
const runs = (p, task) => js[p]?.[wl(task)] && (!isShape(task) || js[p][wl(task)].shapes);
const BASE_TASKS = TASKS.filter((t) => !isShape(t));

// Setup per peer (TF.js tensors are created under their own backend).
const state = {};
for (const p of ['hookgrad', 'tfcpu', 'tfwasm', 'floor']) {
  if (js[p].use) await js[p].use();
  state[p] = {};
  for (const w of ['w1', 'w2', 'w3']) if (js[p][w] && TASKS.some((t) => wl(t) === w)) state[p][w] = js[p][w].setup(data[w]);
}
console.log = origLog;
const step = async (p, task) => {
  if (js[p].use) await js[p].use();
  const w = wl(task);
  return js[p][w].step(state[p][w], data[w], variant(task));
};

// ----- verification -----------------------------------------------------------
// Reference: the f64 floor where it runs the workload (W1, W3), else TF.js cpu.
const results = {}; // task -> peer -> result
const check = {};   // task -> peer -> {ok, err, why}
const times = {};   // task -> peer -> ms[]
const skipped = {}; // peer -> reason
for (const task of TASKS) {
  results[task] = {}; check[task] = {}; times[task] = {};
  for (const p of Object.keys(js)) {
    if (!runs(p, task)) continue;
    try {
      const r = await step(p, task);
      if (r) results[task][p] = r;
    } catch (e) { check[task][p] = { ok: false, err: Infinity, why: `threw: ${e.message}` }; }
  }
}

let native = null;
if (!flag('--no-native')) {
  try {
    log('building and checking the native bench (cargo run --release; the first build takes ~2 min)');
    const only = [...new Set([...BASE_TASKS, ...(want('w4') ? ['w4'] : [])])].join(',');
    native = runNative(['--check', '--reps', '0', '--warmup', '1', '--only', only], { build: true });
    for (const task of BASE_TASKS) if (native[task]) results[task].native = asResult(native[task]);
  } catch (e) { skipped.native = e.message; log('native:', e.message); }
} else skipped.native = 'skipped (--no-native)';

let torch = null;
const torchData = torchPayload(data);
if (!flag('--no-torch')) {
  log('checking the PyTorch peer (python3, torch.set_num_threads(1))');
  const r = runTorch(torchData, BASE_TASKS, { reps: 0, warmup: 0 });
  if (r.available) {
    torch = r;
    for (const task of BASE_TASKS) if (r.tasks[task]) results[task].torch = asResult(r.tasks[task]);
  } else { skipped.torch = r.why; log('torch:', r.why); }
} else skipped.torch = 'skipped (--no-torch)';

for (const task of TASKS) {
  const rs = results[task];
  const refPeer = rs.floor ? 'floor' : 'tfcpu';
  const ref = rs[refPeer];
  for (const [p, r] of Object.entries(rs)) {
    check[task][p] = ref ? { ...compare(r, ref), ref: refPeer } : { ok: true, err: 0, ref: 'none' };
    if (wl(task) === 'w3' && variant(task) !== 'none' && r.calls !== D.W3.ops) check[task][p] = { ok: false, err: Infinity, why: `${r.calls} hook calls, expected ${D.W3.ops}` };
    if (!check[task][p].ok) log(`CHECK FAILED ${task} ${LABEL[p]}: ${check[task][p].why} — not timed`);
  }
}

// ----- timing: interleaved rounds ---------------------------------------------
const ok = (task, p) => results[task]?.[p] && check[task][p]?.ok;
const w4js = { build: [], graph: [], trace: [], nodes: 0 };
const W4_REPS = 5;
const w4native = { build: [], graph: [], trace: [] };
// W1's step on the core's deferred path natively, by phase (bench/native: w1_deferred).
const w1deferred = { forward: [], backward: [], teardown: [] };
const nativeTimes = {};
const torchTimes = {};
const inner = {}; // task -> peer -> steps per timed sample
const tick = () => new Promise((r) => setTimeout(r, 0));
const jsPeers = Object.keys(js);
log(`timing ${ROUNDS} interleaved rounds (+1 warm-up) of ${TASKS.join(', ')}${want('w4') ? ', w4' : ''}`);
for (let round = -1; round < ROUNDS; round++) {
  for (const task of TASKS) {
    // Rotate the peer order every round so no peer always runs first.
    const order = jsPeers.map((_, i) => jsPeers[(i + round + 1) % jsPeers.length]);
    for (const p of order) {
      if (!ok(task, p)) continue;
      if (js[p].use) await js[p].use();
      // Short steps are repeated within a sample (calibrated on the warm-up
      // round to ≥ ~40 ms per sample) so one GC pause does not decide it.
      const n = (inner[task] ||= {})[p] || 1;
      // Yield to the event loop first (outside the timing), as a page does
      // between frames: hookgrad frees graphs when FinalizationRegistry
      // callbacks run, and those never run inside a synchronous loop.
      let total = 0;
      for (let k = 0; k < n; k++) {
        await tick();
        const s = performance.now();
        await step(p, task);
        total += performance.now() - s;
      }
      const ms = total / n;
      if (round >= 0) (times[task][p] ||= []).push(ms);
      else inner[task][p] = Math.max(1, Math.min(20, Math.ceil(40 / Math.max(ms, 0.1))));
    }
  }
  if (want('w4')) {
    const W = js.hookgrad.w4, st = (state.hookgrad.w4 ||= W.setup(data.w4));
    await tick();
    // A sample is the mean of W4_REPS runs (each a few ms: repeated within a
    // sample as the other short steps are), each run in hg.tidy as theirs.
    const sum = [0, 0, 0];
    for (let r = 0; r < W4_REPS; r++) W.timed(st).forEach((t, k) => { sum[k] += t; });
    if (round >= 0) { w4js.build.push(sum[0] / W4_REPS); w4js.graph.push(sum[1] / W4_REPS); w4js.trace.push(sum[2] / W4_REPS); }
    if (!w4js.nodes) w4js.nodes = W.nodes(W.build(st));
  }
  if (native && round >= 0) {
    try {
      const n = runNative(['--reps', '2', '--warmup', '1', '--only', [...BASE_TASKS.filter((t) => ok(t, 'native')), ...(want('w4') ? ['w4'] : [])].join(',') || 'none']);
      for (const task of TASKS) if (n[task]) (nativeTimes[task] ||= []).push(...n[task].times);
      if (n.w4) for (const k of ['build', 'graph', 'trace']) w4native[k].push(...n.w4[k]);
      if (n.w1_deferred) for (const k of Object.keys(w1deferred)) w1deferred[k].push(...n.w1_deferred[k]);
    } catch (e) { skipped.native = e.message; native = null; }
  }
  if (torch && round >= 0) {
    const r = runTorch(torchData, BASE_TASKS.filter((t) => ok(t, 'torch')), { reps: 2, warmup: 1 });
    if (r.available) { for (const task of TASKS) if (r.tasks[task]) (torchTimes[task] ||= []).push(...r.tasks[task].times); } else { skipped.torch = r.why; torch = null; }
  }
  if (round >= 0) log(`round ${round + 1}/${ROUNDS} done (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
}
for (const task of TASKS) if (nativeTimes[task]) times[task].native = nativeTimes[task];
for (const task of TASKS) if (torchTimes[task]) times[task].torch = torchTimes[task];

// ----- memory: the wasm heap, and W1 in a synchronous loop -----------------------
// A synchronous loop never lets FinalizationRegistry callbacks run: only
// hg.tidy (and the release of the graph at the end of backward) keep the
// wasm heap flat there. Measured last, in case it leaves that heap grown.
const mem = { afterTiming: HG.wasmMemory?.buffer.byteLength };
if (want('w1') && HG.wasmMemory) {
  await tick();
  const before = HG.wasmMemory.buffer.byteLength;
  const ts = [];
  for (let k = 0; k < 10; k++) { const s = performance.now(); js.hookgrad.w1.step(state.hookgrad.w1, data.w1); ts.push(performance.now() - s); }
  mem.sync = { first: median(ts.slice(0, 3)), last: median(ts.slice(-3)), grewMB: (HG.wasmMemory.buffer.byteLength - before) / 2 ** 20, perStepMB: (HG.wasmMemory.buffer.byteLength - before) / 2 ** 20 / 10 };
}

// ----- the Python mode ------------------------------------------------------------
let python = { skipped: 'skipped (--no-python)' };
if (!flag('--no-python') && (!ONLY || want('py'))) {
  log('the Python mode: hookgrad run start-up, the PyTorch peer\'s script on Pyodide beside real PyTorch, Chromium start-up');
  try { python = await measurePython({ rounds: Math.min(ROUNDS, 5), torchData, torchAvailable: !flag('--no-torch'), log }); } catch (e) { python = { skipped: e.message }; }
  // The Python mode computes what the JS peers compute: checked against the same reference.
  if (python.check) {
    const ref = { w1: D.w1Data(), w3: D.w3Data() };
    const floor = Floor.make();
    python.checked = {};
    for (const t of Object.keys(python.check)) {
      const w = wl(t);
      const r = floor[w].step(floor[w].setup(ref[w]), ref[w], variant(t));
      python.checked[t] = compare(asResult(python.check[t]), r);
      if (!python.checked[t].ok) log(`CHECK FAILED ${t} Python mode: ${python.checked[t].why}`);
    }
  }
}

// ----- W5 sizes, W6 page --------------------------------------------------------
const sizes = {};
{
  sizes.wasm = Sizes.fileSize(HG.loaded.wasm);
  sizes.js = Sizes.sum(HG.loaded.js);
  sizes.engine = { raw: sizes.wasm.raw + sizes.js.raw, gzip: sizes.wasm.gzip + sizes.js.gzip };
  const dist = path.join(root, 'web', 'dist');
  const files = Sizes.dirFiles(dist).filter((f) => !f.endsWith('.map'));
  if (files.length) {
    sizes.site = Sizes.sum(files);
    sizes.siteFiles = files.length;
    sizes.largest = files.map((f) => ({ f: path.relative(dist, f), ...Sizes.fileSize(f) })).sort((a, b) => b.gzip - a.gzip).slice(0, 4);
  }
}
let page = { skipped: 'skipped (--no-page)' };
if (!flag('--no-page') && want('w6')) {
  try { page = await (await import('./page.mjs')).measurePage({ log }); } catch (e) { page = { skipped: e.message }; }
}

// ----- report -------------------------------------------------------------------
const med = (task, p) => (times[task]?.[p]?.length ? median(times[task][p]) : null);
// The fastest sample: on a loaded machine the least-disturbed run (a long
// step is preempted more often than a short one, which biases medians
// against the slower peer). Shown beside the median-based target figures.
const best = (task, p) => (times[task]?.[p]?.length ? Math.min(...times[task][p]) : null);
const nodesOf = (shape) => { MG.resetCount(); js.floor.w1.step(state.floor.w1 ?? js.floor.w1.setup(data.w1), data.w1, shape); return MG.created; };
const nodesW1 = nodesOf();
const cell = (task, p) => {
  if (check[task]?.[p] && !check[task][p].ok) return `check failed`;
  return fmtCell(times[task]?.[p]);
};
const row = (label, task, f = (p) => cell(task, p)) => `| ${label} | ${PEERS.map(f).join(' | ')} |`;
// µs per hook call: median over rounds of (with hooks − without), paired by
// round so both sides of each difference ran under the same machine load.
const hookUs = (task, p) => {
  const a = times[task]?.[p], b = times.w3_none?.[p];
  if (!a?.length || !b?.length) return null;
  const d = a.slice(0, Math.min(a.length, b.length)).map((x, i) => x - b[i]);
  return (median(d) * 1000) / D.W3.ops;
};
const fmtUs = (us) => (us == null ? 'n/a' : us < 0 ? `≈0 µs (${us.toFixed(2)}, within noise)` : `${us.toFixed(2)} µs`);
const nsNode = (p) => (med('w1', p) != null ? (med('w1', p) * 1e6) / nodesW1 : null);
const bestNs = (p) => (best('w1', p) != null ? (best('w1', p) * 1e6) / nodesW1 : null);
const bestHookUs = (task, p) => (best(task, p) != null && best('w3_none', p) != null ? ((best(task, p) - best('w3_none', p)) * 1000) / D.W3.ops : null);
const bestNote = (s) => (s ? `; fastest samples: ${s}` : '');

const lines = [];
const L = (s = '') => lines.push(s);
L('| workload | ' + PEERS.map((p) => LABEL[p]).join(' | ') + ' |');
L('|---|' + PEERS.map(() => '---:').join('|') + '|');
if (want('w1')) {
  L(row(`W1 scalar MLP 2→16→16→1, ms/step (${nodesW1} nodes)`, 'w1'));
  L(row('W1 ns per node', 'w1', (p) => (nsNode(p) != null ? `${nsNode(p).toFixed(0)} ns` : 'n/a')));
}
// W1's shapes (issue 31): hookgrad and the floor, ns per node of each.
const SHAPE_TASKS = TASKS.filter((t) => wl(t) === 'w1');
const SHAPE_LABEL = { w1: 'bench (add mul sub tanh, mul(1/16))', w1_mg: "micrograd's loss ((out−y).pow(2), div(n))", w1_relu: 'ending in relu', w1_sigmoid: 'ending in sigmoid', w1_exp: 'ending in exp', w1_sum: 'loss left a sum (an add root)', w1_notidy: 'bench shape without hg.tidy' };
const shapeNs = (task, p, f = med) => (f(task, p) != null ? (f(task, p) * 1e6) / nodesOf(variant(task)) : null);
const tidyShapes = SHAPE_TASKS.filter((t) => variant(t) !== 'notidy');
const fastestShape = Math.min(...tidyShapes.map((t) => shapeNs(t, 'hookgrad') ?? Infinity));
const shapeLines = SHAPE_TASKS.length > 1 ? [
  '| W1 shape | nodes | hookgrad wasm ms/step | hookgrad ns/node | plain-JS micrograd ns/node | hookgrad ÷ fastest shape in tidy | hookgrad ÷ micrograd |', '|---|---:|---:|---:|---:|---:|---:|',
  ...SHAPE_TASKS.map((t) => {
    const h = shapeNs(t, 'hookgrad'), f = shapeNs(t, 'floor');
    return `| ${SHAPE_LABEL[t] ?? t} | ${nodesOf(variant(t))} | ${cell(t, 'hookgrad')} | ${h != null ? h.toFixed(0) : 'n/a'} | ${f != null ? f.toFixed(0) : 'n/a'} | ${h != null && isFinite(fastestShape) ? `${(h / fastestShape).toFixed(2)}×` : 'n/a'} | ${h != null && f ? `${(h / f).toFixed(2)}×` : 'n/a'} |`;
  }),
] : [];
if (want('w2')) L(row('W2 tensor MLP 64×784→256→10, ms/step', 'w2'));
if (want('w3')) {
  L(row('W3 2,000-op chain, no hooks', 'w3_none'));
  L(row('W3 + hook → undefined on every op', 'w3_undef'));
  L(row('W3 + hook → g.mul(1) on every op', 'w3_mul1'));
  L(row('W3 µs per hook call (→ undefined)', 'w3_undef', (p) => (ok('w3_undef', p) ? fmtUs(hookUs('w3_undef', p)) : 'n/a')));
  L(row('W3 µs per hook call (→ g.mul(1))', 'w3_mul1', (p) => (ok('w3_mul1', p) ? fmtUs(hookUs('w3_mul1', p)) : 'n/a')));
}
if (want('w4')) {
  const w4 = (k, jsLabel) => `| W4 ${jsLabel} | ${PEERS.map((p) => (p === 'hookgrad' ? fmtCell(w4js[k]) : p === 'native' && w4native[k].length ? `${fmtCell(w4native[k])}${k === 'build' ? '' : ' (no JSON)'}` : 'n/a')).join(' | ')} |`;
  L(w4('build', `build ${w4js.nodes}-node graph`));
  L(w4('graph', '`hg.graph()` + JSON.stringify'));
  L(w4('trace', '`hg.trace(() => y.backward())` + JSON.stringify'));
}
const table = lines.join('\n');

// Ratios: peer time / hookgrad wasm time (> 1: hookgrad wasm is faster).
const ratioLines = ['| workload | ' + PEERS.filter((p) => p !== 'hookgrad').map((p) => LABEL[p]).join(' | ') + ' |', '|---|' + PEERS.filter((p) => p !== 'hookgrad').map(() => '---:').join('|') + '|'];
for (const [task, label] of [['w1', 'W1'], ['w2', 'W2'], ['w3_none', 'W3 no hooks'], ['w3_undef', 'W3 hook → undefined'], ['w3_mul1', 'W3 hook → g.mul(1)']]) {
  if (!TASKS.includes(task)) continue;
  const h = med(task, 'hookgrad');
  ratioLines.push(`| ${label} | ${PEERS.filter((p) => p !== 'hookgrad').map((p) => (h && med(task, p) ? `${(med(task, p) / h).toFixed(2)}×` : 'n/a')).join(' | ')} |`);
}

// Targets (issue 5, item 4).
const T = [];
const tgt = (name, measured, met) => T.push(`| ${name} | ${measured} | ${met == null ? 'n/a' : met ? 'met' : '**missed**'} |`);
if (want('w1')) {
  const r = nsNode('floor') && nsNode('hookgrad') ? nsNode('hookgrad') / nsNode('floor') : null;
  tgt('W1 faster per node than plain JS', r ? `${nsNode('hookgrad').toFixed(0)} vs ${nsNode('floor').toFixed(0)} ns/node (${r.toFixed(1)}× slower than the floor)`.replace(`(${r.toFixed(1)}× slower than the floor)`, r > 1 ? `(${r.toFixed(1)}× slower than the floor)` : `(${(1 / r).toFixed(1)}× faster)`) : 'n/a', r ? r < 1 : null);
  if (bestNs('hookgrad') && bestNs('floor')) T[T.length - 1] = T[T.length - 1].replace(/ \| (met|\*\*missed\*\*) \|$/, `${bestNote(`${bestNs('hookgrad').toFixed(0)} vs ${bestNs('floor').toFixed(0)} ns/node`)} | $1 |`);
  const q = med('w1', 'tfcpu') && med('w1', 'hookgrad') ? med('w1', 'tfcpu') / med('w1', 'hookgrad') : null;
  tgt('W1 ≥ 20× TF.js cpu (issue 5)', q ? `${q.toFixed(1)}×` : 'n/a', q ? q >= 20 : null);
  const pt = med('w1', 'torch') && med('w1', 'hookgrad') ? med('w1', 'torch') / med('w1', 'hookgrad') : null;
  const ptBest = best('w1', 'torch') && best('w1', 'hookgrad') ? best('w1', 'torch') / best('w1', 'hookgrad') : null;
  tgt('W1 ≥ 10× PyTorch 1-thread', pt ? `${pt.toFixed(1)}× (${fmtMs(med('w1', 'hookgrad'))} vs ${fmtMs(med('w1', 'torch'))}${bestNote(ptBest && `${ptBest.toFixed(1)}×`)})` : `n/a (${skipped.torch ?? 'no data'})`, pt ? pt >= 10 : null);
}
if (SHAPE_TASKS.length > 1) {
  const worst = Math.max(...tidyShapes.map((t) => shapeNs(t, 'hookgrad') ?? Infinity));
  tgt('W1: every shape in tidy within 1.5× of the fastest (issue 31)', isFinite(worst) ? `slowest ${worst.toFixed(0)} vs fastest ${fastestShape.toFixed(0)} ns/node (${(worst / fastestShape).toFixed(2)}×)` : 'n/a', isFinite(worst) ? worst <= 1.5 * fastestShape : null);
  const vsFloor = tidyShapes.map((t) => (shapeNs(t, 'hookgrad') ?? Infinity) / (shapeNs(t, 'floor') ?? NaN));
  const w = Math.max(...vsFloor);
  tgt('W1: every shape in tidy at least as fast per node as plain-JS micrograd (issue 31)', isFinite(w) ? `worst ${w.toFixed(2)}× the floor's time per node` : 'n/a', isFinite(w) ? w <= 1 : null);
}
if (want('w2')) {
  const q = med('w2', 'tfwasm') && med('w2', 'hookgrad') ? med('w2', 'tfwasm') / med('w2', 'hookgrad') : null;
  tgt('W2 faster than TF.js wasm', q ? `${fmtMs(med('w2', 'hookgrad'))} vs ${fmtMs(med('w2', 'tfwasm'))} (${q >= 1 ? `${q.toFixed(2)}× faster` : `${(1 / q).toFixed(1)}× slower`})` : 'n/a', q ? q > 1 : null);
}
if (want('w3')) for (const t of ['w3_undef', 'w3_mul1']) { const u = hookUs(t, 'hookgrad'); const b = bestHookUs(t, 'hookgrad'); tgt(`W3 < 1 µs per JS hook call (${t === 'w3_undef' ? '→ undefined' : '→ g.mul(1)'})`, `${fmtUs(u)}${bestNote(b != null && fmtUs(b))}`, u != null ? u < 1 : null); }
if (want('w4')) for (const [k, n, lim] of [['build', 'build', 10], ['graph', 'graph()+JSON', 3], ['trace', 'trace()+JSON', 3]]) { const m = w4js[k].length ? median(w4js[k]) : null; tgt(`W4 ${n} < ${lim} ms`, `${fmtMs(m)}${bestNote(m != null && fmtMs(Math.min(...w4js[k])))}`, m != null ? m < lim : null); }
tgt('W5 engine wasm + JS glue ≤ 180 KB gzip (issue 31; the Python mode\'s files not counted)', fmtBytes(sizes.engine.gzip), sizes.engine.gzip <= 180 * 1024);
// "The whole page": everything the playground fetches on a cold load (page.mjs
// lists it), not the whole site, which also holds the tutorials, the npm
// package's README and type declarations that no page fetches.
const distDir = path.join(root, 'web', 'dist');
/** The requested files that web/dist holds, as paths. */
const inDist = (names) => names.map((f) => path.join(distDir, f)).filter((p) => fs.existsSync(p) && fs.statSync(p).isFile());
const pageSizes = (page.pages || []).map((pg) => {
  const files = inDist(pg.files);
  return { name: pg.name, n: files.length, missing: pg.files.length - files.length, all: Sizes.sum(files), first: pg.firstFiles ? Sizes.sum(inDist(pg.firstFiles)) : null };
});
const playground = pageSizes.find((p) => p.name === 'playground.html');
if (playground) tgt('W5 whole page ≤ 400 KB gzip (the playground as loaded)', `${fmtBytes(playground.all.gzip)} (${playground.n} files${playground.first ? `; ${fmtBytes(playground.first.gzip)} by its first graph` : ''}); the whole site: ${sizes.site ? fmtBytes(sizes.site.gzip) : 'n/a'}`, playground.all.gzip <= 400 * 1024);
else tgt('W5 whole page ≤ 400 KB gzip', `n/a (${page.skipped ?? 'no page weight'}); the whole site: ${sizes.site ? fmtBytes(sizes.site.gzip) : 'n/a (web/dist not built)'}`, null);
if (page.firstGraphMs != null) tgt('W6 first graph < 1 s', fmtMs(page.firstGraphMs), page.firstGraphMs < 1000); else tgt('W6 first graph < 1 s', `n/a (${page.skipped ?? page.firstGraphSkipped})`, null);
if (page.fps != null) tgt('W6 ≥ 50 fps animating 300 nodes', `${page.fps.toFixed(page.fps < 10 ? 1 : 0)} fps`, page.fps >= 50); else tgt('W6 ≥ 50 fps animating 300 nodes', `n/a (${page.skipped ?? page.fpsSkipped})`, null);

const pythonLines = pythonReport(python, { nodesW1, ops: D.W3.ops, fmtMs, tgt });

const checkLines = ['| workload | ' + PEERS.map((p) => LABEL[p]).join(' | ') + ' |', '|---|' + PEERS.map(() => '---:').join('|') + '|'];
for (const task of TASKS) {
  checkLines.push(`| ${task} | ${PEERS.map((p) => { const c = check[task][p]; return !c ? (skipped[p] ? 'n/a' : '—') : c.ok ? (c.ref === p ? 'reference' : c.err.toExponential(1)) : `FAIL: ${c.why}`; }).join(' | ')} |`);
}

const sizeLines = [
  '| artifact | raw | gzip -9 |', '|---|---:|---:|',
  `| web/pkg hookgrad_bg.wasm (as benchmarked) | ${fmtBytes(sizes.wasm.raw)} | ${fmtBytes(sizes.wasm.gzip)} |`,
  `| web/pkg JS (glue + facade) | ${fmtBytes(sizes.js.raw)} | ${fmtBytes(sizes.js.gzip)} |`,
  `| engine total | ${fmtBytes(sizes.engine.raw)} | ${fmtBytes(sizes.engine.gzip)} |`,
  sizes.site ? `| built site web/dist (${sizes.siteFiles} files, all) | ${fmtBytes(sizes.site.raw)} | ${fmtBytes(sizes.site.gzip)} |` : '| built site web/dist | n/a (not built) | |',
  ...(sizes.largest || []).map((x) => `| &nbsp;&nbsp;largest: ${x.f} | ${fmtBytes(x.raw)} | ${fmtBytes(x.gzip)} |`),
  ...pageSizes.flatMap((p) => [
    `| ${p.name} as loaded, cold (${p.n} files${p.missing ? `; ${p.missing} requested files not in web/dist` : ''}) | ${fmtBytes(p.all.raw)} | ${fmtBytes(p.all.gzip)} |`,
    ...(p.first ? [`| &nbsp;&nbsp;of it, arrived by the first graph drawn | ${fmtBytes(p.first.raw)} | ${fmtBytes(p.first.gzip)} |`] : []),
  ]),
];

const pageLines = page.skipped ? [`W6: n/a (${page.skipped})`] : [
  '| page metric | value |', '|---|---:|',
  `| navigation → first graph drawn (default lesson) | ${page.firstGraphMs != null ? `${fmtMs(page.firstGraphMs)}${page.firstGraphRuns ? ` (median of ${page.firstGraphRuns} loads)` : ''}` : `n/a (${page.firstGraphSkipped})`} |`,
  `| embed (embed.html#lesson=1): navigation → first figure drawn | ${page.embedFirstMs != null ? `${fmtMs(page.embedFirstMs)} (median of ${page.embedFirstRuns} loads)` : 'n/a'} |`,
  `| fps animating the backward pass of a ${page.nodes ?? 300}-node graph | ${page.fps != null ? `${page.fps.toFixed(1)} fps (median frame ${page.frameMs?.toFixed(1)} ms, p95 ${page.frameP95?.toFixed(1)} ms)` : `n/a (${page.fpsSkipped})`} |`,
  `| click on "Python" → interpreter ready (Pyodide + torch shim in the sandbox), uncached / cached | ${page.python ? `${fmtMs(page.python.coldMs)} / ${fmtMs(page.python.warmMs)}` : 'n/a'} |`,
  `| 2,000-node graph: navigation → first overview drawn | ${page.bigFirstOverviewMs != null ? fmtMs(page.bigFirstOverviewMs) : `n/a (${page.bigSkipped ?? page.skipped})`} |`,
  `| 2,000-node graph: run end → first overview drawn | ${page.bigAfterRunMs != null ? fmtMs(page.bigAfterRunMs) : 'n/a'} |`,
  `| 2,000-node graph: longest main-thread task, page load → overview / while playing | ${page.bigLongestTaskMs != null ? `${page.bigLongestTaskMs} ms / ${page.bigPlayLongestTaskMs} ms (longtask observer; 0 = none over 50 ms)` : 'n/a'} |`,
  `| fps animating the backward pass of a ${page.bigNodes ?? 2000}-node graph | ${page.bigFps != null ? `${page.bigFps.toFixed(1)} fps (median frame ${page.bigFrameMs?.toFixed(1)} ms, p95 ${page.bigFrameP95?.toFixed(1)} ms)` : 'n/a'} |`,
  ...(page.bigNote ? [`| note | ${page.bigNote} |`] : []),
  ...(page.notes || []).map((n) => `| note | ${n} |`),
];

let commit = '';
try { commit = execSync('git rev-parse --short HEAD', { cwd: root, encoding: 'utf8' }).trim(); } catch {}
const cpus = os.cpus();
const machine = [
  `- CPU: ${cpus[0]?.model ?? 'unknown'}, ${cpus.length} cores (os.cpus); ${(os.totalmem() / 2 ** 30).toFixed(1)} GB RAM; ${os.type()} ${os.release()} ${os.arch()}`,
  `- Node ${process.version}; TF.js ${tf.version.tfjs}; hookgrad ${commit || '(no git)'}; rustc ${(() => { try { return execSync('rustc --version', { encoding: 'utf8' }).trim().split(' ')[1]; } catch { return '?'; } })()}`,
  `- web/pkg/hookgrad_bg.wasm as loaded: ${wasmStat.size} bytes, built ${wasmStat.mtime.toISOString()}`,
  `- Date: ${new Date().toISOString()}; load average at start ${loadStart.map((x) => x.toFixed(2)).join(' ')}, at end ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`,
  `- PyTorch: ${torch || Object.keys(torchTimes).length ? `${torch?.version ?? ''}, torch.set_num_threads(1), python3 subprocess per round (1 warm-up + 2 timed samples each, steps repeated within a sample to ≥ ~40 ms)` : `n/a (${skipped.torch})`}`,
  `- ${ROUNDS} timed rounds per peer and workload (interleaved round-robin, peer order rotated each round, after one check run and one warm-up; steps shorter than ~40 ms are repeated within a sample, up to 20×); native: ${native || Object.keys(nativeTimes).length ? `2 reps per round in a fresh process (1 warm-up each), ${2 * ROUNDS} in all` : `n/a (${skipped.native})`}. Cells: median ±half the interquartile range as % of the median.`,
];

// What W1's step costs in the core alone: the path the wasm's typed ops take
// (deferred entries, backward on numbers), built natively at opt-level 3, so
// the gap to the wasm figure is wasm + the JS boundary (bench/PROFILE.md).
function w1DeferredLine() {
  const m = Object.fromEntries(Object.entries(w1deferred).map(([k, v]) => [k, median(v)]));
  const all = m.forward + m.backward + m.teardown;
  const ns = (all * 1e6) / nodesW1;
  return `The W1 step on the core's deferred path (what the wasm's typed ops run), built natively at opt-level 3 with no wasm and no JS (bench/native, ${w1deferred.forward.length} samples, loss and gradients checked bit for bit against the eager step): build ${fmtMs(m.forward)}, backward ${fmtMs(m.backward)}, dropping the step's handles ${fmtMs(m.teardown)}: ${fmtMs(all)}, ${ns.toFixed(0)} ns/node${nsNode('floor') ? ` (plain-JS micrograd ${nsNode('floor').toFixed(0)}, hookgrad wasm ${nsNode('hookgrad')?.toFixed(0) ?? 'n/a'})` : ''}.`;
}

const busy = Math.max(loadStart[0], os.loadavg()[0]) > cpus.length;
if (busy) machine.push(`- **The machine was busy** (1-minute load average above its ${cpus.length} cores): absolute times are inflated and spreads wide; ratios within this run (interleaved) are the more reliable figures.`);
const md = [
  '# hookgrad benchmarks', '',
  `Written by \`npm run bench\` (bench/run.mjs) — ${((performance.now() - t0) / 1000).toFixed(0)} s for this run. Workloads and method: bench/README.md.`, '',
  '## Machine', '', ...machine, '',
  '## Times (forward + backward, every gradient read back)', '', table, '',
  ...(shapeLines.length ? ['## W1 shapes (issue 31: no op makes a graph slower)', '', 'Each shape of W1 (lib/data.mjs `W1_SHAPES`) on hookgrad wasm and the plain-JS floor, interleaved with the rest; "in tidy" unless the shape says otherwise.', '', ...shapeLines, ''] : []),
  '## Ratios: peer time ÷ hookgrad wasm time (> 1× means hookgrad wasm is faster)', '', ...ratioLines, '',
  ...(w1deferred.forward.length ? ['## W1 without wasm and JS', '', w1DeferredLine(), ''] : []),
  '## Targets (issues 5 and 10)', '', 'Status from the medians; the fastest samples (the least-disturbed runs on a shared machine) are given beside them. What stands in the way of each missed target, from callgrind and the V8/Chromium profilers: [PROFILE.md](PROFILE.md).', '', '| target | measured | status |', '|---|---|---|', ...T, '',
  '## Python mode (issue 29): the same PyTorch script in CPython and on hookgrad', '', 'bench/peers/torch_peer.py, unchanged, runs in real PyTorch (one thread) and in hookgrad\'s Python mode (Pyodide, the torch shim, the engine), interleaved round by round; each checks its own loss and gradients against the JS peers\' reference before timing.', '', ...pythonLines, '',
  '## Correctness check before timing', '',
  'Max relative error against the reference (loss, and each gradient tensor as max|Δ| / max|ref|); a peer over 1e-3 is not timed.', '', ...checkLines, '',
  '## Memory (hookgrad wasm)', '',
  `- wasm memory after the timed rounds (which yield to the event loop between steps): ${mem.afterTiming ? `${(mem.afterTiming / 2 ** 20).toFixed(0)} MB` : 'n/a'}`,
  mem.sync ? `- W1 ten times in a synchronous loop (no yield, each step in hg.tidy as in the timed rounds): the wasm heap grew ${mem.sync.grewMB.toFixed(1)} MB (${mem.sync.perStepMB.toFixed(2)} MB per step) and a step went from ${fmtMs(mem.sync.first)} (median of steps 1–3) to ${fmtMs(mem.sync.last)} (steps 8–10).` : '- W1 synchronous loop: n/a',
  '',
  '## W5 sizes', '', ...sizeLines, '',
  '## W6 page (Playwright, headless Chromium)', '', ...pageLines, '',
].join('\n');

// Only a complete run replaces RESULTS.md (partial runs just print).
const complete = !ONLY && !flag('--no-native') && !flag('--no-page');
if (complete) fs.writeFileSync(path.join(here, 'RESULTS.md'), md);
process.stdout.write(md + '\n');
log(`done in ${((performance.now() - t0) / 1000).toFixed(0)} s; ${complete ? 'wrote bench/RESULTS.md' : 'partial run: bench/RESULTS.md left as it was'}`);
process.exit(0);
