// Hostile hooks: hooks that throw, re-enter backward(), add and remove hooks
// mid-pass; module hooks and forwards that throw. Each behaves as PyTorch
// does (expected values were produced by torch 2.15 running the same
// program, noted next to each) or throws a clear Error; the canary runs after
// each test. Hooks that inspect, return odd values or keep tensors:
// hostile-hook-values.test.mjs.
import assert from 'node:assert/strict';
import { hg, L, expectError, quiet } from './harness.mjs';
import { item, retain, hostile } from './hostile.mjs';

// ------------------------------------------------------------- throwing

const throwingHooks = [
  ['tensor hook on a leaf', (boom) => { const x = L(2); x.registerHook(boom); x.mul(3).backward(); }, /^tensor hook on tensor #\d+ raised an error: boom$/],
  ['tensor hook on a non-leaf', (boom) => { const y = L(2).mul(3); y.registerHook(boom); y.mul(1).backward(); }, /^tensor hook on tensor #\d+ raised an error: boom$/],
  ['node pre-hook', (boom) => { const y = L(2).mul(3); y.gradFn.registerPrehook(boom); y.backward(); }, /^pre-hook on node MulBackward0 \(#\d+\) raised an error: boom$/],
  ['node post-hook', (boom) => { const y = L(2).mul(3); y.gradFn.registerHook(boom); y.backward(); }, /^hook on node MulBackward0 \(#\d+\) raised an error: boom$/],
  ['AccumulateGrad hook', (boom) => { const y = L(2).mul(3); y.gradFn.nextFunctions[0][0].registerHook(boom); y.backward(); }, /^hook on node AccumulateGrad \(#\d+\) raised an error: boom$/],
  ['post-accumulate hook', (boom) => { const x = L(2); x.registerPostAccumulateGradHook(boom); x.mul(3).backward(); }, /^post-accumulate-grad hook on tensor #\d+ raised an error: boom$/],
  ['retain-grad tensor hook in hg.grad', (boom) => { const x = L(2); const y = x.mul(3); y.registerHook(boom); hg.grad(y.mul(2), x); }, /raised an error: boom$/],
  ['module forward pre-hook', (boom) => { const m = new hg.Module('M', (a) => a.mul(2)); m.registerForwardPreHook(boom); m.call(L(1)); }, /^forward pre-hook of module 'M' raised an error: boom$/],
  ['module forward hook', (boom) => { const m = new hg.Module('M', (a) => a.mul(2)); m.registerForwardHook(boom); m.call(L(1)); }, /^forward hook of module 'M' raised an error: boom$/],
  ['module forward', (boom) => { new hg.Module('M', boom).call(L(1)); }, /^forward of module 'M' raised an error: boom$/],
  ['module full backward hook', (boom) => { const m = new hg.Module('M', (a) => a.mul(2)); m.registerFullBackwardHook(boom); m.call(L(1)).backward(); }, /^full backward hook on module 'M' raised an error: boom$/],
  ['module full backward pre-hook', (boom) => { const m = new hg.Module('M', (a) => a.mul(2)); m.registerFullBackwardPreHook(boom); m.call(L(1)).backward(); }, /^full backward pre-hook on module 'M' raised an error: boom$/],
  ['module legacy backward hook', (boom) => { const m = new hg.Module('M', (a) => a.mul(2)); m.registerBackwardHook(boom); quiet(() => m.call(L(1)).backward()); }, /^backward hook on module 'M' raised an error: boom$/],
  ['global module forward hook', (boom) => { const h = hg.registerModuleForwardHook(boom); try { new hg.Module('G', (a) => a.mul(2)).call(L(1)); } finally { h.remove(); } }, /forward hook of module 'G' raised an error: boom$/],
  ['global module forward pre-hook', (boom) => { const h = hg.registerModuleForwardPreHook(boom); try { new hg.Module('G', (a) => a.mul(2)).call(L(1)); } finally { h.remove(); } }, /module 'G' raised an error: boom$/],
  ['global module full backward hook', (boom) => { const h = hg.registerModuleFullBackwardHook(boom); try { new hg.Module('G', (a) => a.mul(2)).call(L(1)).backward(); } finally { h.remove(); } }, /module 'G' raised an error: boom$/],
  ['global module full backward pre-hook', (boom) => { const h = hg.registerModuleFullBackwardPreHook(boom); try { new hg.Module('G', (a) => a.mul(2)).call(L(1)).backward(); } finally { h.remove(); } }, /module 'G' raised an error: boom$/],
];

for (const [where, run, expected] of throwingHooks) {
  hostile(`${where} throws an Error`, () => {
    expectError(() => run(() => { throw new Error('boom'); }), expected, where);
  });
  hostile(`${where} throws a string`, () => {
    expectError(() => run(() => { throw 'boom'; }), expected, where);
  });
}

hostile('hook throwing a TypeError from user code (undefined.foo)', () => {
  const x = L(2);
  x.registerHook((g) => g.nope.deeper);
  expectError(() => x.mul(3).backward(), /raised an error: .*(undefined|Cannot read)/);
});

hostile('hook throwing undefined gives a readable message', () => {
  const x = L(2);
  x.registerHook(() => { throw undefined; }); // eslint-disable-line no-throw-literal
  expectError(() => x.mul(3).backward(), /^tensor hook on tensor #\d+ raised an error: undefined$/);
});

hostile('hook throwing a plain object gives a readable message', () => {
  const x = L(2);
  x.registerHook(() => { throw { a: 1 }; }); // eslint-disable-line no-throw-literal
  expectError(() => x.mul(3).backward(), /^tensor hook on tensor #\d+ raised an error: .+$/);
});

hostile('a throwing hook aborts the pass before anything accumulates (torch: a.grad, b.grad None)', () => {
  const a = L(1);
  const b = L(1);
  const y = a.mul(2).add(b.mul(3));
  b.registerHook(() => { throw new Error('boom'); });
  expectError(() => y.backward(), /boom/);
  assert.equal(item(a.grad), null);
  assert.equal(item(b.grad), null);
});

hostile('a hook that throws only on its 2nd run; the 3rd backward works', () => {
  const x = L(2);
  let n = 0;
  x.registerHook(() => { n += 1; if (n === 2) throw new Error('second'); });
  x.mul(3).backward();
  expectError(() => x.mul(3).backward(), /second/);
  x.mul(3).backward();
  assert.equal(x.grad.item(), 6);
});

hostile('grad mode and semantics are restored after a hook throws mid-pass', () => {
  const x = L(2);
  x.registerHook(() => { assert.equal(hg.isGradEnabled(), false); throw new Error('x'); });
  expectError(() => x.mul(3).backward(), /x$/);
  assert.equal(hg.isGradEnabled(), true);
  hg.setSemantics('pytorch-1');
  const y = L(2);
  y.registerHook(() => { throw new Error('y'); });
  try {
    expectError(() => y.mul(3).backward(), /y$/);
    assert.equal(hg.getSemantics(), 'pytorch-1');
  } finally {
    hg.setSemantics('pytorch-2');
  }
});

hostile('a throwing hook inside trace() becomes an error event and trace returns', () => {
  const y = L(2).mul(3);
  y.registerHook(() => { throw new Error('traced boom'); });
  const events = hg.trace(() => y.backward());
  assert.ok(events.some((e) => e.type === 'error' && /traced boom/.test(e.message)), JSON.stringify(events));
});

// ----------------------------------------------------------- re-entrancy

hostile('grad mode is off inside hooks: a graph built there has no grad_fn (as in PyTorch)', () => {
  const x = L(2);
  let info;
  x.registerHook((g) => {
    const z = g.mul(5);
    const w = x.mul(5);
    info = [hg.isGradEnabled(), z.gradFn ?? null, z.requiresGrad, w.gradFn ?? null, w.requiresGrad];
  });
  x.mul(3).backward();
  assert.deepEqual(info, [false, null, false, null, false]);
  assert.equal(hg.isGradEnabled(), true);
});

hostile('re-entrant backward() of another graph built beforehand (torch: a.grad 6, x.grad 3)', () => {
  const a = L(3);
  const b = a.mul(a);
  const x = L(2);
  x.registerHook((g) => { b.backward(); return g; });
  x.mul(3).backward();
  assert.equal(a.grad.item(), 6);
  assert.equal(x.grad.item(), 3);
});

hostile('re-entrant backward() of the running graph without retainGraph: torch\'s "second time" error', () => {
  const x = L(2);
  const y = x.mul(3);
  x.registerHook(() => { y.backward(); });
  expectError(() => y.backward(), /Trying to backward through the graph a second time/);
});

hostile('re-entrant backward() of the running graph with retainGraph (torch: x.grad 6)', () => {
  const x = L(2);
  const y = x.mul(3);
  let n = 0;
  x.registerHook(() => { if (n++ < 1) y.backward(undefined, retain); });
  y.backward(undefined, retain);
  assert.equal(x.grad.item(), 6);
});

hostile('re-entrant hg.grad inside a hook', () => {
  const a = L(3);
  const b = a.mul(a);
  const x = L(2);
  let r;
  x.registerHook(() => { r = hg.grad(b, a)[0].item(); });
  x.mul(3).backward();
  assert.equal(r, 6);
  assert.equal(item(a.grad), null, 'hg.grad leaves .grad untouched');
});

hostile('re-entrant backward 50 levels deep (torch: 50 hooks ran)', () => {
  let depth = 0;
  const mk = (n) => {
    const a = L(1);
    const b = a.mul(2);
    if (n > 0) {
      const inner = mk(n - 1);
      a.registerHook(() => { depth++; inner.backward(); });
    }
    return b;
  };
  mk(50).backward();
  assert.equal(depth, 50);
});

hostile('backward() of a tensor built inside a hook: no grad_fn, PyTorch\'s error', () => {
  const x = L(2);
  x.registerHook(() => { L(1).mul(2).backward(); });
  expectError(() => x.mul(3).backward(), /element 0 of tensors does not require grad and does not have a grad_fn/);
});

hostile('module forward calling backward() inside forward', () => {
  const a = L(3);
  const m = new hg.Module('M', (x) => { x.mul(x).backward(undefined, retain); return x.mul(2); });
  const out = m.call(a);
  out.backward();
  assert.equal(a.grad.item(), 8);
});

hostile('module calling itself 10 levels deep', () => {
  let d = 0;
  const m = new hg.Module('M', (a) => (d++ < 10 ? m.call(a.mul(2)) : a));
  const x = L(1);
  m.call(x).backward();
  assert.equal(x.grad.item(), 1024);
});

hostile('module recursing without end: a clear Error, not a trap', () => {
  const m = new hg.Module('M', (a) => m.call(a));
  expectError(() => m.call(L(1)), /forward of module 'M' raised an error/);
});

// ------------------------------------------- add / remove hooks mid-pass
// Expected logs: torch 2.15 running the same programs (it runs hooks from a snapshot).

hostile('non-leaf tensor hook adds a hook mid-pass (torch: h1 | h1 h2)', () => {
  const y = L(2).mul(3);
  const log = [];
  y.registerHook(() => { log.push('h1'); y.registerHook(() => { log.push('h2'); }); });
  y.backward(undefined, retain);
  log.push('|');
  y.backward();
  assert.deepEqual(log, ['h1', '|', 'h1', 'h2']);
});

hostile('non-leaf tensor hook removes the next hook mid-pass (torch: h1 h2 h1)', () => {
  const y = L(2).mul(3);
  const log = [];
  let h2;
  y.registerHook(() => { log.push('h1'); h2.remove(); });
  h2 = y.registerHook(() => { log.push('h2'); });
  y.backward(undefined, retain);
  y.backward();
  assert.deepEqual(log, ['h1', 'h2', 'h1']);
});

hostile('hook removes itself mid-pass, twice (idempotent)', () => {
  const y = L(2).mul(3);
  const log = [];
  const h = y.registerHook(() => { log.push('h1'); h.remove(); h.remove(); });
  y.backward(undefined, retain);
  y.backward();
  assert.deepEqual(log, ['h1']);
});

hostile('leaf hook removes / adds hooks mid-pass (torch: l1 l2 / a1)', () => {
  const x = L(2);
  const log = [];
  let h2;
  x.registerHook(() => { log.push('l1'); h2.remove(); });
  h2 = x.registerHook(() => { log.push('l2'); });
  x.mul(3).backward();
  assert.deepEqual(log, ['l1', 'l2']);
  const z = L(2);
  const log2 = [];
  z.registerHook(() => { log2.push('a1'); z.registerHook(() => { log2.push('a2'); }); });
  z.mul(3).backward();
  assert.deepEqual(log2, ['a1']);
});

hostile('node hooks add/remove mid-pass (torch: p1 p2 / q1 q2 / pa)', () => {
  const y = L(2).mul(3);
  const log = [];
  let p2;
  y.gradFn.registerPrehook(() => { log.push('p1'); p2.remove(); });
  p2 = y.gradFn.registerPrehook(() => { log.push('p2'); });
  let q2;
  y.gradFn.registerHook(() => { log.push('q1'); q2.remove(); });
  q2 = y.gradFn.registerHook(() => { log.push('q2'); });
  y.gradFn.registerPrehook(() => { log.push('pa'); y.gradFn.registerPrehook(() => { log.push('pb'); }); });
  y.backward();
  assert.deepEqual(log, ['p1', 'p2', 'pa', 'q1', 'q2']);
});

hostile('post-accumulate hook removes the next one mid-pass (torch: pa1 pa2)', () => {
  const x = L(2);
  const log = [];
  let h2;
  x.registerPostAccumulateGradHook(() => { log.push('pa1'); h2.remove(); });
  h2 = x.registerPostAccumulateGradHook(() => { log.push('pa2'); });
  x.mul(3).backward();
  assert.deepEqual(log, ['pa1', 'pa2']);
});

hostile('a hook removing every hook of the graph, and retainGrad mid-pass', () => {
  const x = L([1, 2]);
  const y = x.mul(3);
  const z = y.mul(2);
  const handles = [];
  handles.push(z.registerHook(() => { for (const h of handles) h.remove(); }));
  handles.push(y.registerHook((g) => g.mul(100)));
  handles.push(x.registerHook((g) => g.mul(100)));
  handles.push(z.gradFn.registerHook(() => {}));
  z.sum().backward();
  assert.deepEqual(x.grad.toArray(), [6, 6]);
});
