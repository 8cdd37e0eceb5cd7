// Deferred 0-d ops (crate/core/src/deferred.rs, used by the binding's
// add/sub/mul/tanh, item() and backward()) must be invisible: seeded random
// programs over 0-d tensors run on two fresh wasm instances, one with
// deferral off (every op eager, the path the PyTorch fixtures check) and one
// with it on, and everything JS can observe must be identical — values as
// exact text, ids, versions, grad_fn names and edges, .grad, hook calls and
// their gradients, error texts, hg.memory() counts, hg.graph() and
// hg.trace() records.
//
//   DEFERRED_PROGRAMS=N  how many programs (default 300)
//   DEFERRED_SEED=S      first seed (default 1)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadPackage } from '../load-package.mjs';
import { rng } from '../hardening/programs.mjs';

const N = Number(process.env.DEFERRED_PROGRAMS || 1000);
const BASE = Number(process.env.DEFERRED_SEED || 1);

// Two independent instances of the package (fresh copies: ES modules are
// cached by URL).
export const { hg: eager } = await loadPackage({ fresh: true });
eager.__deferScalarOps(false);
export const { hg: deferred } = await loadPackage({ fresh: true });

/** `f()`'s value, or its error as text. */
function attempt(f) {
  try {
    return f();
  } catch (e) {
    return `${e?.constructor?.name}: ${e?.message}`;
  }
}

const num = (v) => (typeof v === 'number' ? String(v) : v);
const gradText = (t) => attempt(() => (t.grad === null ? 'null' : `${num(t.grad.item())} v${t.grad.version}`));

/** Runs program `seed` on `hg`; returns its transcript (one line per observation). */
export function run(hg, seed) {
  const r = rng(seed);
  const out = [];
  const log = (...xs) => out.push(xs.map(num).join(' '));
  const leaves = [];
  const ts = [];
  hg.tidy(() => {
    const nLeaves = r.int(1, 4);
    for (let i = 0; i < nLeaves; i++) {
      const rg = r.chance(0.75);
      const t = r.chance(0.1) ? hg.tensor([r.val()], { requiresGrad: rg }) : hg.tensor(r.val(), { requiresGrad: rg });
      leaves.push(t);
      ts.push(t);
    }
    let hooks = 0;
    const steps = r.int(5, 40);
    for (let s = 0; s < steps; s++) {
      const k = r.next();
      const t = r.pick(ts);
      if (k < 0.35) {
        const op = r.pick(['add', 'sub', 'mul']);
        const other = r.chance(0.3) ? r.val() : r.pick(ts);
        const y = attempt(() => t[op](other));
        if (typeof y === 'string') log('op error', y);
        else ts.push(y);
      } else if (k < 0.45) {
        ts.push(t.tanh());
      } else if (k < 0.53) {
        log('observe', attempt(() => [
          t.item(), t.id, t.version, t.isLeaf, t.requiresGrad, t.retainsGrad, t.gradFn?.name,
          t.gradFn?.id, JSON.stringify(t.gradFn?.nextFunctions.map(([n, i]) => (n ? `${n.name}#${n.id}:${i}` : null))),
        ].join(' ')));
      } else if (k < 0.57) {
        const l = r.pick(leaves);
        log('no_grad add_', attempt(() => hg.noGrad(() => l.add_(1)).version));
      } else if (k < 0.6) {
        log('mul_', attempt(() => t.mul_(2).version));
      } else if (k < 0.63) {
        const l = r.pick(leaves);
        log('requiresGrad =', attempt(() => { l.requiresGrad = !l.requiresGrad; return l.requiresGrad; }));
      } else if (k < 0.68) {
        const id = hooks++;
        const double = r.chance(0.3);
        const onNode = r.chance(0.3);
        log('hook', id, attempt(() => {
          if (onNode) {
            if (!t.gradFn) return 'no grad_fn';
            t.gradFn.registerPrehook((gs) => { log('prehook', id, gs.map((g) => (g ? g.item() : null)).join(',')); });
            return 'on node';
          }
          t.registerHook((g) => {
            log('hook', id, 'called', g.item());
            return double ? g.mul(2) : undefined;
          });
          return 'on tensor';
        }));
      } else if (k < 0.71) {
        log('retainGrad', attempt(() => t.retainGrad() ?? 'ok'));
      } else if (k < 0.74) {
        if (ts.length > 1 && !leaves.includes(t)) {
          t.dispose();
          ts.splice(ts.indexOf(t), 1);
        }
      } else if (k < 0.78) {
        const m = hg.memory();
        log('memory', m.tensors, m.nodes, m.handles);
      } else if (k < 0.82) {
        const y = attempt(() => r.pick([() => t.div(2), () => t.exp(), () => t.neg()])());
        if (typeof y === 'string') log('eager op error', y);
        else ts.push(y);
      } else if (k < 0.92) {
        const retainGraph = r.chance(0.5);
        log('backward', retainGraph, attempt(() => t.backward(undefined, { retainGraph }) ?? 'ok'));
        for (const l of leaves) log(' grad', gradText(l));
        for (const x of ts) if (x.retainsGrad) log(' retained', gradText(x));
      } else if (k < 0.94) {
        const l = r.pick(leaves);
        l.grad = null;
      } else if (k < 0.96) {
        log('trace', attempt(() => JSON.stringify(hg.trace(() => t.backward(undefined, { retainGraph: true })))));
      } else if (k < 0.98) {
        log('graph', attempt(() => JSON.stringify(hg.graph([t]))));
      } else {
        const l = r.pick(leaves);
        log('hg.grad', attempt(() => hg.grad(t, [l], { retainGraph: true, allowUnused: true }).map((g) => (g ? g.item() : null)).join(',')));
      }
    }
    const last = ts[ts.length - 1];
    log('final', attempt(() => `${last.item()} ${last.gradFn?.name}`));
  });
  const m = hg.memory();
  log('after tidy', m.tensors, m.nodes, m.handles);
  return out;
}

const BATCH = 100;
for (let start = BASE; start < BASE + N; start += BATCH) {
  const end = Math.min(BASE + N, start + BATCH);
  test(`deferred 0-d ops observe as eager ones: seeds ${start}..${end - 1}`, () => {
    for (let seed = start; seed < end; seed++) {
      const a = run(eager, seed);
      const b = run(deferred, seed);
      const i = a.findIndex((line, k) => line !== b[k]);
      if (i >= 0 || a.length !== b.length) {
        const at = i >= 0 ? i : Math.min(a.length, b.length);
        assert.fail(`seed ${seed}, line ${at}:\n  eager:    ${a[at]}\n  deferred: ${b[at]}\n(re-run: DEFERRED_SEED=${seed} DEFERRED_PROGRAMS=1)`);
      }
    }
  });
}
