// Runs every example of docs/api.md against the built engine: each ```js
// block (except the loading ones, which import) runs with `hg` in scope, and
// a `// …` comment after a console.log(…) on the same line must be exactly
// what that call printed (strings as they are, anything else as JSON). The
// expected values in the doc were worked out by hand or with PyTorch.
// A block that uses a second-release addition this engine build does not
// have yet is reported as todo.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadPackage } from '../load-package.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const { hg } = await loadPackage();
const doc = fs.readFileSync(path.join(ROOT, 'docs', 'api.md'), 'utf8');

const proto = hg.Tensor.prototype;
const present = {
  tidy: hg.tidy, keep: hg.keep, dispose: hg.dispose, memory: hg.memory, cat: hg.cat, stack: hg.stack,
  savedTensorsHooks: hg.savedTensorsHooks, registerMultiGradHook: hg.registerMultiGradHook,
  stride: proto.stride, isContiguous: proto.isContiguous, abs: proto.abs, sqrt: proto.sqrt, softmax: proto.softmax,
  logSoftmax: proto.logSoftmax, unsqueeze: proto.unsqueeze, squeeze: proto.squeeze, expand: proto.expand,
  Sequential: hg.nn?.Sequential, ReLU: hg.nn?.ReLU, Tanh: hg.nn?.Tanh, Sigmoid: hg.nn?.Sigmoid, functional: hg.nn?.functional,
  createGraph: (() => { // an option: supported when a first derivative has a gradFn
    try { const x = hg.tensor(3, { requiresGrad: true }); return !!hg.grad(x.pow(2), x, { createGraph: true })[0]?.gradFn; } catch { return false; }
  })(),
};
const missing = Object.keys(present).filter((k) => !present[k]);

/** [{heading, code, line}] for every ```js block. */
function blocks() {
  const out = []; let heading = ''; let cur = null;
  doc.split('\n').forEach((l, i) => {
    if (cur) { if (l.startsWith('```')) { out.push(cur); cur = null; } else cur.code.push(l); return; }
    if (/^#{2,3} /.test(l)) heading = l.replace(/^#+ /, '');
    else if (l.trim() === '```js') cur = { heading, code: [], line: i + 2 };
  });
  return out;
}

const fmt = (args) => args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ');
const AsyncFunction = (async () => {}).constructor;

for (const b of blocks()) {
  const src = b.code.join('\n');
  if (/^\s*import\s|await import\(|await init\(/m.test(src)) continue; // loading examples need a module context
  const uses = missing.filter((k) => new RegExp(`\\b${k}\\b`).test(src));
  const name = `docs/api.md:${b.line} ${b.heading}`;
  const opts = uses.length ? { todo: `uses ${uses.join(', ')} (second release, not in this build yet)` } : {};
  test(name, opts, async () => {
    const expected = new Map(); // line index → expected text
    const code = b.code.map((l, i) => {
      if (!l.includes('console.log(')) return l;
      const at = l.lastIndexOf(' // ');
      if (at > l.indexOf('console.log(')) expected.set(i, l.slice(at + 4).trim());
      return l.replaceAll('console.log(', `__log(${i}, `);
    }).join('\n');
    const logs = new Map();
    const __log = (i, ...args) => { if (!logs.has(i)) logs.set(i, []); logs.get(i).push(fmt(args)); };
    await new AsyncFunction('hg', '__log', code)(hg, __log);
    for (const [i, want] of expected) {
      assert.ok(logs.has(i), `line ${b.line + i}: console.log never ran (expected ${want})`);
      for (const got of logs.get(i)) assert.equal(got, want, `line ${b.line + i}: ${b.code[i].trim()}`);
    }
  });
}
