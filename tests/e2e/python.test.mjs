// Python where readers read (issue 30): the playground runs the hooks video's
// script as written and prints what PyTorch prints; a share link reopens in
// Python; a Python error marks the reader's line and shows the traceback; a
// lesson in Python draws its figure at once (from its JS twin) while Pyodide
// loads; a page that stays in JavaScript downloads no byte of Pyodide; an
// embed with language="python" works on another origin at 700 and 400 px.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { serve } from '../../scripts/serve.mjs';
import { DIST, ROOT, SHOTS, waitForRun, toEnd, consoleText, runLinked } from './helpers.mjs';
import { encodeState } from '../../web/src/model/state.js';

const VIDEO = fs.readFileSync(path.join(ROOT, 'tests/python/corpus/video_1_2_with_hooks.py'), 'utf8');
const EXPECTED = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests/python/expected/video_1_2_with_hooks.json'), 'utf8'));
const PY_LOAD = 60000; // Pyodide's first start on a loaded 2-core machine

let site; let blog; let browser; const requests = [];
before(async () => {
  site = await serve({ root: DIST, port: 0, base: '/hookgrad/', onRequest: (r) => requests.push(r.path) });
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'] });
});
after(async () => { await browser?.close(); await new Promise((r) => site?.server.close(r)); if (blog) await new Promise((r) => blog.close(r)); });

async function newPage(viewport = { width: 1280, height: 800 }) {
  const page = await browser.newPage({ viewport, colorScheme: 'light' });
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  return page;
}

/** Replaces the editor's text as a reader pasting would. */
async function paste(page, text) {
  await page.locator('#editor .cm-content').click();
  await page.keyboard.press('Control+a');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

test('a page that stays in JavaScript downloads no byte of Pyodide (playground, lesson, embed)', async () => {
  for (const p of ['playground.html', 'playground.html#lesson=legacy-hook', 'embed.html#lesson=adjoint', 'embed.html#lesson=tensor-hooks&program=1']) {
    const before = requests.length;
    const page = await newPage();
    await page.goto(`${site.url}${p}`);
    await page.waitForTimeout(2500);
    const got = requests.slice(before);
    assert.ok(got.some((r) => /hookgrad_bg\.wasm/.test(r)), `${p}: the engine was fetched (the page ran)`);
    assert.deepEqual(got.filter((r) => /pyodide|python/i.test(r)), [], `${p}: no Pyodide or Python file`);
    await page.close();
  }
});

test('a tutorial shows its cells in Python; outputs, figures and numbers come first from the JS twins, Pyodide only after that', async () => {
  const page = await newPage();
  await page.goto(`${site.url}tutorials/hooks-in-depth.html`);
  await page.waitForFunction(() => document.body.dataset.cellsReady === '1', null, { timeout: 30000 });
  assert.match(await page.locator('#cell-video textarea').inputValue(), /^# Hooks on c[\s\S]*import torch/);
  assert.equal(await page.locator('#cell-video').getByRole('radio', { name: 'Python' }).isChecked(), true);
  await page.waitForFunction(() => document.body.dataset.pythonReady === '1', null, { timeout: PY_LOAD });
  const t = await page.evaluate(() => ({
    ready: performance.getEntriesByName('hookgrad:cells-ready')[0]?.startTime,
    pyodide: Math.min(...performance.getEntriesByType('resource').filter((r) => /pyodide/.test(r.name)).map((r) => r.startTime)),
  }));
  assert.ok(t.ready > 0 && t.pyodide > t.ready, `Pyodide requested after the cells ran (${t.ready} < ${t.pyodide})`);
  assert.match(await page.locator('#cell-video .cell-status').textContent(), /Python/);
  assert.match(await page.locator('#cell-video .cell-lines').textContent(), /e\.grad tensor\(2\.\)/);
  await page.screenshot({ path: path.join(SHOTS, 'python-tutorial.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('the video\'s 2_with_hooks.py in the playground prints PyTorch\'s lines, draws MulBackward0 and its hooks, and its link reopens in Python', async () => {
  const page = await newPage();
  await page.goto(`${site.url}playground.html`);
  await waitForRun(page);
  await page.getByRole('combobox', { name: 'Lesson' }).selectOption('');
  await page.getByRole('radiogroup', { name: 'Language' }).getByRole('radio', { name: 'Python' }).check();
  // Python loads after the click, with a progress line that says what is loading.
  await page.waitForFunction(() => !document.getElementById('py-status').hidden && /Python|Pyodide|torch/.test(document.getElementById('py-status').textContent), null, { timeout: 10000 });
  await paste(page, VIDEO);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.waitForFunction(() => /ran in/.test(document.getElementById('program-status').textContent), null, { timeout: PY_LOAD });
  await waitForRun(page);
  await page.getByRole('button', { name: 'Backward', exact: true }).click();
  await page.waitForTimeout(500);
  await toEnd(page);
  const out = await consoleText(page);
  for (const line of EXPECTED.stdout.trim().split('\n')) assert.ok(out.includes(line), `console shows PyTorch's "${line}": ${out}`);
  assert.ok(await page.locator('#graph [data-node]', { hasText: 'MulBackward0' }).count() >= 2, 'MulBackward0 nodes in the figure');
  assert.match(await page.locator('#graph').textContent(), /c_hook/, 'the hook is drawn on its tensor');
  assert.match(await page.locator('#inspector').textContent(), /HOOKS FIRED SO FAR \([1-9]|tensor hook/i, 'the hooks fired');
  await page.screenshot({ path: path.join(SHOTS, 'python-playground.png') });
  // The share link carries the language and the program.
  await page.waitForTimeout(500);
  const href = page.url();
  const page2 = await newPage();
  await page2.goto(`${site.url}playground.html${href.slice(href.indexOf('#'))}`);
  // The page's code loads after the boot script (boot.js): the link has been
  // read once its gate asks the reader to run the program.
  await page2.getByRole('button', { name: 'Run this program' }).waitFor({ state: 'visible', timeout: 10000 });
  assert.equal(await page2.getByRole('radio', { name: 'Python' }).isChecked(), true, 'reopens in Python');
  await runLinked(page2); // the reader's own program: it waits for the click
  await page2.waitForFunction(() => /ran in/.test(document.getElementById('program-status').textContent), null, { timeout: PY_LOAD });
  assert.match(await page2.locator('#editor').textContent(), /def c_hook\(grad\):/);
  await toEnd(page2);
  assert.ok((await consoleText(page2)).includes('a.grad 30.0'));
  assert.deepEqual([...page.errors, ...page2.errors], []);
  await page.close(); await page2.close();
});

test('a Python error marks the reader\'s line and the console shows Python\'s traceback (the program\'s frames only)', async () => {
  const program = 'import torch\n\na = torch.tensor(2.0, requires_grad=True)\n\n\ndef hook(g):\n    raise ValueError("my hook broke")\n\n\na.register_hook(hook)\n(a * 3).backward()\n';
  const page = await newPage();
  await page.goto(`${site.url}playground.html${encodeState({ program, semantics: 'pytorch-2', lesson: null, lang: 'python' })}`);
  await runLinked(page);
  await page.waitForFunction(() => /error at line/.test(document.getElementById('program-status').textContent), null, { timeout: PY_LOAD });
  await toEnd(page);
  const out = await consoleText(page);
  assert.match(out, /Traceback \(most recent call last\):/);
  assert.match(out, /File "main\.py", line 11, in <module>/);
  assert.match(out, /File "main\.py", line 7, in hook/);
  assert.match(out, /ValueError: my hook broke/);
  assert.doesNotMatch(out, /\/lib\/hookgrad|_bridge\.py/, 'no frame of the shim');
  await page.waitForFunction(() => document.querySelector('#editor .cm-error-line'), null, { timeout: 5000 });
  assert.match(await page.locator('#editor .cm-error-line').first().textContent(), /raise ValueError|\(a \* 3\)\.backward\(\)/);
  await page.close();
});

test('a lesson in Python: the figure at once from its JS twin, then PyTorch\'s printed lines when Python is ready', async () => {
  const page = await newPage();
  const before = requests.length;
  await page.goto(`${site.url}playground.html#lesson=tensor-hooks&lang=python`);
  await waitForRun(page, 15000);
  const first = await page.locator('#step-count').textContent();
  assert.match(await page.locator('#program-status').textContent(), /JavaScript twin/);
  assert.match(await page.locator('#editor').textContent(), /def c_hook\(grad\):/);
  await page.waitForFunction(() => /ran in/.test(document.getElementById('program-status').textContent), null, { timeout: PY_LOAD });
  assert.equal(await page.locator('#step-count').textContent(), first, 'the Python run has the twin\'s steps');
  await toEnd(page);
  assert.ok((await consoleText(page)).includes('a.grad 30.0'));
  assert.ok(requests.slice(before).some((r) => /pyodide\.asm\.wasm/.test(r)), 'Pyodide came from the site itself');
  await page.close();
});

test('an embed with language="python" works on a blog of another origin, at 700 and 400 px', async () => {
  blog = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>post</title><link rel="icon" href="data:,"></head>
<body style="max-width:760px;margin:0 auto;padding:16px;font:17px/1.6 Georgia,serif"><h1>Hooks, in PyTorch</h1>
<script type="module" src="${site.url}hookgrad-element.js"></script>
<hookgrad-playground id="py" lesson="tensor-hooks" language="python" program title="hookgrad in Python"></hookgrad-playground>
<script>window.events = []; document.getElementById('py').addEventListener('ready', (e) => window.events.push(e.detail));</script></body></html>`);
  });
  await new Promise((r) => blog.listen(0, '127.0.0.1', r));
  for (const width of [700, 400]) {
    const page = await newPage({ width, height: 900 });
    await page.goto(`http://127.0.0.1:${blog.address().port}/`);
    await page.waitForFunction(() => window.events.length >= 1, null, { timeout: 20000 });
    const frame = page.frames().find((f) => /embed\.html/.test(f.url()));
    assert.ok(frame, 'the embed frame');
    assert.match(frame.url(), /lang=python/);
    // The Python itself ran once Pyodide was ready: a second `ready` from the same figure.
    await page.waitForFunction(() => window.events.length >= 2, null, { timeout: PY_LOAD });
    assert.match(await frame.locator('#program').textContent(), /import torch/);
    const box = await page.locator('#py').boundingBox();
    assert.ok(box.width <= width && box.height > 200, `the figure fits (${box.width}×${box.height})`);
    await page.screenshot({ path: path.join(SHOTS, `python-embed-${width}.png`), fullPage: true });
    assert.deepEqual(page.errors, []);
    await page.close();
  }
});
