// Seeded random programs (programs.mjs) run on hookgrad and on an independent
// float64 reference autodiff (refgrad.mjs); every leaf grad, retained grad,
// hook-observed gradient and kept gradient must agree (rtol 1e-3).
//
//   HARDENING_PROGRAMS=N   how many programs (default 300; scripts/fuzz.sh runs 5,000+)
//   HARDENING_SEED=S       first seed (default 1); seeds S .. S+N-1
//
// A failing seed prints a minimal reproduction: a JS program to paste into
// the playground or a Node script with `hg` loaded. To re-run one seed:
//   HARDENING_SEED=1234 HARDENING_PROGRAMS=1 node --test tests/hardening/random-programs.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { hg } from './harness.mjs';
import * as P from './programs.mjs';

const N = Number(process.env.HARDENING_PROGRAMS || 300);
const BASE = Number(process.env.HARDENING_SEED || 1);
const BATCH = 50;
const runner = fileURLToPath(new URL('./program-runner.mjs', import.meta.url));

/** check() on a fresh instance in a child process (after a trap this one is dead). */
function failsFresh(prog) {
  const r = spawnSync(process.execPath, [runner], { input: JSON.stringify(prog), encoding: 'utf8', timeout: 30000 });
  if (r.status !== 0) return true;
  try { return P.isTrap(JSON.parse(r.stdout)); } catch { return true; }
}

function report(seed, prog, errs) {
  const trap = P.isTrap(errs);
  const min = trap
    ? P.minimize(prog, failsFresh, 80)
    : P.minimize(prog, (p) => P.check(hg, p) !== null, 400);
  const minErrs = trap ? ['(trap: see above)'] : P.check(hg, min) || errs;
  return [
    `seed ${seed}: ${trap ? 'WASM TRAP' : 'mismatch'}`,
    ...errs.slice(0, 6).map((e) => `  ${e}`),
    `minimal reproduction (${min.ins.length} of ${prog.ins.length} instructions):`,
    '```js',
    P.toSource(min),
    '```',
    ...minErrs.slice(0, 4).map((e) => `  ${e}`),
    `re-run: HARDENING_SEED=${seed} HARDENING_PROGRAMS=1 node --test tests/hardening/random-programs.test.mjs`,
  ].join('\n');
}

const stats = { programs: 0, ops: new Set(), hooks: new Set(), twice: 0, p1: 0, broadcast: 0 };
let trapped = null;

for (let start = BASE; start < BASE + N; start += BATCH) {
  const end = Math.min(BASE + N, start + BATCH);
  test(`random programs: seeds ${start}..${end - 1}`, async () => {
    assert.equal(trapped, null, `the wasm instance trapped at seed ${trapped}; later programs cannot run`);
    const failures = [];
    for (let seed = start; seed < end; seed++) {
      const prog = P.generate(seed);
      stats.programs++;
      for (const i of prog.ins) {
        if (i.k === 'op') stats.ops.add(i.op);
        if (i.k === 'hook') stats.hooks.add(`hook:${i.kind}`);
        else if (!['leaf', 'op', 'backward'].includes(i.k)) stats.hooks.add(i.k);
        if (i.k === 'backward' && i.twice) stats.twice++;
      }
      if (prog.semantics === 'pytorch-1') stats.p1++;
      const errs = P.check(hg, prog);
      if (errs) {
        const msg = report(seed, prog, errs);
        console.log(msg);
        failures.push(msg);
        if (P.isTrap(errs)) { trapped = seed; break; }
        if (failures.length >= 3) break;
      }
    }
    // Let FinalizationRegistry callbacks free the wrappers between batches.
    await new Promise((r) => setTimeout(r, 0));
    assert.equal(failures.length, 0, failures.join('\n\n'));
  });
}

test('random programs: the generator covers every op and hook kind', () => {
  if (N < 200) return; // too few programs to expect full coverage
  const ops = ['add', 'sub', 'mul', 'div', 'neg', 'pow', 'exp', 'log', 'sin', 'cos', 'tanh', 'sigmoid', 'relu', 'matmul', 'sum', 'mean', 'reshape', 'transpose', 't', 'clone',
    'abs', 'sqrt', 'softmax', 'logSoftmax', 'unsqueeze', 'squeeze', 'expand', 'cat', 'stack', 'mseLoss'];
  assert.deepEqual(ops.filter((o) => !stats.ops.has(o)), [], 'ops never generated');
  const hooks = ['hook:scale', 'hook:affine', 'hook:observe', 'hook:keep', 'hook:identity', 'retain', 'pahook', 'nodepre', 'nodepost', 'remove', 'inplace'];
  assert.deepEqual(hooks.filter((h) => !stats.hooks.has(h)), [], 'hook kinds never generated');
  assert.ok(stats.twice > 0 && stats.p1 > 0, 'double backward and pytorch-1 semantics are exercised');
  console.log(`# random programs: ${stats.programs} programs, ${stats.twice} with two backward passes, ${stats.p1} under pytorch-1`);
});
