// Where an error inside a hook points: the trace's `error` event names the
// hook (hook, hookKind, hookName), the graph's row for that handle says where
// it was registered; nothing is read out of the message. Programs run through
// the built engine as the playground runs them (run-program.js); the expected
// lines are those of the programs below, counted by hand.
import test from 'node:test';
import assert from 'node:assert/strict';
import { runProgram } from '../../web/src/model/run-program.js';
import { failedHook, hookErrorPlace } from '../../web/src/model/error-place.js';
import { hg } from './fixtures.mjs';

test('a named hook that throws: the line inside it that threw', () => {
  const r = runProgram(hg, `const a = hg.tensor(2, { requiresGrad: true, name: 'a' });
const c = a.mul(3); c.name = 'c';
c.registerHook(function broken(grad) {
  return grad.nope.mul(2);
});
c.backward();`);
  assert.match(r.error.message, /^RuntimeError: tensor hook 'broken' on tensor 'c' raised an error: /);
  assert.equal(r.error.line, 4);
  assert.equal(r.error.hook, 'hook broken, thrown here');
  const ev = r.trace.findLast((e) => e.type === 'error');
  assert.equal(ev.hookKind, 'tensor');
  assert.equal(ev.hookName, 'broken');
  const row = r.graph.tensors.find((t) => t.name === 'c').hooks[0];
  assert.equal(ev.hook, row.handle, 'the event names the handle of the graph row');
});

test('an anonymous hook that throws a non-Error: the line that registered it, by its handle', () => {
  const r = runProgram(hg, `const a = hg.tensor(2, { requiresGrad: true, name: 'a' });
const b = a.mul(3);
b.registerHook((g) => g);
const c = a.mul(4);
c.registerHook((g) => { throw 'no'; });
b.add(c).backward();`);
  assert.equal(r.error.hook, 'tensor hook, registered here');
  assert.equal(r.error.line, 5, 'the second anonymous hook, not the first row with a source');
});

test('a module forward hook that throws: named by its kind and handle', () => {
  const r = runProgram(hg, `const m = new hg.Module('Scale', (x) => x.mul(3));
m.registerForwardHook(function fwd(module, args, out) {
  throw new Error('bad forward hook');
});
m.call(hg.tensor([1, 2]));`);
  assert.match(r.error.message, /forward hook of module 'Scale' raised an error: bad forward hook$/);
  const ev = r.trace.findLast((e) => e.type === 'error');
  assert.deepEqual([ev.hookKind, ev.hookName], ['module-forward', 'fwd']);
  assert.equal(r.error.line, 3);
  assert.equal(r.error.hook, 'hook fwd, thrown here');
});

test('a program error whose text reads like a hook error points at no hook', () => {
  const r = runProgram(hg, `const a = hg.tensor(2, { requiresGrad: true, name: 'a' });
a.registerHook(function h(g) { return g; });
throw new Error("tensor hook 'h' on tensor 'a' raised an error: not really");`);
  assert.equal(r.error.hook, undefined);
  assert.equal(r.error.line, 3);
});

test('failedHook takes the latest error event that ends the thrown message', () => {
  const trace = [
    { type: 'error', message: 'x raised an error: a', hook: 1, hookKind: 'tensor', hookName: 'a' },
    { type: 'error', message: 'y raised an error: b', hook: 2, hookKind: 'node-pre', hookName: '' },
    { type: 'error', message: 'plain' },
  ];
  assert.deepEqual(failedHook("RuntimeError: outer: y raised an error: b", trace), { handle: 2, kind: 'node-pre', name: '' });
  assert.deepEqual(failedHook('x raised an error: a', trace), { handle: 1, kind: 'tensor', name: 'a' });
  assert.equal(failedHook('plain', trace), null);
  assert.equal(hookErrorPlace(null, { tensors: [], nodes: [] }, ''), null);
  // Anonymous, no row with a source: its kind, nowhere to point.
  assert.equal(hookErrorPlace({ handle: 2, kind: 'node-pre', name: '' }, { tensors: [], nodes: [] }, ''), null);
  const graph = { tensors: [], nodes: [{ preHooks: [{ handle: 2, kind: 'node-pre', name: '', source: { line: 7, column: 3 } }], postHooks: [] }] };
  assert.deepEqual(hookErrorPlace({ handle: 2, kind: 'node-pre', name: '' }, graph, ''), { line: 7, column: 3, hook: 'pre-hook, registered here' });
});
