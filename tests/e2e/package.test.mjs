// web/pkg as an npm package: `npm pack` takes exactly the files package.json
// lists; a tiny Vite app that depends on the packed tarball builds and runs
// in Chromium (the bundler path); Node resolves the package's `exports`
// (`hookgrad`, `hookgrad/hookgrad_bg.wasm`). Plain ESM from a static URL is
// covered by cross-origin.test.mjs.
import test, { before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { build } from 'vite';
import { serve } from '../../scripts/serve.mjs';
import { ROOT } from './helpers.mjs';

const PKG = path.join(ROOT, 'web', 'pkg');
let tmp; let tarball;

before(() => {
  if (!fs.existsSync(path.join(PKG, 'package.json'))) throw new Error('web/pkg/package.json is missing: run `npm run build` first');
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'hookgrad-pkg-'));
  const out = execFileSync('npm', ['pack', PKG, '--pack-destination', tmp, '--json', '--ignore-scripts'], { encoding: 'utf8' });
  const [info] = JSON.parse(out);
  tarball = { path: path.join(tmp, info.filename), files: info.files.map((f) => f.path).sort(), name: info.name, version: info.version };
  // Installed as npm would: the tarball's package/ folder becomes node_modules/hookgrad.
  const app = path.join(tmp, 'app');
  fs.mkdirSync(path.join(app, 'node_modules', 'hookgrad'), { recursive: true });
  execFileSync('tar', ['xzf', tarball.path, '-C', path.join(app, 'node_modules', 'hookgrad'), '--strip-components=1']);
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'tiny-app', private: true, type: 'module', dependencies: { hookgrad: `file:${tarball.path}` } }));
  fs.writeFileSync(path.join(app, 'index.html'), '<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>tiny app</title></head><body><pre id="out">…</pre><script type="module" src="./main.js"></script></body></html>');
  fs.writeFileSync(path.join(app, 'main.js'), `import init, * as hg from 'hookgrad';
await init();
const a = hg.tensor(2, { requiresGrad: true });
const b = hg.tensor(3, { requiresGrad: true });
const m = new hg.Module('Mul', (x, y) => x.mul(y));
const seen = [];
m.registerFullBackwardHook((mod, gradInput) => { seen.push(gradInput.map((g) => g.item())); });
m.call(a, b).backward();
document.getElementById('out').textContent = JSON.stringify({ a: a.grad.item(), b: b.grad.item(), seen });
`);
});
after(() => { if (tmp) fs.rmSync(tmp, { recursive: true, force: true }); });

test('npm pack: the package holds the engine, the facade, the types, README and nothing else', () => {
  assert.equal(tarball.name, 'hookgrad');
  assert.match(tarball.version, /^\d+\.\d+\.\d+/);
  for (const f of ['package.json', 'README.md', 'hookgrad.js', 'hookgrad.d.ts', 'hookgrad_core.js', 'hookgrad_bg.wasm']) assert.ok(tarball.files.includes(f), `${f} in ${tarball.files}`);
  assert.deepEqual(tarball.files.filter((f) => !/^(package\.json|README\.md|[\w-]+(\.d)?\.(js|ts|wasm)|hookgrad_bg\.wasm\.d\.ts|bin\/[\w-]+\.mjs)$/.test(f)), []);
  // The Python mode: loadPython (hookgrad/python), its shim and the `hookgrad run` CLI.
  for (const f of ['python.js', 'python.d.ts', 'python-helpers.js', 'python-shim.js', 'bin/hookgrad.mjs', 'bin/run-worker.mjs']) assert.ok(tarball.files.includes(f), `${f} in ${tarball.files}`);
  const pj = JSON.parse(fs.readFileSync(path.join(PKG, 'package.json'), 'utf8'));
  assert.equal(pj.type, 'module');
  assert.equal(pj.types, './hookgrad.d.ts');
  assert.deepEqual(pj.exports['.'], { types: './hookgrad.d.ts', default: './hookgrad.js' });
  assert.deepEqual(pj.exports['./python'], { types: './python.d.ts', default: './python.js' });
  assert.equal(pj.bin.hookgrad, './bin/hookgrad.mjs');
  assert.match(pj.dependencies.pyodide, /^\d+\.\d+\.\d+$/, 'Pyodide pinned to one version');
  assert.ok(Array.isArray(pj.sideEffects) && pj.sideEffects.includes('./hookgrad.js'), 'the facade patches prototypes: it has side effects');
});

test('Node resolves the installed package through its exports', () => {
  const app = path.join(tmp, 'app');
  const script = `import * as hg from 'hookgrad';
import fs from 'node:fs';
hg.initSync({ module: fs.readFileSync(new URL(import.meta.resolve('hookgrad/hookgrad_bg.wasm'))) });
const x = hg.tensor([1, 2, 3], { requiresGrad: true });
x.pow(2).sum().backward();
console.log(JSON.stringify(x.grad.toArray()));`;
  fs.writeFileSync(path.join(app, 'node-check.mjs'), script);
  const out = execFileSync(process.execPath, ['node-check.mjs'], { cwd: app, encoding: 'utf8' });
  assert.equal(out.trim(), '[2,4,6]'); // d/dx sum(x²) = 2x
});

test('a Vite app importing the package builds, and runs in Chromium', async () => {
  const app = path.join(tmp, 'app');
  await build({ root: app, base: './', logLevel: 'warn', configFile: false, build: { outDir: path.join(app, 'dist'), target: 'es2022', emptyOutDir: true } });
  const assets = fs.readdirSync(path.join(app, 'dist', 'assets'));
  assert.ok(assets.some((f) => f.endsWith('.wasm')), `Vite emitted the wasm as an asset: ${assets}`);
  const { server, url } = await serve({ root: path.join(app, 'dist'), port: 0 });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto(url);
    await page.waitForFunction(() => document.getElementById('out').textContent !== '…', null, { timeout: 15000 });
    // d(ab)/da = b = 3, d(ab)/db = a = 2; the full backward hook sees the same pair.
    assert.deepEqual(JSON.parse(await page.locator('#out').textContent()), { a: 3, b: 2, seen: [[3, 2]] });
    assert.deepEqual(errors, []);
  } finally {
    await browser.close(); await new Promise((r) => server.close(r));
  }
});
