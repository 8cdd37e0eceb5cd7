// Deep graphs: a chain of DEEP_N (default 20,000) ops through backward,
// hg.grad, graph(), toString, retainGraph, trace and hooks, then freed.
// PyTorch frees deep graphs iteratively; a recursive free (or walk) would
// overflow the wasm stack. Runs in a child process (deep-child.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const N = Number(process.env.DEEP_N || 20000);
const child = fileURLToPath(new URL('./deep-child.mjs', import.meta.url));

test(`deep graphs: a ${N}-op chain runs, inspects and frees without overflowing the stack`, (t) => {
  const r = spawnSync(process.execPath, ['--expose-gc', child, String(N)], { encoding: 'utf8', timeout: 600000 });
  assert.equal(r.status, 0, `child exited ${r.status}:\n${r.stderr.split('\n').slice(0, 12).join('\n')}`);
  t.diagnostic(r.stdout.trim());
});
