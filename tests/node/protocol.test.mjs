// The typed seam: real engine output (every lesson program of the
// playground, under both semantics, plus programs for the remaining record
// kinds) checked against crate/js/protocol.d.ts, and the facts the UI relies
// on instead of guessing: a module backward hook's graph row and trace event
// share the handle register*() returned; console lines are `log` events
// placed after the hook that printed them; NaN and ±Infinity arrive as numbers.
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { hg, root } from './helpers.mjs';
import { parseProtocol, check } from './protocol-types.mjs';
import { LESSONS } from '../../web/src/model/lessons.js';
import { runProgram } from '../../web/src/model/run-program.js';

const schema = parseProtocol(path.join(root, 'crate/js/protocol.d.ts'));

const EXTRA = {
  'full backward pre-hook': `
const m = new hg.Module('Scale', (x) => x.mul(3));
m.registerFullBackwardPreHook(function seeOut(module, gradOutput) { console.log('pre', gradOutput); });
const x = hg.tensor([1, 2], { requiresGrad: true, name: 'x' });
m.call(x).sum().backward();`,
  'a hook that throws': `
const x = hg.tensor([1, 2], { requiresGrad: true, name: 'x' });
const y = x.mul(3).sum();
y.gradFn.registerHook(function boom() { throw new Error('boom'); });
y.backward();`,
  'non-finite values': `
const x = hg.tensor([NaN, Infinity, -Infinity, 1], { requiresGrad: true, name: 'x' });
x.mul(2).sum().backward();
console.warn('done');`,
};

const programs = [
  ...LESSONS.flatMap((l) => ['pytorch-2', 'pytorch-1'].map((s) => [`${l.id} (${s})`, l.program, s])),
  ...Object.entries(EXTRA).map(([k, p]) => [k, p, 'pytorch-2']),
];

test('graph() and trace() of every lesson conform to protocol.d.ts, and every declared field occurs', () => {
  const seen = new Map(); // interface → Set of fields seen
  const note = (name, v) => { const s = seen.get(name) || new Set(); for (const k of Object.keys(v)) s.add(k); seen.set(name, s); };
  const kinds = new Set();
  for (const [name, program, semantics] of programs) {
    const r = runProgram(hg, program, { semantics });
    // Two programs end in an error on purpose (inplace-after-hook shows PyTorch's).
    if (name === 'a hook that throws' || name.startsWith('inplace-after-hook ')) assert.ok(r.error, `${name}: raises`);
    else assert.equal(r.error, null, `${name}: ${r.error?.message}`);
    assert.ok(r.trace.length > 0 && r.graph.tensors.length > 0, `${name}: ran`);
    assert.deepEqual(check(schema, 'GraphInfo', r.graph, 'graph', note), [], name);
    r.trace.forEach((ev, i) => assert.deepEqual(check(schema, 'TraceEvent', ev, `trace[${i}]`, note), [], name));
    for (const ev of r.trace) if (ev.type === 'hook') kinds.add(ev.kind);
  }
  // The types are not looser than the engine: each interface's every field was produced.
  for (const [iface, fields] of Object.entries(schema.interfaces)) {
    if (iface === 'TraceRun') continue; // the wrapper object, checked below
    for (const f of Object.keys(fields)) assert.ok(seen.get(iface)?.has(f), `${iface}.${f} never produced by a real run`);
  }
  for (const k of ['tensor', 'retain-grad', 'node-pre', 'node-post', 'post-accumulate', 'module-pre', 'module-forward', 'module-backward', 'module-full-backward', 'module-full-backward-pre']) {
    assert.ok(kinds.has(k), `hook kind ${k} seen`);
  }
});

test('protocol.d.ts lists the hook kinds and module phases of the contract', () => {
  const lits = (t) => t.union.map((u) => u.literal);
  assert.deepEqual(lits(schema.aliases.HookKind), ['tensor', 'retain-grad', 'node-pre', 'node-post', 'post-accumulate', 'module-pre', 'module-forward', 'module-backward', 'module-full-backward', 'module-full-backward-pre', 'pack', 'unpack', 'multi-grad']);
  assert.deepEqual(lits(schema.aliases.ModulePhase), ['pre-hook', 'forward', 'hook', 'end']);
  assert.deepEqual(schema.aliases.TraceEvent.union.map((u) => schema.interfaces[u.ref].type.type.literal), ['op', 'module', 'node', 'hook', 'accumulate', 'grad-set', 'warning', 'error', 'log']);
});

test('a module full backward hook: graph row, trace event and returned handle are one handle', () => {
  const m = new hg.Module('Mul3', (x, y, z) => x.mul(y).mul(z));
  const hFull = m.registerFullBackwardHook(function fullHook() {});
  const hPre = m.registerFullBackwardPreHook(function preHook() {});
  const hLegacy = new hg.Module('Mul3', (x, y, z) => x.mul(y).mul(z));
  const legacy = hLegacy.registerBackwardHook(function legacyHook() {});
  const [p, q, r] = [2, 3, 4].map((v) => hg.tensor(v, { requiresGrad: true }));
  const out = m.call(p, q, r).add(hLegacy.call(p, q, r));
  const g = hg.graph([out]);
  const rows = g.nodes.flatMap((n) => [...n.preHooks, ...n.postHooks].map((h) => ({ ...h, node: n.id })));
  const row = (handle) => rows.find((h) => h.handle === handle);
  assert.deepEqual({ ...row(hFull.id), node: undefined, handle: undefined }, { kind: 'module-full-backward', name: 'fullHook', module: 'Mul3', moduleId: row(hFull.id).moduleId, source: null, node: undefined, handle: undefined });
  assert.equal(row(hPre.id).kind, 'module-full-backward-pre');
  assert.equal(row(legacy.id).kind, 'module-backward');
  assert.equal(row(legacy.id).name, 'legacyHook');
  assert.notEqual(row(hFull.id).moduleId, row(legacy.id).moduleId, 'two modules, two ids');
  const trace = hg.trace(() => out.backward());
  for (const h of [hFull, hPre, legacy]) {
    const ev = trace.find((e) => e.type === 'hook' && e.handle === h.id);
    assert.ok(ev, `hook ${h.id} fired`);
    assert.equal(ev.node, row(h.id).node, 'the event names the node whose row it is');
    assert.equal(ev.moduleId, row(h.id).moduleId);
  }
  // The legacy hook sees the last multiplication's grads: (d/d(pq), d/dr) = (r, pq) = (4, 6).
  assert.deepEqual(trace.find((e) => e.handle === legacy.id).before, [4, 6]);
  // The full hook sees one gradient per input: (q·r, p·r, p·q) = (12, 8, 6).
  assert.deepEqual(trace.find((e) => e.handle === hFull.id).before, [12, 8, 6]);
});

test('console lines are log events; a hook\'s line follows its event and names it', () => {
  const a = hg.tensor(2, { requiresGrad: true });
  const b = a.mul(3);
  const h = b.registerHook(function show(g) { hg.recordLog('log', `got ${g.item()}`); return g.mul(2); });
  const trace = hg.trace(() => { hg.recordLog('info', 'start'); b.backward(); hg.recordLog('error', 'end'); });
  const i = trace.findIndex((e) => e.type === 'hook' && e.handle === h.id);
  assert.deepEqual(trace[0], { type: 'log', level: 'log', text: 'start', hook: null });
  assert.deepEqual(trace[i + 1], { type: 'log', level: 'log', text: 'got 1', hook: h.id });
  assert.deepEqual(trace.at(-1), { type: 'log', level: 'error', text: 'end', hook: null });
  assert.deepEqual(trace[i].after, 2);
  hg.recordLog('log', 'no trace active: dropped, no error');
  assert.throws(() => hg.recordLog('shout', 'x'), /recordLog\(\): level must be 'log', 'info', 'debug', 'warn' or 'error', not 'shout'/);
  assert.throws(() => hg.recordLog('log', 3), /recordLog\(\): text must be a string, not number/);
});

test('a program run: console lines, the uncaught error, and the graph of every tensor it made', () => {
  const r = runProgram(hg, `
const a = hg.tensor(2, { requiresGrad: true, name: 'a' });
const c = a.mul(a); c.name = 'c';
c.registerHook(function cHook(g) { console.log('cHook got', g); });
hg.zeros([2], { name: 'lone' });
console.log('c =', c);
c.backward();
null.x;`);
  const logs = r.trace.filter((e) => e.type === 'log');
  assert.deepEqual(logs.map((l) => [l.text, l.hook != null]), [['c = tensor(4., grad_fn=<MulBackward0>)', false], ['cHook got tensor(1.)', true]]);
  assert.equal(r.trace.at(-1).type, 'error');
  assert.match(r.error.message, /^TypeError: Cannot read properties of null/);
  assert.equal(r.error.line, 8);
  assert.deepEqual(r.graph.tensors.map((t) => t.name).sort(), ['a', 'c', 'lone'], 'a leaf no op used is listed too');
  assert.equal(r.graph.tensors.find((t) => t.name === 'a').grad, 4, 'dc/da = 2a = 4');
});

test('NaN and ±Infinity reach JS as numbers (JSON has none)', () => {
  const x = hg.tensor([NaN, Infinity, -Infinity], { requiresGrad: true });
  const y = x.mul(1);
  assert.deepEqual(hg.graph([y]).tensors.map((t) => t.data), [[NaN, Infinity, -Infinity], [NaN, Infinity, -Infinity]]);
  const ev = hg.trace(() => y.sum().backward()).find((e) => e.type === 'accumulate');
  assert.deepEqual(ev.grad, [1, 1, 1]);
});
