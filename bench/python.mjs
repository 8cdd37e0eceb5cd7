// The Python mode's rows of `npm run bench`: the same script
// (bench/peers/torch_peer.py) run by real PyTorch on one thread in CPython and
// by hookgrad's Python mode (Pyodide + the torch shim over the engine),
// interleaved round by round; and the time until Python is ready: `hookgrad
// run` of a one-line script in Node, and loadPython() in Chromium from a
// local server, with an empty and with a warm HTTP cache.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http from 'node:http';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { median } from './lib/stats.mjs';
import { runTorch } from './lib/torch.mjs';
import { loadPythonPeer, runPythonPeer } from './peers/hookgrad_python.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = path.join(root, 'web', 'pkg');
const TASKS = ['w1', 'w3_none', 'w3_undef', 'w3_mul1'];

/** Wall-clock of `hookgrad run` on a one-line script, fresh process each: ms[]. */
function cliStart(n = 3) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hg-py-'));
  const file = path.join(dir, 'one.py');
  fs.writeFileSync(file, 'import torch; print(torch.tensor([1.0, 2.0]) * 2)\n');
  const out = [];
  for (let k = 0; k < n; k++) {
    const s = performance.now();
    const r = spawnSync(process.execPath, [path.join(pkg, 'bin', 'hookgrad.mjs'), 'run', file], { encoding: 'utf8' });
    if (r.status !== 0 || r.stdout !== 'tensor([2., 4.])\n') throw new Error(`hookgrad run failed: ${r.stderr || r.stdout}`);
    out.push(performance.now() - s);
  }
  return out;
}

/** loadPython() in headless Chromium from a local server (web/pkg and the pyodide package): {uncached, cached} ms. */
async function browserStart(log) {
  const { chromium } = await import('playwright-core');
  const pyodideDir = path.join(root, 'node_modules', 'pyodide');
  const page = `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script type="module">
const t0 = performance.now();
const hg = await import('/pkg/hookgrad.js'); await hg.default();
const { loadPython } = await import('/pkg/python.js');
const py = await loadPython({ hg, indexURL: '/pyodide/' });
const r = py.run('import torch\\nprint(torch.tensor(2.0) * 3)');
window.result = { ms: performance.now() - t0, out: r.stdout };
</script>`;
  const types = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json', '.zip': 'application/zip', '.html': 'text/html' };
  const server = http.createServer((req, res) => {
    const url = decodeURIComponent(req.url.split('?')[0]);
    let file = null;
    if (url === '/') { res.writeHead(200, { 'content-type': 'text/html', 'cache-control': 'no-store' }); res.end(page); return; }
    if (url.startsWith('/pkg/')) file = path.join(pkg, url.slice(5));
    else if (url.startsWith('/pyodide/')) file = path.join(pyodideDir, url.slice(9));
    if (!file || !file.startsWith(root) || !fs.existsSync(file)) { res.writeHead(404); res.end(); return; }
    res.writeHead(200, { 'content-type': types[path.extname(file)] || 'application/octet-stream', 'cache-control': 'public, max-age=3600' });
    fs.createReadStream(file).pipe(res);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${server.address().port}/`;
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  const once = async (p) => {
    await p.goto(base);
    await p.waitForFunction(() => window.result, null, { timeout: 120_000 });
    const r = await p.evaluate(() => window.result);
    if (r.out !== 'tensor(6.)\n') throw new Error(`Python in Chromium printed ${JSON.stringify(r.out)}`);
    return r.ms;
  };
  try {
    const uncached = []; const cached = [];
    for (let k = 0; k < 3; k++) {
      const ctx = await browser.newContext();
      const p = await ctx.newPage();
      uncached.push(await once(p));
      cached.push(await once(p)); // same context: Pyodide's files from the HTTP cache
      await ctx.close();
    }
    return { uncached, cached };
  } finally {
    await browser.close();
    server.close();
  }
}

export async function measurePython({ rounds, torchData, torchAvailable, log }) {
  const out = { tasks: {}, torch: {}, notes: [] };
  try { out.cli = cliStart(); } catch (e) { out.notes.push(`hookgrad run: ${e.message}`); }
  const { py, readyMs } = await loadPythonPeer(pkg);
  out.readyInProcess = readyMs;
  const first = runPythonPeer(py, torchData, TASKS, { reps: 0, warmup: 0 });
  if (!first.available) { out.skipped = first.why; return out; }
  out.check = first.tasks;
  for (let round = 0; round < rounds; round++) {
    const a = runPythonPeer(py, torchData, TASKS, { reps: 2, warmup: 1 });
    for (const t of TASKS) if (a.tasks?.[t]) (out.tasks[t] ||= []).push(...a.tasks[t].times);
    if (torchAvailable) {
      const b = runTorch(torchData, TASKS, { reps: 2, warmup: 1 });
      if (b.available) for (const t of TASKS) if (b.tasks[t]) (out.torch[t] ||= []).push(...b.tasks[t].times);
      else out.torchSkipped = b.why;
    }
    log(`Python mode round ${round + 1}/${rounds}`);
  }
  try { out.browser = await browserStart(log); } catch (e) { out.notes.push(`Chromium: ${e.message}`); }
  return out;
}

/** Markdown lines and target rows from measurePython's result. */
export function pythonReport(r, { nodesW1, ops, fmtMs, tgt }) {
  if (r.skipped) return [`Python mode: n/a (${r.skipped})`];
  const med = (xs) => (xs?.length ? median(xs) : null);
  const perNode = (xs) => (med(xs) != null ? (med(xs) * 1e6) / nodesW1 : null);
  const hookUs = (set, t) => {
    const a = set[t], b = set.w3_none;
    if (!a?.length || !b?.length) return null;
    const d = a.slice(0, Math.min(a.length, b.length)).map((x, i) => x - b[i]);
    return (median(d) * 1000) / ops;
  };
  const us = (x) => (x == null ? 'n/a' : `${x.toFixed(2)} µs`);
  const ns = (x) => (x == null ? 'n/a' : `${x.toFixed(0)} ns`);
  const lines = [
    '| the same script (bench/peers/torch_peer.py) | hookgrad Python mode | PyTorch 1-thread (CPython) |', '|---|---:|---:|',
    `| W1 scalar MLP, ms/step | ${fmtMs(med(r.tasks.w1))} | ${fmtMs(med(r.torch.w1))} |`,
    `| W1 per graph node | ${ns(perNode(r.tasks.w1))} | ${ns(perNode(r.torch.w1))} |`,
    `| W3 2,000-op chain, no hooks, ms | ${fmtMs(med(r.tasks.w3_none))} | ${fmtMs(med(r.torch.w3_none))} |`,
    `| W3 µs per Python hook call (→ None) | ${us(hookUs(r.tasks, 'w3_undef'))} | ${us(hookUs(r.torch, 'w3_undef'))} |`,
    `| W3 µs per Python hook call (→ g.mul(1)) | ${us(hookUs(r.tasks, 'w3_mul1'))} | ${us(hookUs(r.torch, 'w3_mul1'))} |`,
    '', '| Python ready | time |', '|---|---:|',
    `| Node: \`hookgrad run\` of a one-line script, whole process (median of ${r.cli?.length ?? 0}) | ${fmtMs(med(r.cli))} |`,
    `| Node: loadPython() in a running process | ${fmtMs(r.readyInProcess)} |`,
    `| Chromium, local server, empty cache: page start → loadPython() ready and a first print | ${fmtMs(med(r.browser?.uncached))} |`,
    `| Chromium, same, warm HTTP cache | ${fmtMs(med(r.browser?.cached))} |`,
    ...r.notes.map((n) => `| note | ${n} |`),
    ...(r.checked ? ['', `Checked before timing against the plain-JS reference (max relative error): ${Object.entries(r.checked).map(([t, c]) => `${t} ${c.ok ? c.err.toExponential(1) : `FAIL (${c.why})`}`).join(', ')}.`] : []),
  ];
  const w1 = med(r.tasks.w1), t1 = med(r.torch.w1);
  tgt('Python W1 per node at least as fast as PyTorch 1-thread (same script)', w1 && t1 ? `${ns(perNode(r.tasks.w1))} vs ${ns(perNode(r.torch.w1))} (${(t1 / w1).toFixed(2)}×)` : 'n/a', w1 && t1 ? w1 <= t1 : null);
  for (const t of ['w3_undef', 'w3_mul1']) {
    const a = hookUs(r.tasks, t), b = hookUs(r.torch, t);
    tgt(`Python hook call (${t === 'w3_undef' ? '→ None' : '→ g.mul(1)'}) at least as fast as PyTorch's`, `${us(a)} vs ${us(b)}`, a != null && b != null ? a <= b : null);
  }
  return lines;
}
