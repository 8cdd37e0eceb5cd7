// The playground's first graph alone (W6's first row, bench/page.mjs), with
// where its time goes.
//   node bench/first-graph.mjs [--loads N] [--dirs a,b] [--page P]
// P: the page to load, playground.html by default; an embed's first figure
// is `--page 'embed.html#lesson=1'` (the same '#graph .bnode' is looked for).
// N cold loads (fresh browser context each) of the built site (web/dist, or
// each of --dirs, interleaved load by load so both see the same machine
// load), median per site, and for the median load of each the page's
// performance marks ('hookgrad:*', set along the first-graph path by
// runner.js / session.js / controller.js) and when each resource arrived,
// in ms after navigation start.
import path from 'node:path';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { median } from './lib/stats.mjs';
import { OBSERVE, CHROMIUM, ARGS, firstGraphPainted } from './page.mjs';
import { serve } from '../scripts/serve.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const opt = (n) => { const i = argv.indexOf(n); return i >= 0 ? argv[i + 1] : undefined; };
const loads = Number(opt('--loads') || 7);
const pageName = opt('--page') || 'playground.html';
const dirs = (opt('--dirs') || path.join(root, 'web', 'dist')).split(',');
const { chromium } = await import('playwright-core');
const servers = await Promise.all(dirs.map((d) => serve({ root: d, port: 0 })));
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true });
const runs = dirs.map(() => []);
const load0 = os.loadavg()[0];

async function once(url) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await ctx.newPage();
  await page.addInitScript(OBSERVE);
  const painted = firstGraphPainted(page);
  painted.catch(() => {});
  await page.goto(`${url}${pageName}`, { waitUntil: 'commit' });
  await painted;
  const r = await page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    const marks = performance.getEntriesByType('mark').filter((m) => m.name.startsWith('hookgrad:')).map((m) => [m.name.slice(9), Math.round(m.startTime)]);
    const res = performance.getEntriesByType('resource').map((x) => [decodeURIComponent(x.name.split('/').pop()), Math.round(x.startTime), Math.round(x.responseEnd)]);
    return { ms: window.__firstGraph.painted, seen: window.__firstGraph.seen, dcl: Math.round(nav.domContentLoadedEventEnd), resp: Math.round(nav.responseEnd), marks, res };
  });
  await ctx.close();
  return r;
}

try {
  for (let i = 0; i < loads; i++) for (let d = 0; d < dirs.length; d++) runs[d].push(await once(servers[d].url));
} finally { await browser.close(); for (const s of servers) s.server.close(); }

console.log(`${pageName}: load average ${load0.toFixed(2)} → ${os.loadavg()[0].toFixed(2)} (1 min), ${os.cpus().length} cores`);
dirs.forEach((dir, d) => {
  const ms = runs[d].map((r) => r.ms);
  const med0 = median(ms);
  const r = runs[d].reduce((a, b) => (Math.abs(b.ms - med0) < Math.abs(a.ms - med0) ? b : a));
  console.log(`\n${path.relative(process.cwd(), dir) || dir}: first graph median ${med0.toFixed(0)} ms of ${loads} cold loads: ${ms.map((x) => x.toFixed(0)).join(', ')}`);
  console.log(`  median load: html ${r.resp}, DOMContentLoaded ${r.dcl}, bnode seen ${r.seen.toFixed(0)}, painted ${r.ms.toFixed(0)}`);
  console.log(`  marks: ${r.marks.map(([n, t]) => `${n} ${t}`).join(', ')}`);
  // Each mark's median over the loads (its first occurrence in each), in the median load's order.
  const names = r.marks.map(([n]) => n).filter((n, i, a) => a.indexOf(n) === i);
  const med = (n) => median(runs[d].map((x) => x.marks.find(([m]) => m === n)?.[1]).filter((x) => x != null));
  console.log(`  marks, median over loads: ${names.map((n) => `${n} ${Math.round(med(n))}`).join(', ')}, html ${Math.round(median(runs[d].map((x) => x.resp)))}, seen ${Math.round(median(runs[d].map((x) => x.seen)))}, painted ${Math.round(med0)}`);
  console.log(`  resources (start→end): ${r.res.map(([n, s, e]) => `${n} ${s}→${e}`).join(', ')}`);
});
