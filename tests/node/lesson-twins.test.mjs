// Every lesson's Python twin (web/src/model/lessons-python.js) gives the
// same graph and trace as its JavaScript program — values, hook order, node
// names — so a lesson's figure can be drawn from either (the playground shows
// the JS twin's figure while Pyodide loads). Printed lines differ on purpose
// (console.log vs PyTorch's print), and so do hook function names (a lambda
// is '<lambda>'); ids are compared up to renaming (first appearance).
import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LESSONS } from '../../web/src/model/lessons.js';
import { NOT_TWINS } from '../../web/src/model/lessons-python.js';
import { runProgram } from '../../web/src/model/run-program.js';
import { withEpilogue } from '../../web/src/model/python-epilogue.js';
import { loadPackage, pkgUrl } from '../load-package.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
let hg; let py;

before(async () => {
  ({ hg } = await loadPackage());
  const { loadPython } = await import(pkgUrl('python.js'));
  py = await loadPython({ hg });
});

/** Ids of one kind (tensors, nodes, handles) renamed 1, 2, … in order of first appearance. */
function renamer() {
  const maps = { t: new Map(), n: new Map(), h: new Map(), m: new Map() };
  return (kind, id) => {
    if (id == null) return id;
    const m = maps[kind];
    if (!m.has(id)) m.set(id, m.size + 1);
    return m.get(id);
  };
}

/** The trace without printed lines and hook names, ids renamed. */
export function comparableTrace(trace) {
  const id = renamer();
  return trace.filter((ev) => ev.type !== 'log').map((ev) => {
    const o = { ...ev };
    delete o.name; delete o.tensorName; delete o.hook; delete o.line; delete o.column; delete o.source; delete o.message; delete o.text;
    if (ev.type === 'node' || ev.type === 'op') o.name = ev.name; // node names are compared
    for (const k of ['tensor', 'output', 'variable']) if (k in o) o[k] = id('t', o[k]);
    for (const k of ['inputs', 'tensors']) if (Array.isArray(o[k])) o[k] = o[k].map((t) => id('t', t));
    if ('node' in o) o.node = id('n', o.node);
    if ('handle' in o) o.handle = id('h', o.handle);
    if ('moduleId' in o) o.moduleId = id('m', o.moduleId);
    if (ev.type === 'warning' || ev.type === 'error') o.kind = ev.kind ?? null;
    return o;
  });
}

/**
 * Both programs run to the end, or both stop at the same error (a lesson
 * that shows PyTorch raising): JavaScript's message may name the modules
 * the error passed through before PyTorch's words.
 */
function sameOutcome(js, p) {
  if (!js.error && !p.exception) return;
  assert.ok(js.error && p.exception, `both run, or both raise: JS ${js.error?.message}; Python ${p.stderr}`);
  assert.ok(js.error.message.endsWith(p.exception.message), `the same error: ${js.error.message} / ${p.exception.message}`);
}

for (const lesson of LESSONS) {
  test(`lesson ${lesson.n} (${lesson.id}): Python and JavaScript give the same graph and trace`, { todo: NOT_TWINS[lesson.id] }, () => {
    assert.equal(typeof lesson.python, 'string', 'the lesson has a Python program');
    const js = runProgram(hg, lesson.program, { semantics: 'pytorch-2' });
    const p = py.run(withEpilogue(py.pyodide, lesson.python), { semantics: 'pytorch-2', filename: 'main.py' });
    sameOutcome(js, p);
    assert.deepEqual(comparableTrace(p.trace), comparableTrace(js.trace));
    // The same backward nodes in the graph, and the same leaf gradients.
    const nodes = (g) => g.nodes.map((n) => n.name).sort();
    assert.deepEqual(nodes(p.graph), nodes(js.graph));
    const grads = (g) => g.tensors.filter((t) => t.isLeaf && t.requiresGrad).map((t) => JSON.stringify([t.shape, t.grad ?? null])).sort();
    assert.deepEqual(grads(p.graph), grads(js.graph));
  });
}

// A surprise lesson's switch flips its Python and its JavaScript alike: twins on that side too.
const { flipSwitch } = await import('../../web/src/model/lesson-switch.js');
for (const lesson of LESSONS.filter((l) => l.switch)) {
  test(`lesson ${lesson.n} (${lesson.id}), switched: Python and JavaScript give the same graph and trace`, () => {
    const js = runProgram(hg, flipSwitch(lesson.program, lesson.switch.js), { semantics: 'pytorch-2' });
    const p = py.run(withEpilogue(py.pyodide, flipSwitch(lesson.python, lesson.switch.python)), { semantics: 'pytorch-2', filename: 'main.py' });
    sameOutcome(js, p);
    assert.deepEqual(comparableTrace(p.trace), comparableTrace(js.trace));
  });
}

// The tutorials' code cells with a Python twin (<pre class="cell-src" data-lang="python">):
// their figures and the numbers in their prose come from the JavaScript.
const unescape = (t) => t.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
const { readSemantics } = await import('../../web/src/tutorials/code-cell.js');
for (const page of fs.readdirSync(path.join(ROOT, 'web', 'tutorials')).filter((f) => f.endsWith('.html'))) {
  const html = fs.readFileSync(path.join(ROOT, 'web', 'tutorials', page), 'utf8');
  const re = /<div class="cell" id="([^"]+)"([^>]*)>\s*<pre class="cell-src"><code>((?:(?!<\/code>)[\s\S])*)<\/code><\/pre>\s*<pre class="cell-src" data-lang="python"><code>((?:(?!<\/code>)[\s\S])*)<\/code><\/pre>/g;
  for (const [, id, attrs, jsSrc, pySrc] of html.matchAll(re)) {
    // A known difference, named on the cell: data-twin-todo="why".
    const todo = /data-twin-todo="([^"]*)"/.exec(attrs)?.[1];
    test(`${page} ${id}: the Python cell gives the JavaScript cell's graph and trace`, { todo: todo ? unescape(todo) : undefined }, () => {
      const js = readSemantics(unescape(jsSrc), 'pytorch-2', 'js');
      const pyc = readSemantics(unescape(pySrc), 'pytorch-2', 'python');
      assert.equal(pyc.semantics, js.semantics, 'the same semantics');
      const a = runProgram(hg, js.program, { semantics: js.semantics });
      assert.equal(a.error, null);
      const p = py.run(withEpilogue(py.pyodide, pyc.program), { semantics: pyc.semantics, filename: 'main.py' });
      assert.equal(p.exception, null, p.stderr);
      assert.deepEqual(comparableTrace(p.trace), comparableTrace(a.trace));
    });
  }
}
