// Seeded random programs over the hookgrad JS API, run both on hookgrad and
// on the float64 reference (refgrad.mjs), compared value by value. The
// generator is program-gen.mjs, the runners and the comparison
// program-check.mjs; this file is what the suites import (everything is
// re-exported here), plus `minimize`, which shrinks a failing program while
// it still fails, and the fresh-instance check.
import { check, flat, runReference } from './program-check.mjs';

export { rng, generate } from './program-gen.mjs';
export { runReference, toSource, runHookgrad, close, compare, check } from './program-check.mjs';

// ------------------------------------------------------------ minimize

/** Instructions that use tensor `id` or hook `hid`. */
const uses = (ins, name) => ins.on === name || ins.hid === name && ins.k === 'remove' || (ins.args || []).includes(name);

/**
 * Shrink a failing program: drop instructions nothing later depends on, and
 * try backward from earlier tensors, while `fails(prog)` stays true.
 */
export function minimize(prog, fails, budget = 300) {
  let cur = prog;
  let changed = true;
  let tries = 0;
  const safeFails = (cand) => tries++ < budget && candidateFails(cand, fails);
  while (changed && tries < budget) {
    changed = false;
    const rg = requiresGradIds(cur);
    // retarget the backward to an earlier tensor that requires grad
    const bwIdx = cur.ins.findIndex((i) => i.k === 'backward');
    const bw = cur.ins[bwIdx];
    for (const ins of cur.ins) {
      if ((ins.k !== 'op' && ins.k !== 'leaf') || ins.id === bw.on || !rg.has(ins.id)) continue;
      const cand = { ...cur, ins: cur.ins.map((i) => (i === bw ? { ...bw, on: ins.id, reduce: 'sum', grad: undefined } : i)) };
      if (safeFails(cand)) { cur = cand; changed = true; break; }
    }
    for (let i = cur.ins.length - 1; i >= 0; i--) {
      const ins = cur.ins[i];
      if (ins.k === 'backward') continue;
      const names = ins.k === 'inplace' ? [ins.newBase, ins.newView] : [ins.k === 'leaf' || ins.k === 'op' ? ins.id : ins.hid];
      if (names.some((name) => name && cur.ins.some((o, j) => j !== i && uses(o, name)))) continue;
      const cand = { ...cur, ins: cur.ins.filter((_, j) => j !== i) };
      if (safeFails(cand)) { cur = cand; changed = true; }
    }
    // simplify: backward twice -> once
    const b = cur.ins.find((i) => i.k === 'backward');
    if (b.twice) {
      const cand = { ...cur, ins: cur.ins.map((i) => (i === b ? { ...b, twice: false } : i)) };
      if (safeFails(cand)) { cur = cand; changed = true; }
    }
  }
  return cur;
}

function requiresGradIds(prog) {
  const rg = new Set();
  for (const ins of prog.ins) {
    if (ins.k === 'leaf' && ins.rg) rg.add(ins.id);
    if (ins.k === 'op' && ins.args.some((a) => rg.has(a))) rg.add(ins.id);
    if (ins.k === 'inplace') { rg.add(ins.newBase); rg.add(ins.newView); }
  }
  return rg;
}

function candidateFails(prog, fails) {
  try {
    const ref = runReference(prog);
    const bad = Object.values(ref.grads).some((g) => g !== null && flat(g).some((x) => !Number.isFinite(x)));
    if (bad) return false;
    return fails(prog);
  } catch {
    return false;
  }
}

// ------------------------------------------------- fresh-instance checks

/** check() in a child process with a fresh wasm instance; a crash counts as a failure. */
export async function checkFresh(prog) {
  const { spawnSync } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const runner = fileURLToPath(new URL('./program-runner.mjs', import.meta.url));
  const r = spawnSync(process.execPath, [runner], { input: JSON.stringify(prog), encoding: 'utf8', timeout: 30000 });
  if (r.status !== 0) return [`child exited ${r.status}: ${(r.stderr || '').split('\n').slice(0, 4).join(' | ')}`];
  try { return JSON.parse(r.stdout); } catch { return [`child printed ${r.stdout.slice(0, 200)}`]; }
}

/** Is this failure a trap (the wasm instance is dead afterwards)? */
export const isTrap = (errs) => errs && errs.some((e) => /RuntimeError: (unreachable|memory access|table index)|recursive use of an object|already (mutably )?borrowed|null pointer passed to rust|child exited/.test(e));
