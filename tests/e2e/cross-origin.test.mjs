// A blog post on one origin embedding hookgrad served from another origin,
// under a sub-path (/hookgrad/), the way a blog author uses it: a plain
// <iframe> (the documented 700×480 snippet with the resize script), the
// <hookgrad-playground> custom element, and an import() of the JS API.
// Checks: all three work, wheel over a figure scrolls the post, nothing is
// clipped at 400 and 700 px wide, the element's events reach the post, embeds
// below the fold start when scrolled to, the wasm is downloaded once for all
// embeds, no console errors and no 404s.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { serve } from '../../scripts/serve.mjs';
import { DIST, SHOTS } from './helpers.mjs';

let site; let blog; let browser; const requests = [];

const filler = (n) => Array.from({ length: n }, (_, i) => `<p>Paragraph ${i + 1} of the post. Automatic differentiation records every operation in a graph and walks it backwards; hooks let you watch and change the gradients as they flow.</p>`).join('\n');

/** The blog post: everything an author would paste, pointing at the hookgrad origin. */
function blogPage(hg) {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>My post about hooks</title><link rel="icon" href="data:,">
<style>body { font: 17px/1.6 Georgia, serif; max-width: 760px; margin: 0 auto; padding: 16px; color: #222; background: #fdfcf8; } pre { background: #f0eee6; padding: 8px; overflow: auto; }</style>
</head><body>
<h1>What PyTorch's hooks really see</h1>
<p>The legacy module backward hook looks at the last node of the module's forward, not at the module's inputs. Try it:</p>
<iframe id="plain" src="${hg}embed.html#lesson=legacy-hook" title="hookgrad: why the legacy module backward hook lies" width="700" height="480" style="border:0; max-width:100%" loading="lazy"></iframe>
<script>
  // The resize snippet from web/EMBED.md (used with #autosize=1; harmless without).
  addEventListener('message', (e) => {
    if (!e.data || e.data.hookgrad !== 'embed' || e.data.type !== 'resize') return;
    for (const f of document.querySelectorAll('iframe')) if (f.contentWindow === e.source) f.style.height = e.data.height + 'px';
  });
</script>
${filler(3)}
<script type="module" src="${hg}hookgrad-element.js"></script>
<hookgrad-playground id="el1" lesson="tensor-hooks" title="hookgrad: tensor hooks"></hookgrad-playground>
<h2>The API itself</h2>
<pre id="api-out">loading…</pre>
<script type="module">
  window.events = [];
  for (const el of document.querySelectorAll('hookgrad-playground'))
    for (const type of ['ready', 'step', 'done', 'error']) el.addEventListener(type, (e) => window.events.push({ el: el.id, type, detail: e.detail }));
  try {
    const hg = await import('${hg}pkg/hookgrad.js');
    await hg.default();
    const a = hg.tensor(2, { requiresGrad: true, name: 'a' });
    const b = hg.tensor(3, { requiresGrad: true, name: 'b' });
    const c = a.mul(b);
    c.registerHook((g) => g.add(2));
    c.retainGrad();
    c.backward();
    document.getElementById('api-out').textContent = String(c) + ' a.grad=' + a.grad.item() + ' b.grad=' + b.grad.item() + ' c.grad=' + c.grad.item();
  } catch (e) { document.getElementById('api-out').textContent = 'failed: ' + e.message; }
</script>
${filler(30)}
<h2>Far below</h2>
<hookgrad-playground id="el2" lesson="legacy-hook" step="end" theme="dark"></hookgrad-playground>
${filler(4)}
</body></html>`;
}

before(async () => {
  if (!fs.existsSync(path.join(DIST, 'pkg', 'hookgrad.js'))) throw new Error('web/dist/pkg is missing: run `npm run build` first');
  site = await serve({ root: DIST, port: 0, base: '/hookgrad/', onRequest: (r) => requests.push(r) });
  const hgUrl = site.url; // http://127.0.0.1:PORT/hookgrad/
  const server = http.createServer((req, res) => {
    if (req.url === '/' || req.url.startsWith('/post')) res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(blogPage(hgUrl));
    else res.writeHead(404).end();
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  blog = { server, url: `http://127.0.0.1:${server.address().port}/post` };
  assert.notEqual(new URL(blog.url).origin, new URL(site.url).origin);
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
});
after(async () => {
  await browser?.close();
  await new Promise((r) => site?.server.close(r));
  await new Promise((r) => blog?.server.close(r));
});

async function openBlog(width, height = 800) {
  const page = await browser.newPage({ viewport: { width, height }, colorScheme: 'light' });
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') page.errors.push(`${m.location()?.url}: ${m.text()}`); });
  page.responses = [];
  page.on('response', (r) => page.responses.push({ url: r.url(), status: r.status(), frame: r.frame()?.url() }));
  await page.goto(blog.url);
  return page;
}

/** The embed frame shown by the element `sel` (or the iframe `sel`). */
async function embedFrame(page, sel) {
  await page.locator(sel).scrollIntoViewIfNeeded();
  const handle = await page.waitForSelector(`${sel}${sel.startsWith('#el') ? ' iframe' : ''}`, { timeout: 15000, state: 'attached' });
  let f = await handle.contentFrame();
  for (let i = 0; i < 150 && !(f && f.url().includes('embed.html')); i++) { await new Promise((r) => setTimeout(r, 100)); f = await handle.contentFrame(); }
  await f.waitForFunction(() => document.getElementById('step-count')?.textContent !== '0 / 0' && document.querySelectorAll('[data-node]').length > 2, null, { timeout: 20000 });
  return f;
}

/** Inside an embed frame: what sticks out of its viewport (should be nothing). */
async function clipped(f) {
  return f.evaluate(() => {
    const out = [];
    const de = document.documentElement;
    if (de.scrollHeight > innerHeight + 1) out.push(`document ${de.scrollHeight}px tall in a ${innerHeight}px frame`);
    if (de.scrollWidth > innerWidth + 1) out.push(`document ${de.scrollWidth}px wide in a ${innerWidth}px frame`);
    for (const e of document.querySelectorAll('.embed-head, .player-row, #step-text, #compare, .graph-box')) {
      const r = e.getBoundingClientRect();
      if (r.height > 0 && (r.bottom > innerHeight + 1 || r.right > innerWidth + 1)) out.push(`${e.id || e.className} ends at ${Math.round(r.bottom)}×${Math.round(r.right)} (frame ${innerWidth}×${innerHeight})`);
    }
    return out;
  });
}

test('a post on another origin: iframe, custom element and import() of the API all work, from /hookgrad/', async () => {
  const page = await openBlog(1280);
  await page.waitForFunction(() => !/loading/.test(document.getElementById('api-out').textContent), null, { timeout: 20000 });
  // c = a*b with a hook adding 2: a.grad = (1+2)*3, b.grad = (1+2)*2; retain_grad runs after the hook (PyTorch 2).
  assert.equal(await page.locator('#api-out').textContent(), 'tensor(6., grad_fn=<MulBackward0>) a.grad=9 b.grad=6 c.grad=3');

  const plain = await embedFrame(page, '#plain');
  assert.match(await plain.locator('.embed-title').textContent(), /legacy module backward hook/);
  const el1 = await embedFrame(page, '#el1');
  assert.match(await el1.locator('.embed-title').textContent(), /Tensor hooks/i);
  // The element's height follows its content: no inner scrolling, no empty band.
  const [frameH, docH] = [await page.locator('#el1 iframe').evaluate((f) => f.getBoundingClientRect().height), await el1.evaluate(() => document.documentElement.getBoundingClientRect().height)];
  assert.ok(Math.abs(frameH - Math.ceil(docH)) <= 1, `element iframe ${frameH}px for ${docH}px of content`);

  // Host events: ready and step arrived as DOM events; End on the scrubber gives `done`.
  await page.waitForFunction(() => window.events.some((e) => e.el === 'el1' && e.type === 'ready'), null, { timeout: 10000 });
  await el1.getByRole('slider', { name: 'Scrub through the trace' }).focus();
  await el1.page().keyboard.press('End');
  await page.waitForFunction(() => window.events.some((e) => e.el === 'el1' && e.type === 'done'), null, { timeout: 10000 });
  const evs = await page.evaluate(() => window.events.filter((e) => e.el === 'el1'));
  const steps = evs.filter((e) => e.type === 'step');
  const done = evs.find((e) => e.type === 'done');
  assert.ok(steps.length >= 2, 'step events');
  assert.equal(done.detail.step, done.detail.total);
  assert.equal(steps.at(-1).detail.step, done.detail.total);
  assert.equal(typeof steps.at(-1).detail.text, 'string');
  assert.ok(!evs.some((e) => e.type === 'error'), JSON.stringify(evs.filter((e) => e.type === 'error')));

  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForTimeout(300);
  await page.screenshot({ path: path.join(SHOTS, 'blog-1280.png') });

  // The far element has not started (no iframe yet) until the reader scrolls to it.
  assert.equal(await page.locator('#el2 iframe').count(), 0, 'the element below the fold waits until it is near the viewport');
  await page.locator('#el2').scrollIntoViewIfNeeded();
  const el2 = await embedFrame(page, '#el2');
  // step="end": the player starts at the last step; theme="dark" pins the dark palette.
  assert.match(await el2.locator('#step-count').textContent(), /^(\d+) \/ \1$/);
  assert.equal(await el2.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(14, 17, 23)');
  await page.waitForFunction(() => window.events.some((e) => e.el === 'el2' && e.type === 'done'), null, { timeout: 10000 });

  // The engine's wasm: one download for every embed on the page (the other
  // loads, the post's own import() included, revalidate: 304).
  const wasm = requests.filter((r) => r.path.endsWith('/pkg/hookgrad_bg.wasm'));
  const full = wasm.filter((r) => r.status === 200).length;
  console.log(`# wasm requests at the hookgrad origin: ${wasm.map((r) => r.status).join(', ')}`);
  assert.equal(full, 1, `one wasm download for the whole page: ${JSON.stringify(wasm)}`);
  const seen = page.responses.filter((r) => r.url.endsWith('/pkg/hookgrad_bg.wasm'));
  assert.ok(seen.length >= 3, `the network log shows every embed's wasm request: ${JSON.stringify(seen)}`);
  assert.deepEqual(requests.filter((r) => r.status >= 400), [], 'no 404s from the hookgrad origin');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('wheel over a figure scrolls the post; once the reader focuses the figure, the wheel zooms it', async () => {
  const page = await openBlog(1280, 700);
  const el1 = await embedFrame(page, '#el1');
  await page.locator('#el1').scrollIntoViewIfNeeded();
  const transform = () => el1.locator('.viewport').evaluate((g) => g.style.transform);
  // boundingBox() of an element inside a frame is in the main page's viewport.
  const center = async () => { const g = await el1.locator('.graph-box').boundingBox(); return [g.x + g.width / 2, g.y + g.height / 2]; };
  const [x, y] = await center();
  assert.equal(await page.evaluate(([px, py]) => document.elementFromPoint(px, py)?.closest('hookgrad-playground')?.id, [x, y]), 'el1', 'the pointer is over the figure');
  assert.equal(await el1.evaluate(() => { const r = document.querySelector('.graph-box').getBoundingClientRect(); return !!document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2)?.closest('svg.graph'); }), true, 'over its graph');
  const before = await transform();
  const y0 = await page.evaluate(() => scrollY);
  await page.mouse.move(x, y);
  for (let i = 0; i < 5; i++) { await page.mouse.wheel(0, 100); await page.waitForTimeout(60); }
  await page.waitForTimeout(400);
  const y1 = await page.evaluate(() => scrollY);
  assert.ok(y1 > y0 + 200, `the post scrolled (scrollY ${y0} → ${y1})`);
  assert.equal(await transform(), before, 'the graph did not zoom');
  assert.notEqual(await el1.locator('svg.graph').evaluate((s) => getComputedStyle(s).touchAction), 'none', 'a finger on the figure scrolls the post too');

  // The reader focuses the figure (Tab, or a click): now the wheel zooms it and the post stays put.
  await page.locator('#el1').scrollIntoViewIfNeeded();
  await el1.locator('svg.graph').focus();
  const [x2, y2] = await center();
  await page.mouse.move(x2, y2);
  const z0 = await transform(); const s0 = await page.evaluate(() => scrollY);
  await page.mouse.wheel(0, -200);
  await page.waitForTimeout(300);
  assert.notEqual(await transform(), z0, 'the focused graph zooms');
  assert.equal(await page.evaluate(() => scrollY), s0, 'and the post stays put');
  assert.deepEqual(page.errors, []);
  await page.close();
});

for (const width of [400, 700]) {
  test(`nothing is clipped at ${width} px wide (iframe 700×480 and element, at every step)`, async () => {
    const page = await openBlog(width, 900);
    for (const sel of ['#plain', '#el1']) {
      await page.locator(sel).scrollIntoViewIfNeeded();
      const f = await embedFrame(page, sel);
      await page.waitForTimeout(300);
      assert.deepEqual(await clipped(f), [], `${sel} at the first step`);
      // Every step (a warning's sentence is the longest text), then the end by keyboard.
      const total = Number((await f.locator('#step-count').textContent()).split('/')[1]);
      for (let k = 0; k <= total; k++) {
        await f.evaluate((k) => { const s = document.getElementById('scrub'); s.value = String(k); s.dispatchEvent(new Event('input')); }, k);
        // The element follows its content's height one message later: allow it a moment.
        let out = await clipped(f);
        for (let i = 0; i < 20 && out.length; i++) { await page.waitForTimeout(50); out = await clipped(f); }
        assert.deepEqual(out, [], `${sel} at step ${k} of ${total}`);
      }
      await f.getByRole('slider', { name: 'Scrub through the trace' }).focus();
      await f.page().keyboard.press('End');
      await page.waitForTimeout(500);
      assert.deepEqual(await clipped(f), [], `${sel} at the last step`);
      const r = await page.locator(sel).boundingBox();
      assert.ok(r.x >= 0 && r.x + r.width <= width + 1, `${sel} fits the post's width`);
    }
    await page.locator('#plain').scrollIntoViewIfNeeded();
    await page.waitForTimeout(600); // a cross-origin frame scrolled back into view paints a moment later
    await page.screenshot({ path: path.join(SHOTS, `blog-${width}.png`) });
    if (width === 400) { // the phone screenshot: 390 px, a common phone width
      await page.setViewportSize({ width: 390, height: 844 });
      await page.waitForTimeout(500);
      await page.locator('#plain').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(SHOTS, 'blog-390.png') });
    }
    assert.deepEqual(page.errors, []);
    await page.close();
  });
}

test('the whole site works from the sub-path /hookgrad/: front page, playground, tutorials, element script, package', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors = []; const bad = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('response', (r) => { if (r.status() >= 400) bad.push(`${r.status()} ${r.url()}`); });
  // blob: URLs are the sandbox's own copies of files the page fetched (web/src/sandbox/host.js), not requests.
  page.on('request', (r) => { if (!r.url().startsWith(site.url) && !r.url().startsWith('data:') && !r.url().startsWith('blob:')) bad.push(`outside the sub-path: ${r.url()}`); });
  await page.goto(site.url);
  await page.goto(`${site.url}playground.html#lesson=tensor-hooks`);
  await page.waitForFunction(() => document.getElementById('step-count')?.textContent !== '0 / 0' && document.querySelectorAll('[data-node]').length > 2, null, { timeout: 20000 });
  // The tutorial pages (when built): each loads from the sub-path without a 404 or an error.
  const tutorials = fs.existsSync(path.join(DIST, 'tutorials')) ? fs.readdirSync(path.join(DIST, 'tutorials')).filter((f) => f.endsWith('.html')) : [];
  for (const t of tutorials) {
    await page.goto(`${site.url}tutorials/${t}`);
    await page.waitForLoadState('networkidle');
  }
  for (const f of ['hookgrad-element.js', 'pkg/hookgrad.js', 'pkg/hookgrad_bg.wasm', 'pkg/package.json', 'pkg/hookgrad.d.ts']) {
    const r = await page.request.get(`${site.url}${f}`);
    assert.equal(r.status(), 200, f);
    assert.equal(r.headers()['access-control-allow-origin'], '*', `${f} carries CORS`);
    if (f.endsWith('.wasm')) assert.equal(r.headers()['content-type'], 'application/wasm');
  }
  assert.deepEqual(bad, []);
  assert.deepEqual(errors, []);
  await page.close();
});
