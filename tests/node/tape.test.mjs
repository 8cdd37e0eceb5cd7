// graph() / trace() cross the boundary as one flat tape that the facade
// decodes (crate/core/src/protocol/tape.rs; __decodeTape, crate/js/records.js,
// generated from the same declarations).
// The reference is an independent path: the records' serde derives through
// serde-wasm-bindgen, which only a build with the cargo feature
// `serde-reference` has (the shipped package does not: issue 10, W5). This
// file builds that reference package (a dev build, into target/; cargo
// makes it incremental) and runs it without the decoder. Both paths must
// give identical records: every lesson program and a few extra programs
// (NaN and ±Infinity, module hooks, errors) are run once per path and
// compared, with ids (which differ between two runs) numbered by first
// appearance.
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { hg, root } from './helpers.mjs';
import { loadPackage } from '../load-package.mjs';
import { LESSONS } from '../../web/src/model/lessons.js';
import { runProgram } from '../../web/src/model/run-program.js';

const EXTRA = [
  // Non-finite values, a named tensor, retain_grad, a node pre-hook.
  `const x = hg.tensor([0, 1, -1], { requiresGrad: true, name: 'x' });
const y = x.log().mul(x.div(0));
y.retainGrad();
y.gradFn.registerPrehook(function pre(g) { console.log('pre', g); });
y.sum().backward();`,
  // A module with full backward (pre-)hooks and a forward hook.
  `const m = new hg.Module('Scale', (x) => x.mul(3));
m.registerFullBackwardPreHook(function seeOut(module, gradOutput) { console.log('pre', gradOutput); });
m.registerFullBackwardHook(function seeIn(module, gi, go) { return [gi[0].mul(2)]; });
m.registerForwardHook(function fwd(module, args, out) {});
const x = hg.tensor([1, 2], { requiresGrad: true });
m.call(x).sum().backward();`,
  // A hook that throws: the trace ends with an error event.
  `const x = hg.tensor([1, 2], { requiresGrad: true });
x.mul(2).registerHook(function bad() { throw new Error('inside #3'); });
x.mul(2).sum().backward();
const y = x.mul(2); y.registerHook(function bad() { throw new Error('inside'); });
y.sum().backward();`,
];

const ID_KEYS = new Set(['id', 'node', 'inputs', 'output', 'handle', 'tensor', 'tensors', 'hook', 'moduleId', 'gradFn', 'variable']);

/** Ids renumbered by first appearance per key; `#n` in texts dropped. */
function canonical(v) {
  const maps = new Map();
  const id = (key, n) => {
    const m = maps.get(key) ?? maps.set(key, new Map()).get(key);
    if (!m.has(n)) m.set(n, m.size);
    return `${key}:${m.get(n)}`;
  };
  // `id` is a tensor id in graph.tensors and a node id in graph.nodes:
  // numbered per container, so two counters never share a map.
  const walk = (x, key, container) => {
    if (Array.isArray(x)) return x.map((e) => walk(e, key, key));
    if (x !== null && typeof x === 'object') {
      const o = {};
      for (const k of Object.keys(x)) o[k] = walk(x[k], k, container);
      return o;
    }
    if (typeof x === 'number' && ID_KEYS.has(key)) return id(key === 'id' ? `${container}.id` : key, x);
    if (typeof x === 'string') return x.replace(/#\d+/g, '#');
    return x;
  };
  return walk(v, '', '');
}

/** The serde-reference package (built here), initialised, without a tape decoder. */
async function serdeReference() {
  const out = path.join('target', 'pkg-serde-reference');
  try {
    execFileSync('bash', ['scripts/build-wasm.sh'], {
      cwd: root,
      env: { ...process.env, HOOKGRAD_PROFILE: '--dev', HOOKGRAD_FEATURES: 'serde-reference', HOOKGRAD_OUT: out },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (e) {
    throw new Error(`building the serde-reference package failed:\n${e.stderr}`);
  }
  const { hg: ref } = await loadPackage({ dir: path.join(root, out) });
  ref.__setTapeDecoder(null);
  return ref;
}
const ref = await serdeReference();
// Hook events name the user's register*() line, the first stack frame
// outside hookgrad: the unoptimized reference has more wasm frames on the
// stack than V8's default 10 keep.
Error.stackTraceLimit = 100;

let decoded = 0;
const counting = (words, strings) => { decoded++; return hg.__decodeTape(words, strings); };

function runBoth(program) {
  let tape;
  try {
    hg.__setTapeDecoder(counting);
    const before = decoded;
    tape = runProgram(hg, program);
    assert.ok(decoded > before, 'the tape path ran');
  } finally {
    hg.__setTapeDecoder(hg.__decodeTape);
  }
  const serde = runProgram(ref, program);
  return { tape, serde };
}

test('the tape and serde-wasm-bindgen give the same graph() and trace() for every lesson and extra program', () => {
  let events = 0;
  for (const program of [...LESSONS.map((l) => l.program), ...EXTRA]) {
    const { tape, serde } = runBoth(program);
    assert.deepEqual(canonical(tape), canonical(serde), program.slice(0, 80));
    events += tape.trace.length;
  }
  assert.ok(events > 100, `only ${events} events compared`);
});

test('the tape keeps NaN and ±Infinity as numbers, and -0', () => {
  const x = hg.tensor([0, 1, -1, -0]);
  const data = hg.graph([x]).tensors[0].data;
  assert.deepEqual(data.slice(0, 3), [0, 1, -1]);
  assert.ok(Object.is(data[3], -0));
  const y = hg.graph([x.div(0)]).tensors[0].data;
  assert.ok(Number.isNaN(y[0]) && y[1] === Infinity && y[2] === -Infinity, String(y));
});

test('the shipped package has no serde fallback: without the decoder, graph() is a clear error', () => {
  try {
    hg.__setTapeDecoder(null);
    assert.throws(() => hg.graph([hg.tensor(1)]), /need the record decoder that hookgrad\.js sets/);
  } finally {
    hg.__setTapeDecoder(hg.__decodeTape);
  }
  assert.equal(ref.graph([ref.tensor(1)]).tensors.length, 1, 'the reference builds it through serde');
});

test('a corrupt tape is an internal error, not a wrong value', () => {
  assert.throws(() => hg.__decodeTape(Float64Array.of(9), []), /internal: graph\/trace record: bad record kind 9 at 0/);
  // An empty trace (root 1, no events) and one word more.
  assert.throws(() => hg.__decodeTape(Float64Array.of(1, 0, 5), []), /internal: graph\/trace record: 1 tape words left over/);
  // A graph whose node list is missing.
  assert.throws(() => hg.__decodeTape(Float64Array.of(0, 0), []), /internal: graph\/trace record: the tape ended 1 words early/);
  // An event tag past the declared ones.
  assert.throws(() => hg.__decodeTape(Float64Array.of(1, 1, 42), []), /internal: graph\/trace record: bad Event tag 42 at 2/);
});
