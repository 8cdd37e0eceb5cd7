// Contract: "Every misuse throws a JavaScript Error ... Nothing ever traps the
// wasm instance: after any error, every other call keeps working."
// These misuses have no PyTorch text to compare (they are JS-typed), so we
// check: an Error is thrown (not a wasm RuntimeError trap such as
// "unreachable"), and the instance still computes a small backward correctly
// afterwards (hand value: d(x*x)/dx at 3 is 6).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hg, leaf, quiet } from './helpers.mjs';

function stillWorks() {
  const x = leaf(3);
  x.mul(x).backward();
  assert.equal(x.grad.item(), 6, 'instance still works');
}

function throwsError(fn, label) {
  let err = null;
  try {
    quiet(fn);
  } catch (e) {
    err = e;
  }
  assert.ok(err !== null, `${label}: expected an Error`);
  assert.ok(err instanceof Error, `${label}: a JS Error`);
  assert.ok(!(err instanceof WebAssembly.RuntimeError), `${label}: not a wasm trap (${err.message})`);
  assert.ok(!/unreachable|recursive use of an object|null pointer passed to rust|already borrowed/i.test(err.message),
    `${label}: looks like a trap or a binding failure: ${err.message}`);
  stillWorks();
}

const MISUSES = {
  'tensor from a string': () => hg.tensor('abc'),
  'ragged nested array': () => hg.tensor([[1, 2], [3]]),
  'tensor from an object': () => hg.tensor({ a: 1 }),
  'reshape with a string': () => hg.tensor([1, 2]).reshape('x'),
  'reshape with negative size': () => hg.tensor([1, 2]).reshape([-2, -1]),
  'add a string': () => hg.tensor([1, 2]).add('x'),
  'mul by an object': () => hg.tensor([1, 2]).mul({}),
  'backward with an object gradient': () => leaf([1, 2]).mul(2).backward({}),
  'backward with a ragged gradient': () => leaf([1, 2]).mul(2).backward([[1], [1, 2]]),
  'registerHook with a non-function': () => leaf(1).mul(2).registerHook(42),
  'tensor hook returning a number': () => {
    const c = leaf(1).mul(2);
    c.registerHook(() => 5);
    c.backward();
  },
  'tensor hook returning a string': () => {
    const c = leaf(1).mul(2);
    c.registerHook(() => 'nope');
    c.backward();
  },
  'node hook returning a non-array': () => {
    const c = leaf(1).mul(2);
    c.gradFn.registerHook(() => 7);
    c.backward();
  },
  'node pre-hook returning array with a string': () => {
    const c = leaf(1).mul(2);
    c.gradFn.registerPrehook(() => ['x']);
    c.backward();
  },
  'module forward throwing': () => new hg.Module('Bad', () => { throw new Error('forward failed'); }).call(leaf(1)),
  'module forward returning a number': () => {
    const m = new hg.Module('Num', () => 3);
    m.registerFullBackwardHook(() => {});
    m.call(leaf(1)).backward();
  },
  'forward pre-hook returning a string': () => {
    const m = new hg.Module('Double', (x) => x.mul(2));
    m.registerForwardPreHook(() => 'bad');
    m.call(leaf(1));
  },
  'full backward hook returning wrong types': () => {
    const m = new hg.Module('Double', (x) => x.mul(2));
    m.registerFullBackwardHook(() => ['bad']);
    m.call(leaf(1)).backward();
  },
  'grad with a non-tensor input': () => hg.grad(leaf(1).mul(2), [3]),
  'getParameter of a missing name': () => new hg.Module('M', (x) => x).getParameter('nope'),
  'setSemantics with an unknown name': () => hg.setSemantics('pytorch-3'),
};

for (const [label, fn] of Object.entries(MISUSES)) {
  test(`robustness: ${label}`, () => throwsError(fn, label));
}

test('robustness: a hook that stores and uses tensors after backward', () => {
  const kept = [];
  const a = leaf([1, 2]);
  const c = a.mul(2);
  c.registerHook((g) => { kept.push(g); });
  c.sum().backward();
  // hand: the gradient of sum() is ones
  assert.deepEqual(kept[0].toArray(), [1, 1]);
  assert.deepEqual(kept[0].mul(3).toArray(), [3, 3]);
  stillWorks();
});

test('robustness: many tensors and backward passes (no leak-induced failure)', () => {
  const w = leaf([0.5, -0.5]);
  for (let i = 0; i < 300; i++) {
    w.mul(w).sum().backward();
  }
  // hand: 300 accumulations of 2w
  assert.deepEqual(w.grad.toArray(), [300, -300]);
});
