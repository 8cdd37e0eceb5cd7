// W6: the playground in headless Chromium (playwright-core + /usr/bin/chromium)
// against the built site (web/dist) served by scripts/serve.mjs on 127.0.0.1.
//  - first graph: navigation start → the first backward node of the default
//    lesson in the SVG (MutationObserver), plus the next animation frame
//    (so the time includes that the graph was painted), fresh context per load;
//  - fps: a program with a 300-node backward graph opened from a #s= link,
//    played at the fastest speed; requestAnimationFrame timestamps over a
//    window while it animates give fps and frame-time percentiles.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median } from './lib/stats.mjs';
import { measurePythonReady } from './python-ready.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

// 99 rounds of tanh(y*w + x), then sum: 298 op nodes + 2 AccumulateGrad = 300.
export const PROGRAM_300 = `// W6: a 300-node backward graph
const x = hg.tensor([0.5, -0.25], { requiresGrad: true, name: 'x' });
const w = hg.tensor([0.9, 1.1], { requiresGrad: true, name: 'w' });
let y = x;
for (let i = 0; i < 99; i++) y = y.mul(w).add(x).tanh();
const loss = y.sum(); loss.name = 'loss';
loss.backward();
`;

// 1,000 leaves summed in a chain, times 2: 1,000 AccumulateGrad + 999 AddBackward0 + 1 MulBackward0 = 2,000 backward nodes.
export const PROGRAM_2000 = `// a 2,000-node backward graph
let s = hg.tensor(0, { requiresGrad: true, name: 'x0' });
for (let i = 1; i < 1000; i++) { const x = hg.tensor(i / 1000, { requiresGrad: true, name: 'x' + i }); s = s.add(x); s.name = 's' + i; }
const loss = s.mul(2); loss.name = 'loss';
loss.backward();
`;

const b64url = (s) => Buffer.from(s, 'utf8').toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

export function startServer() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'scripts', 'serve.mjs')], { env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => { child.kill(); reject(new Error('serve.mjs did not print its URL')); }, 10000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/http:\/\/127\.0\.0\.1:\d+\//);
      if (m) { clearTimeout(timer); resolve({ child, url: m[0] }); }
    });
    child.on('exit', (c) => { clearTimeout(timer); reject(new Error(`serve.mjs exited (${c})`)); });
  });
}

export const OBSERVE = () => {
  window.__firstGraph = null;
  const look = () => {
    if (window.__firstGraph == null && document.querySelector('#graph .bnode')) {
      const seen = performance.now();
      window.__firstGraph = { seen };
      requestAnimationFrame(() => { window.__firstGraph.painted = performance.now(); console.debug('hookgrad-bench:first-graph'); });
      return true;
    }
    return false;
  };
  new MutationObserver((_, obs) => { if (look()) obs.disconnect(); }).observe(document, { childList: true, subtree: true });
};

/**
 * Resolves when OBSERVE has seen the first graph painted, told by a console
 * message. Not page.waitForFunction: its injected script (~40 ms of compile,
 * 57 ms in all in a trace at load 5) ran on the page's main thread in the
 * middle of the measured load, while the page was parsed. Call before
 * page.goto, await after.
 */
export function firstGraphPainted(page, timeout = 15000) {
  return page.waitForEvent('console', { predicate: (m) => m.text() === 'hookgrad-bench:first-graph', timeout });
}

/** navigation → first graph painted (OBSERVE) on a cold load of `pageUrl` in a fresh context. */
export async function coldFirstGraph(browser, pageUrl) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await ctx.newPage();
    await page.addInitScript(OBSERVE);
    const painted = firstGraphPainted(page);
    painted.catch(() => {});
    await page.goto(pageUrl, { waitUntil: 'commit' });
    await painted;
    return await page.evaluate(() => window.__firstGraph.painted);
  } finally { await ctx.close(); }
}

/** Renderer main-thread time by timeline event name (complete events), top 10. */
function topEvents(trace) {
  const ev = (trace.traceEvents || trace).filter((e) => e.ph === 'X' && e.dur && /CrRendererMain/.test(String(e.tid)) === false);
  const main = new Map();
  const threads = new Map();
  for (const e of trace.traceEvents || trace) if (e.ph === 'M' && e.name === 'thread_name') threads.set(`${e.pid}:${e.tid}`, e.args.name);
  for (const e of ev) {
    if (threads.get(`${e.pid}:${e.tid}`) !== 'CrRendererMain') continue;
    main.set(e.name, (main.get(e.name) || 0) + e.dur / 1000);
  }
  return [...main.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([k, ms]) => `${k}: ${ms.toFixed(0)} ms`);
}

/** Self time by function (and url:line) from a CDP CPU profile, top 12. */
function topSelf(prof) {
  const self = new Map();
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const dt = prof.timeDeltas;
  for (let i = 0; i < prof.samples.length; i++) {
    const n = byId.get(prof.samples[i]);
    const cf = n.callFrame;
    const key = `${cf.functionName || '(anonymous)'} ${cf.url ? `${cf.url.split('/').pop()}:${cf.lineNumber + 1}` : ''}`.trim();
    self.set(key, (self.get(key) || 0) + (dt[i] || 0) / 1000);
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  return [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([k, ms]) => `${k}: ${ms.toFixed(0)} ms (${((100 * ms) / total).toFixed(0)}%)`);
}

export async function measurePage({ log = () => {}, loads = 3, windowMs = 4000, profile = process.env.BENCH_PAGE_PROFILE } = {}) {
  if (!fs.existsSync(path.join(root, 'web', 'dist', 'index.html'))) throw new Error('web/dist is not built (npm run build)');
  if (!fs.existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}`);
  let chromium;
  try { ({ chromium } = await import('playwright-core')); } catch { throw new Error('playwright-core is not installed'); }
  const { child, url } = await startServer();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
  const res = { notes: [] };
  try {
    // -- first graph, default lesson, fresh context each time (cold cache)
    const firsts = [];
    for (let i = 0; i < loads; i++) {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await ctx.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.addInitScript(OBSERVE);
      const painted = firstGraphPainted(page);
      painted.catch(() => {});
      await page.goto(`${url}playground.html`, { waitUntil: 'commit' });
      try {
        await painted;
        firsts.push(await page.evaluate(() => window.__firstGraph.painted));
        if (i === loads - 1) {
          // Where the first-graph time goes: when each resource arrived, DOMContentLoaded.
          const marks = await page.evaluate(() => {
            const nav = performance.getEntriesByType('navigation')[0];
            const rs = performance.getEntriesByType('resource').map((r) => `${r.name.split('/').pop()} ${r.responseEnd.toFixed(0)}`);
            return { dcl: nav?.domContentLoadedEventEnd, rs };
          });
          res.notes.push(`last cold load: DOMContentLoaded ${marks.dcl?.toFixed(0)} ms; resources done at (ms): ${marks.rs.join(', ')}`);
        }
      } catch {
        res.firstGraphSkipped = `no backward node (#graph .bnode) appeared within 15 s${errors.length ? `; page error: ${errors[0]}` : ''}`;
      }
      await ctx.close();
      if (res.firstGraphSkipped) break;
    }
    if (firsts.length) { res.firstGraphMs = median(firsts); res.firstGraphRuns = firsts.length; res.notes.push(`first-graph loads: ${firsts.map((x) => x.toFixed(0)).join(', ')} ms (cold cache each)`); }
    log(`W6 first graph: ${firsts.map((x) => x.toFixed(0)).join(', ')} ms`);

    // -- an embed's first figure (embed.html#lesson=1, as a blog's <iframe> or
    // <hookgrad-playground> opens it), fresh context each time
    const embeds = [];
    for (let i = 0; i < loads; i++) {
      try { embeds.push(await coldFirstGraph(browser, `${url}embed.html#lesson=1`)); } catch (e) { res.notes.push(`embed first figure: ${e.message.split('\n')[0]}`); break; }
    }
    if (embeds.length) { res.embedFirstMs = median(embeds); res.embedFirstRuns = embeds.length; }
    log(`embed first figure: ${embeds.map((x) => x.toFixed(0)).join(', ')} ms`);

    // -- what a page fetches (W5 "the whole page"): every resource a cold load
    // requests until the network has been quiet for a second
    res.pages = [];
    for (const name of PAGES) {
      try { res.pages.push(await pageWeight(browser, url, name)); } catch (e) { res.notes.push(`page weight of ${name}: ${e.message}`); }
    }

    // -- fps while animating the backward pass of a 300-node graph
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await ctx.newPage();
    const hash = `#s=${b64url(JSON.stringify({ v: 1, program: PROGRAM_300, semantics: 'pytorch-2' }))}`;
    await page.goto(`${url}playground.html${hash}`, { waitUntil: 'load' });
    // A program from a link waits for the reader's click (web/src/model/trust.js).
    await page.getByRole('button', { name: 'Run this program' }).click({ timeout: 10000 }).catch(() => {});
    try {
      await page.waitForFunction(() => document.querySelectorAll('#graph .bnode').length >= 300, null, { timeout: 30000 });
    } catch {
      const n = await page.evaluate(() => document.querySelectorAll('#graph .bnode').length);
      res.fpsSkipped = `the 300-node program drew ${n} backward nodes`;
    }
    if (!res.fpsSkipped) {
      res.nodes = await page.evaluate(() => document.querySelectorAll('#graph .bnode').length);
      const speed = await page.$('#speed');
      if (speed) { const opts = await page.$$eval('#speed option', (os) => os.map((o) => o.value)); await page.selectOption('#speed', opts[opts.length - 1]); }
      const before = await page.evaluate(() => document.getElementById('step-count')?.textContent);
      let cdp = null;
      if (profile === 'trace') await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline'] });
      else if (profile) { cdp = await ctx.newCDPSession(page); await cdp.send('Profiler.enable'); await cdp.send('Profiler.setSamplingInterval', { interval: 200 }); await cdp.send('Profiler.start'); }
      await page.click('#play-btn');
      const r = await page.evaluate((ms) => new Promise((resolve) => {
        const ts = [performance.now()];
        const f = (t) => { ts.push(t); if (t - ts[0] < ms) requestAnimationFrame(f); else resolve({ ts, step: document.getElementById('step-count')?.textContent }); };
        requestAnimationFrame(f);
      }), windowMs);
      if (cdp) { const { profile: prof } = await cdp.send('Profiler.stop'); res.profile = topSelf(prof); }
      if (profile === 'trace') res.timeline = topEvents(JSON.parse((await browser.stopTracing()).toString()));
      const dts = r.ts.slice(1).map((t, i) => t - r.ts[i]).sort((a, b) => a - b);
      const span = r.ts[r.ts.length - 1] - r.ts[0];
      res.fps = (1000 * (r.ts.length - 1)) / span;
      res.frameMs = median(dts);
      res.frameP95 = dts[Math.max(0, Math.ceil(0.95 * dts.length) - 1)]; // nearest rank
      res.notes.push(`${r.ts.length - 1} frames in ${span.toFixed(0)} ms; longest frame ${dts[dts.length - 1].toFixed(0)} ms`);
      res.notes.push(`fps window ${windowMs} ms while playing the backward pass at the fastest speed; step counter ${before} → ${r.step}`);
      if (before === r.step) res.notes.push('the step counter did not move: the animation may not have started');
      log(`W6 fps: ${res.fps.toFixed(1)} (${before} → ${r.step})`);
    }
    await ctx.close();

    // -- Python: from the click on "Python" to a ready interpreter (uncached, cached)
    try { res.python = await measurePythonReady(browser, url, { log }); } catch (e) { res.notes.push(`Python ready: ${e.message.split('\n')[0]}`); }

    // -- 2,000 nodes: the overview (big graphs: canvas + layered layout), then fps while playing
    const big = await measureBig(browser, url, { windowMs, log });
    Object.assign(res, big);
  } finally {
    await browser.close();
    child.kill();
  }
  return res;
}

// The pages whose weight the bench reports: the playground (the W5 target),
// and a tutorial page with its embedded figures.
const PAGES = ['playground.html', 'tutorials/hooks-in-depth.html'];

/**
 * A cold load of `name` (fresh context, no cache): the files it requested
 * (the document included), as paths in web/dist, once no new request has
 * started for 1 s (the editor's language, the layout worker and the wasm
 * are all requested after the first paint), and which of them had arrived
 * when the first graph was painted.
 */
async function pageWeight(browser, url, name) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await ctx.newPage();
  const requested = new Set();
  let last = Date.now();
  page.on('request', (r) => { requested.add(r.url()); last = Date.now(); });
  await page.addInitScript(OBSERVE);
  await page.goto(`${url}${name}`, { waitUntil: 'load' });
  const t0 = Date.now();
  while (Date.now() - last < 1000 && Date.now() - t0 < 20000) await page.waitForTimeout(100);
  const firstPaint = await page.evaluate(() => window.__firstGraph?.painted ?? null);
  const byPaint = firstPaint == null ? null : await page.evaluate((t) => performance.getEntriesByType('resource').filter((r) => r.responseEnd <= t).map((r) => r.name), firstPaint);
  await ctx.close();
  const local = (u) => { const p = new URL(u); return p.origin === new URL(url).origin ? decodeURIComponent(p.pathname).replace(/^\//, '') : null; };
  const files = [...requested].map(local).filter((f) => f !== null);
  const firstFiles = byPaint === null ? null : [name, ...byPaint.map(local).filter((f) => f !== null)];
  return { name, files: [...new Set(files)], firstFiles: firstFiles && [...new Set(firstFiles)] };
}

/** Fps of requestAnimationFrame over `ms` while the page plays its backward pass. */
function rafWindow(page, ms) {
  return page.evaluate((ms) => new Promise((resolve) => {
    const ts = [performance.now()];
    const f = (t) => { ts.push(t); if (t - ts[0] < ms) requestAnimationFrame(f); else resolve({ ts, step: document.getElementById('step-count')?.textContent }); };
    requestAnimationFrame(f);
  }), ms);
}

/**
 * The 2,000-node graph: navigation → first overview on screen; run end →
 * overview (performance marks 'hookgrad:run-end' / 'hookgrad:overview' set
 * by session.js / graph-view.js); longest main-thread task (longtask
 * observer) from page load through the overview; fps while playing.
 */
async function measureBig(browser, url, { windowMs, log }) {
  const out = {};
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await ctx.newPage();
  await page.addInitScript(() => {
    window.__longTasks = [];
    new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longTasks.push(Math.round(e.duration)); }).observe({ type: 'longtask', buffered: true });
  });
  const hash = `#s=${b64url(JSON.stringify({ v: 1, program: PROGRAM_2000, semantics: 'pytorch-2' }))}`;
  await page.goto(`${url}playground.html${hash}`, { waitUntil: 'commit' });
  // A program from a link waits for the reader (model/trust.js): press
  // "Run this program" the moment it shows, as the other page measures do.
  await page.getByRole('button', { name: 'Run this program' }).click({ timeout: 10000 }).catch(() => {});
  try {
    await page.waitForFunction(() => document.getElementById('graph')?.dataset.overview, null, { timeout: 60000 });
  } catch {
    out.bigSkipped = 'the 2,000-node overview did not appear within 60 s';
    await ctx.close();
    return out;
  }
  await page.waitForTimeout(300);
  const m = await page.evaluate(() => {
    const at = (n) => performance.getEntriesByName(n).at(-1)?.startTime;
    return { overview: at('hookgrad:overview'), runEnd: at('hookgrad:run-end'), long: window.__longTasks, text: document.getElementById('step-text')?.textContent };
  });
  out.bigNodes = Number(/(\d+) backward nodes/.exec(m.text || '')?.[1]) || null;
  out.bigFirstOverviewMs = m.overview; out.bigAfterRunMs = m.overview - m.runEnd;
  out.bigLongestTaskMs = Math.max(0, ...m.long);
  const opts = await page.$$eval('#speed option', (os) => os.map((o) => o.value));
  if (opts.length) await page.selectOption('#speed', opts[opts.length - 1]);
  const before = await page.evaluate(() => document.getElementById('step-count')?.textContent);
  await page.evaluate(() => { window.__longTasks.length = 0; });
  await page.click('#backward-btn');
  const r = await rafWindow(page, windowMs);
  const dts = r.ts.slice(1).map((t, i) => t - r.ts[i]).sort((a, b) => a - b);
  const span = r.ts[r.ts.length - 1] - r.ts[0];
  out.bigFps = (1000 * (r.ts.length - 1)) / span;
  out.bigFrameMs = median(dts); out.bigFrameP95 = dts[Math.max(0, Math.ceil(0.95 * dts.length) - 1)];
  out.bigPlayLongestTaskMs = Math.max(0, ...(await page.evaluate(() => window.__longTasks)));
  out.bigNote = `2,000 nodes: step counter ${before} → ${r.step} while playing; longest frame ${dts[dts.length - 1].toFixed(0)} ms`;
  log(`W6 2,000 nodes: overview ${out.bigFirstOverviewMs.toFixed(0)} ms after navigation, ${out.bigAfterRunMs.toFixed(0)} ms after the run; ${out.bigFps.toFixed(1)} fps`);
  await ctx.close();
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  measurePage({ log: console.error }).then((r) => console.log(JSON.stringify(r, null, 1)), (e) => { console.error(e); process.exit(1); });
}
