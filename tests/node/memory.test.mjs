// Memory and lifetime rows of the contract (js-api.md, second release):
// hg.tidy / hg.keep / dispose / hg.memory, the released-handle error, handle
// independence, and what a backward releases. Expected values are hand
// calculations or PyTorch fixtures (tests/fixtures/pyfixtures/memory.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';
import { hg, S } from './helpers.mjs';

const RELEASED = 'this tensor handle was released (hg.tidy or dispose()); keep it with hg.keep() or return it from tidy';
const L = (data) => hg.tensor(data, { requiresGrad: true });
const released = (fn) => assert.throws(fn, (e) => e instanceof Error && e.message === RELEASED);

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');
/** gc, then let FinalizationRegistry callbacks run, a few times. */
async function settle() {
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((r) => setTimeout(r, 0));
  }
}

test('memory() reports live tensors, nodes, handles and the wasm size', () => {
  const m = hg.memory();
  assert.deepEqual(Object.keys(m).sort(), ['handles', 'nodes', 'tensors', 'wasmBytes']);
  for (const v of Object.values(m)) assert.ok(Number.isInteger(v) && v >= 0);
  assert.equal(m.wasmBytes % 65536, 0);
  const before = hg.memory();
  hg.tidy(() => {
    const x = L([1, 2]);
    const y = x.mul(2).sum(); // MulBackward0, SumBackward0, AccumulateGrad
    const now = hg.memory();
    assert.equal(now.tensors - before.tensors, 3); // x, x*2, sum
    assert.equal(now.nodes - before.nodes, 3);
    assert.equal(now.handles - before.handles, 3); // x, the product, y
    void y;
  });
  const after = hg.memory();
  assert.equal(after.tensors, before.tensors);
  assert.equal(after.nodes, before.nodes);
  assert.equal(after.handles, before.handles);
});

test('tidy releases every handle made inside, except what fn returns', () => {
  let inner;
  const x = L([1, 2, 3]);
  const out = hg.tidy(() => {
    inner = x.mul(2);
    const s = inner.sum();
    s.backward();
    return { loss: s, parts: [inner.sin(), 7] };
  });
  released(() => inner.shape);
  released(() => inner.toString());
  assert.equal(out.loss.item(), 12);
  assert.deepEqual(out.parts[0].shape, [3]);
  assert.equal(out.parts[1], 7);
  // The leaf's .grad lives on (the tensor, not a handle made in the tidy).
  assert.deepEqual(x.grad.toArray(), [2, 2, 2]);
});

test('a released handle is a clear Error wherever it is used', () => {
  const x = L([1, 2]);
  let y;
  hg.tidy(() => { y = x.mul(3); });
  released(() => y.item());
  released(() => y.add(1));
  released(() => x.add(y));
  released(() => x.mul(y));
  released(() => x.matmul(y));
  released(() => y.backward());
  released(() => x.backward(y));
  released(() => hg.grad(y, x));
  released(() => hg.grad(x.sum(), [y]));
  released(() => hg.graph([y]));
  released(() => y.registerHook(() => {}));
  released(() => y.gradFn);
  released(() => { y.name = 'y'; });
  released(() => hg.keep(y));
  assert.throws(() => { x.grad = y; }, { message: RELEASED });
  // Everything else keeps working.
  assert.deepEqual(x.mul(2).toArray(), [2, 4]);
});

test('disposing one handle never breaks another handle of the same tensor', () => {
  const x = L([1, 2]);
  const y = x.mul(2);
  y.retainGrad();
  const again = hg.tidy(() => hg.keep(x.mul(1)).sum());
  void again;
  // Two handles of one tensor: the getter makes a new handle each time.
  const g1 = y.gradFn;
  const g2 = y.gradFn;
  g1.dispose();
  assert.equal(g2.name, 'MulBackward0');
  assert.throws(() => g1.name, /this node handle was released/);
  const x2 = x.detach();
  x2.dispose();
  assert.deepEqual(x.toArray(), [1, 2]);
  y.sum().backward();
  const a = x.grad;
  const b = x.grad;
  a.dispose();
  assert.deepEqual(b.toArray(), [2, 2]);
  assert.deepEqual(x.grad.toArray(), [2, 2]);
  assert.deepEqual(y.grad.toArray(), [1, 1]);
  a.dispose(); // idempotent
  hg.dispose([b, { c: x.grad }, 3, null]);
  released(() => b.item());
  assert.deepEqual(x.grad.toArray(), [2, 2]);
});

test('keep() exempts a handle from every enclosing tidy; nested tidy hands results to its parent', () => {
  let k; let mid; let inner;
  const outer = hg.tidy(() => {
    mid = hg.tidy(() => {
      inner = hg.tensor([5]);
      k = hg.keep(hg.tensor([6]));
      return hg.tensor([7]);
    });
    released(() => inner.item());
    assert.equal(mid.item(), 7);
    assert.equal(k.item(), 6);
    return 'done';
  });
  assert.equal(outer, 'done');
  released(() => mid.item()); // returned by the inner tidy only: the outer one releases it
  assert.equal(k.item(), 6);
  assert.equal(hg.keep(k), k);
  assert.throws(() => hg.keep(3), TypeError);
  assert.throws(() => hg.tidy(3), TypeError);
});

test('a throwing fn releases its handles and the error propagates', () => {
  let t;
  assert.throws(() => hg.tidy(() => { t = hg.tensor([1]); throw new Error('boom'); }), /boom/);
  released(() => t.item());
  // The scope stack is intact: a later tidy works and nothing stays scoped.
  const r = hg.tidy(() => hg.tensor([2]));
  assert.equal(r.item(), 2);
});

test('tidy refuses an async fn (its later handles would escape the scope)', () => {
  assert.throws(() => hg.tidy(async () => hg.tensor([1])), /must not be async/);
});

test('tensors handed to hooks inside a tidy are owned by the tidy', () => {
  const x = L([1, 2]);
  const seen = [];
  x.registerHook((g) => { seen.push(g); });
  const node = [];
  hg.tidy(() => {
    const y = x.mul(2);
    y.gradFn.registerHook((gi, go) => { node.push(gi[0], go[0]); });
    y.sum().backward();
    // Inside the tidy, hooks' tensors stay valid (the contract: a hook may store them).
    assert.deepEqual(seen[0].toArray(), [2, 2]);
    assert.deepEqual(node[1].toArray(), [1, 1]);
  });
  released(() => seen[0].toArray());
  released(() => node[0].toArray());
  // Outside a tidy, a stored hook argument stays valid.
  x.mul(3).sum().backward();
  assert.deepEqual(seen[1].toArray(), [3, 3]);
  assert.deepEqual(x.grad.toArray(), [5, 5]);
});

test('free() stays a no-op and Symbol.dispose disposes', () => {
  const t = hg.tensor(2);
  t.free();
  assert.equal(t.item(), 2);
  if (typeof Symbol.dispose === 'symbol') {
    t[Symbol.dispose]();
    released(() => t.item());
  }
});

test('a synchronous tidy loop stays flat in tensors, nodes and handles', () => {
  const w = L([[0.5, -0.25], [0.75, 1]]);
  const x = hg.tensor([[1, 2], [3, 4]]);
  w.registerHook((g) => g.mul(1));
  const step = () => hg.tidy(() => {
    const loss = x.matmul(w).tanh().pow(2).mean();
    loss.backward();
    hg.noGrad(() => w.sub_(w.grad.mul(0.1)));
    w.grad = null;
    return loss.item();
  });
  for (let i = 0; i < 20; i++) step();
  const a = hg.memory();
  for (let i = 0; i < 500; i++) step();
  const b = hg.memory();
  assert.equal(b.tensors, a.tensors);
  assert.equal(b.nodes, a.nodes);
  assert.equal(b.handles, a.handles);
  assert.equal(b.wasmBytes, a.wasmBytes);
});

// A 0-d op's result (add/sub/mul/tanh on scalars) is a handle on a deferred
// row (crate/wasm/src/table.rs), materialized on its first other use. Its
// lifetime must be a handle's like any other.
test('scalar results: counted, materialized on first other use, released by dispose and by the garbage collector', async () => {
  await settle();
  const base = hg.memory();
  const w = L(0.5);
  let c = w.mul(3);
  let d = c.add(1);
  assert.equal(hg.memory().handles - base.handles, 3);
  assert.equal(d.item(), 2.5); // from the row
  assert.equal(c.gradFn.name, 'MulBackward0'); // materializes c
  const e = d.tanh();
  e.dispose();
  released(() => e.item());
  released(() => e.add(1));
  assert.equal(hg.memory().handles - base.handles, 4); // w, c, d, the gradFn node
  d.backward();
  assert.equal(w.grad.item(), 3); // d/dw (3w + 1)
  c = d = null;
  await settle();
  const after = hg.memory();
  assert.equal(after.handles, base.handles + 1); // w
  assert.equal(after.tensors, base.tensors + 2); // w and its .grad
  assert.equal(after.nodes, base.nodes);
});

test('scalar results boxed outside any tidy are freed by the garbage collector (wasm memory flat)', async () => {
  // item() gives each result its box; the collector must then free the box,
  // not the row it took over (that would leak ~24 bytes per handle while
  // every count stays balanced).
  const w = L(0.5);
  const round = () => { for (let i = 0; i < 5000; i++) w.mul(3).item(); };
  for (let i = 0; i < 2; i++) { round(); await settle(); }
  const a = hg.memory();
  for (let i = 0; i < 20; i++) { round(); await settle(); }
  const b = hg.memory();
  assert.equal(b.handles, a.handles);
  assert.ok(b.wasmBytes - a.wasmBytes <= 65536, `wasm memory grew ${a.wasmBytes} -> ${b.wasmBytes}`);
});

test('a tensor hook may return a scalar result made outside it', () => {
  const w = L(0.5);
  const k = w.mul(6); // 3, a deferred result
  const y = w.mul(w);
  y.registerHook(() => k);
  y.backward();
  assert.equal(w.grad.item(), 3); // dy/dw = 2w, times the hook's gradient 3
  assert.equal(k.item(), 3);
});

test('a scalar tidy loop stays flat, whether its scope drops every result at once or keeps one', async () => {
  // Scalar ops are deferred rows; a scope that drops every row handle there
  // is frees the whole table at once, one that keeps a result (or runs while
  // a row handle lives elsewhere) frees row by row. Earlier tests' row
  // handles are collected first, so both ways run here.
  await settle();
  const ws = [L(0.5), L(-0.25), L(0.75)];
  const b = L(0.1);
  const step = (keep) => hg.tidy(() => {
    let act = b;
    for (const w of ws) act = act.add(w.mul(2)).tanh();
    const loss = act.mul(act);
    loss.backward();
    for (const w of ws) w.grad = null;
    b.grad = null;
    return keep ? act : loss.item();
  });
  for (let i = 0; i < 5; i++) step(false);
  const a = hg.memory();
  for (let i = 0; i < 200; i++) step(false);
  assert.deepEqual(hg.memory(), a);
  const act = step(true);
  const k = hg.memory();
  // act's tensor and handle; its graph: 3 × (mul, add, tanh) and the four
  // leaves' AccumulateGrad nodes.
  assert.deepEqual([k.tensors - a.tensors, k.nodes - a.nodes, k.handles - a.handles], [1, 13, 1]);
  for (let i = 0; i < 50; i++) step(false);
  const node = act.gradFn; // a Node handle (made once: each read makes one)
  assert.equal(node.name, 'TanhBackward0');
  node.dispose();
  act.dispose();
  assert.deepEqual(hg.memory(), a);
});

// ----- what a backward releases -------------------------------------------------

test('a backward releases a module call\'s hooks: a removed full backward hook is collected while the output lives', async () => {
  const collected = new Set();
  const registry = new FinalizationRegistry((what) => collected.add(what));
  let root;
  (() => {
    const x = L([[1, 2], [3, 4]]);
    const m = new hg.Module('Block', (a) => a.tanh());
    const hook = () => { void root; }; // reaches the output, as learners write it
    const pre = () => {};
    registry.register(hook, 'full');
    registry.register(pre, 'pre');
    const h = m.registerFullBackwardHook(hook);
    const hp = m.registerFullBackwardPreHook(pre);
    root = m.call(x).sum();
    root.backward();
    h.remove();
    hp.remove();
  })();
  await settle();
  assert.ok(root.gradFn, 'the output (and its graph) is still held');
  assert.ok(collected.has('full'), 'the removed full backward hook was not collected');
  assert.ok(collected.has('pre'), 'the removed full backward pre-hook was not collected');
  // PyTorch's error for a second backward (TanhBackward0 saved its result).
  assert.throws(() => root.backward(), { message: S('second_backward_error').error });
});

test('retainGraph keeps a module call\'s hooks for the next backward (PyTorch)', () => {
  const calls = [];
  const m = new hg.Module('Block', (a) => a.tanh());
  const h = m.registerFullBackwardHook(() => { calls.push('full'); });
  const y = m.call(L([1, 2])).sum();
  y.backward(undefined, { retainGraph: true });
  y.backward();
  h.remove();
  assert.deepEqual(calls, ['full', 'full']);
});

// ----- AccumulateGrad's steal (PyTorch fixtures) ------------------------------

function stealCase(tensorHook) {
  const x = L([1, 2]);
  const y = x.mul(3).sum();
  const stored = [];
  if (tensorHook === 'looks') x.registerHook((g) => { void g.toArray(); });
  if (tensorHook === 'stores') x.registerHook((g) => { stored.push(g); });
  if (tensorHook === 'returns-new') x.registerHook((g) => g.mul(1));
  x.registerPostAccumulateGradHook((t) => { t.grad.mul_(10); });
  let seen;
  const acc = y.gradFn.nextFunctions[0][0].nextFunctions[0][0];
  assert.equal(acc.name, 'AccumulateGrad');
  acc.registerHook((gi, go) => { seen = go[0].toArray(); });
  y.backward();
  return { grad: x.grad.toArray(), seen, stored: stored.map((s) => s.toArray()) };
}

test('AccumulateGrad steals the gradient: a post-accumulate-grad hook\'s in-place change is seen by the node\'s post hook', () => {
  assert.deepEqual(stealCase('none'), S('steal_no_tensor_hook').expected);
});

test('AccumulateGrad steals even after a JS hook looked at the gradient', () => {
  assert.deepEqual(stealCase('looks'), S('steal_tensor_hook_looks').expected);
});

test('AccumulateGrad steals a new gradient a JS hook returned', () => {
  assert.deepEqual(stealCase('returns-new'), S('steal_tensor_hook_returns_new').expected);
});

test('a user-held gradient is copied, not stolen: backward(g) on a leaf', () => {
  const x = L([1, 2]);
  const g = hg.tensor([1, 1]);
  x.backward(g);
  x.grad.mul_(5);
  assert.deepEqual(g.toArray(), S('steal_user_gradient_is_copied').expected.g);
  assert.deepEqual(x.grad.toArray(), S('steal_user_gradient_is_copied').expected.grad);
});

test('the stolen .grad is summed in place by a second backward (same tensor)', () => {
  const x = L([1, 2]);
  x.mul(3).sum().backward();
  const g1 = x.grad;
  const id = g1.id;
  x.mul(3).sum().backward();
  const e = S('steal_second_backward_accumulates_in_place').expected;
  assert.equal(x.grad.id === id, e.same);
  assert.deepEqual(g1.toArray(), e.first_handle);
  assert.deepEqual(x.grad.toArray(), e.grad);
});

test('full backward (pre-)hooks removed after the forward still run in that backward (PyTorch)', () => {
  const calls = [];
  const m = new hg.Module('Block', (a) => a.tanh());
  const h = m.registerFullBackwardHook(() => { calls.push('full'); });
  const hp = m.registerFullBackwardPreHook(() => { calls.push('pre'); });
  const y = m.call(L([1, 2])).sum();
  h.remove();
  hp.remove();
  y.backward();
  assert.deepEqual(calls, S('module_hooks_removed_after_forward_still_run').calls);
});

test('documented difference: a hook that stores its gradient argument (JS cannot know it was kept)', () => {
  // PyTorch (fixture steal_tensor_hook_stores) copies such a gradient, so the
  // stored value and the node's post hook keep [3, 3]. A JS handle's liveness
  // is unknown until the garbage collector runs, so hookgrad steals it:
  // the stored tensor is `.grad`'s storage and shows the hook's x10 (hand
  // calculation: d(sum(3x))/dx = 3, times 10).
  const py = S('steal_tensor_hook_stores').expected;
  const r = stealCase('stores');
  assert.deepEqual(r.grad, py.grad);
  assert.deepEqual(r.seen, [30, 30]);
  assert.deepEqual(r.stored, [[30, 30]]);
  // Storing a copy (g.clone()) gives PyTorch's values.
  const x = L([1, 2]);
  const kept = [];
  x.registerHook((g) => { kept.push(g.clone()); });
  x.registerPostAccumulateGradHook((t) => { t.grad.mul_(10); });
  x.mul(3).sum().backward();
  assert.deepEqual(kept[0].toArray(), py.stored[0]);
});
