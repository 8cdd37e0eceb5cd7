// Tensor hook handles and hook lists as the engine keeps them: by-id handles
// in reused slots (crate/wasm/src/table.rs), lists whose first entry is
// inline (crate/core/src/hooks/list.rs, FirstInline), and hook arguments kept by
// the hook in a long chain. Expected values are hand calculations.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hg, V, approx, leaf } from './helpers.mjs';

/** Which of `names` ran, in order, during `y.backward()`. */
function ran(y, hooks) {
  const log = [];
  for (const [t, name] of hooks) t.registerHook(() => { log.push(name); });
  y.backward();
  return log;
}

test('a removed handle stays a no-op after its slot is reused by a later hook', () => {
  const a = leaf(2);
  const c = a.mul(3);
  const log = [];
  const old = c.registerHook(() => { log.push('old'); });
  old.remove(); // frees its slot
  const d = a.mul(5);
  const fresh = d.registerHook(() => { log.push('fresh'); }); // takes that slot
  old.remove(); // must not remove `fresh`
  old.remove();
  assert.notEqual(old.id, fresh.id);
  d.backward();
  assert.deepEqual(log, ['fresh']);
  // hand calculation: d(5a)/da = 5
  approx(V(a.grad), 5);
  fresh.remove();
  fresh.remove();
  a.grad = null;
  const e = a.mul(7);
  const third = e.registerHook(() => { log.push('third'); }); // may reuse a slot again
  old.remove();
  fresh.remove();
  e.backward();
  assert.deepEqual(log, ['fresh', 'third']);
  approx(V(a.grad), 7);
  third.remove();
});

test('a handle whose graph is gone is a no-op, and does not touch the hook that reuses its slot', () => {
  const a = leaf(1.5);
  const stale = hg.tidy(() => {
    const c = a.mul(2);
    return { h: c.registerHook(() => {}) }; // the graph goes with the tidy's handles
  }).h;
  const log = [];
  const e = a.mul(4);
  e.registerHook(() => { log.push('e'); });
  stale.remove();
  e.backward();
  assert.deepEqual(log, ['e']);
  approx(V(a.grad), 4); // hand calculation: d(4a)/da
});

test('removing the first, a middle or the last of several hooks keeps the others in registration order', () => {
  for (const drop of [0, 1, 2, 3]) {
    const a = leaf(1);
    const c = a.mul(2);
    const log = [];
    const hs = ['h0', 'h1', 'h2', 'h3'].map((n) => c.registerHook(() => { log.push(n); }));
    hs[drop].remove();
    hs[drop].remove(); // idempotent
    c.backward();
    assert.deepEqual(log, ['h0', 'h1', 'h2', 'h3'].filter((_, i) => i !== drop), `removed h${drop}`);
  }
});

test('hooks on every op of a long chain run once each, last op first, even after many handles were freed', () => {
  const x = leaf([1, -2]);
  // Churn: register and drop hooks so that later handles reuse slots.
  for (let k = 0; k < 3; k++) {
    hg.tidy(() => {
      let y = x;
      for (let i = 0; i < 200; i++) { y = y.mul(1); y.registerHook(() => {}).remove(); y.registerHook(() => {}); }
      y.sum().backward();
    });
  }
  x.grad = null;
  let y = x;
  const order = [];
  for (let i = 0; i < 300; i++) {
    y = y.add(1);
    const at = i;
    y.registerHook(() => { order.push(at); });
  }
  y.sum().backward();
  assert.deepEqual(order, Array.from({ length: 300 }, (_, i) => 299 - i));
  approx(V(x.grad), [1, 1]); // hand calculation: d(sum(x + 300))/dx
});

test('hook arguments a hook kept along a 240-op chain still read their own values later (in and out of tidy)', () => {
  // y_0 = x, y_{i+1} = y_i * 2 for even i, y_i + 1 for odd i; loss = sum(y_n).
  // The gradient reaching y_i is 2^(number of multiplications after y_i)
  // (at most 2^120: exact in f32).
  const n = 240;
  const expected = [];
  for (let i = 1; i <= n; i++) {
    let muls = 0;
    for (let j = i; j < n; j++) if (j % 2 === 0) muls++;
    expected[i] = 2 ** muls;
  }
  for (const scoped of [false, true]) {
    const run = (f) => (scoped ? hg.tidy(f) : f());
    const x = leaf([0.5, 0.25]);
    const kept = [];
    run(() => {
      let y = x;
      for (let i = 0; i < n; i++) {
        y = i % 2 === 0 ? y.mul(2) : y.add(1);
        const at = i + 1;
        y.registerHook((g) => { kept.push([at, g]); });
      }
      y.sum().backward();
      // Read after the whole backward (every later hook ran and returned).
      for (const [at, g] of kept) {
        const v = g.toArray();
        assert.equal(v.length, 2);
        assert.deepEqual(v, [expected[at], expected[at]], `grad reaching y_${at}`);
      }
    });
    assert.equal(kept.length, n);
    if (!scoped) {
      // Outside a tidy they stay valid after more backward passes, too.
      const z = x.mul(3);
      z.registerHook(() => {});
      z.sum().backward();
      assert.equal(kept[0][0], n, 'the last op\'s hook ran first');
      assert.deepEqual(V(kept[0][1]), [1, 1]);
      assert.equal(kept[n - 1][0], 1);
      assert.deepEqual(V(kept[n - 1][1]), [2 ** 119, 2 ** 119]); // y_2 … y_240: 119 doublings
    }
  }
});

test('registerHook on a tensor that does not require grad still throws PyTorch\'s error (the by-id path falls back)', () => {
  const t = hg.tensor([1, 2]);
  assert.throws(() => t.registerHook(() => {}), /cannot register a hook on a tensor that doesn't require gradient/);
  // …and registers nothing: a later hook on another tensor is unaffected.
  const a = leaf(2);
  const c = a.mul(a);
  assert.deepEqual(ran(c, [[c, 'c']]), ['c']);
  approx(V(a.grad), 4); // hand calculation: d(a^2)/da = 2a
});
