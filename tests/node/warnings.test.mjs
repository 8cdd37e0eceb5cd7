// Warning texts against PyTorch (scenario "warnings"). The contract records
// warnings as `warning` trace events with PyTorch's text and sends them to
// console.warn. Decisions:
//  * The non-leaf .grad warning ends with "(Triggered internally at
//    <PyTorch build path>:<line>.)" — build-specific, stripped before comparing.
//  * The full-backward-hook warning contains a docs.pytorch.org URL; it is
//    plain text of the message and is compared exactly.
//  * The category (UserWarning / FutureWarning) is not compared.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hg, S, approx, leaf, captureWarnings, assertWarnings, none } from './helpers.mjs';
import { mul2, mul3, double, mul2w, fixedLinear } from './fixture_modules.mjs';

const W = S('warnings').cases;

test('warnings/nonleaf_grad_access', () => {
  const a = leaf(2);
  const c = a.mul(3);
  const w = captureWarnings(() => c.grad);
  assert.equal(none(w.result), W.nonleaf_grad_access.value);
  assertWarnings(w, W.nonleaf_grad_access.warnings);
});

test('warnings/nonleaf_grad_access_retained', () => {
  const a = leaf(2);
  const c = a.mul(3);
  c.retainGrad();
  const w = captureWarnings(() => c.grad);
  assert.equal(none(w.result), W.nonleaf_grad_access_retained.value);
  assertWarnings(w, W.nonleaf_grad_access_retained.warnings);
});

test('warnings/leaf_grad_access', () => {
  const a = leaf(2);
  const w = captureWarnings(() => a.grad);
  assert.equal(none(w.result), W.leaf_grad_access.value);
  assertWarnings(w, W.leaf_grad_access.warnings);
});

test('warnings/no_requires_grad_grad_access', () => {
  const k = hg.tensor(2);
  const w = captureWarnings(() => k.mul(2).grad);
  assert.equal(none(w.result), W.no_requires_grad_grad_access.value);
  assertWarnings(w, W.no_requires_grad_grad_access.warnings);
});

const LEGACY = {
  legacy_Mul2_leaves: [mul2, () => [leaf(2), leaf(3)]],
  legacy_Mul2_nonleaf_inputs: [mul2, () => [leaf(2).mul(1), leaf(3).mul(1)]],
  legacy_Mul3_leaves: [mul3, () => [leaf(2), leaf(3), leaf(4)]],
  legacy_Mul3_nonleaf_inputs: [mul3, () => [leaf(2).mul(1), leaf(3).mul(1), leaf(4).mul(1)]],
  legacy_Linear_2d: [() => fixedLinear(true), () => [leaf([[1, 2, 3]])]],
  legacy_Linear_nograd_input: [() => fixedLinear(true), () => [hg.tensor([[1, 2, 3]])]],
  legacy_Linear_1d: [() => fixedLinear(true), () => [leaf([1, 2, 3])]],
  legacy_Linear_nobias: [() => fixedLinear(false), () => [leaf([[1, 2, 3]])]],
  legacy_Identity_like: [double, () => [leaf(2).mul(1)]],
  legacy_Double_leaf: [double, () => [leaf(2)]],
  // net(a, b=b): b passed as a keyword argument
  legacy_kwargs_Mul2: [() => new hg.Module('Mul2', (a, { b }) => a.mul(b)), null],
};

test('warnings: every legacy case has a JS translation', () => {
  const fixtureLegacy = Object.keys(W).filter((k) => k.startsWith('legacy_')).sort();
  assert.deepEqual(Object.keys(LEGACY).sort(), fixtureLegacy);
});

for (const [name, [make, args]] of Object.entries(LEGACY)) {
  test(`warnings/${name}: legacy register_backward_hook warns at forward time`, () => {
    const e = W[name];
    const m = make();
    const wr = captureWarnings(() => m.registerBackwardHook(() => {}));
    assertWarnings(wr, e.at_register, 'at register');
    const wf = captureWarnings(() => (args === null
      ? m.callWithKwargs([leaf(2)], { b: leaf(3) })
      : m.call(...args())));
    assertWarnings(wf, e.at_forward, 'at forward');
    assert.equal(wf.result.gradFn.name, e.node, 'node the hook is attached to');
  });
}

test('warnings/full_backward_hook_no_input_grad', () => {
  const e = W.full_backward_hook_no_input_grad;
  const m = mul2w();
  m.registerFullBackwardHook(() => {});
  const wf = captureWarnings(() => m.call(hg.tensor(2), hg.tensor(3)));
  assertWarnings(wf, e.at_forward, 'at forward');
  const wb = captureWarnings(() => wf.result.backward());
  assertWarnings(wb, e.at_backward, 'at backward');
});

test('warnings/full_backward_pre_hook_no_input_grad', () => {
  const e = W.full_backward_pre_hook_no_input_grad;
  const m = mul2w();
  m.registerFullBackwardPreHook(() => {});
  const w = captureWarnings(() => m.call(hg.tensor(2), hg.tensor(3)).backward());
  assertWarnings(w, e.warnings);
  approx(m.getParameter('w').grad.toArray(), 6, 'w.grad (hand: a*b = 6)');
});

// How often console.warn shows a warning: as Python's default filter does,
// once per text and place. PyTorch raises the warning every time (so every
// time is a `warning` trace event); Python places the non-leaf .grad warning
// (a C++ TORCH_WARN) and the full-backward-hook one (hooks.py, stacklevel=5)
// at the user's line, so a loop shows each once and another line again.
const NONLEAF = 'The .grad attribute of a Tensor that is not a leaf Tensor is being accessed';
const count = (lines, text) => lines.filter((l) => l.includes(text)).length;

test('warnings once per place: non-leaf .grad read in a loop, then on another line', () => {
  const c = leaf(2).mul(3);
  const loop = captureWarnings(() => { for (let i = 0; i < 3; i++) void c.grad; });
  assert.equal(count(loop.trace, NONLEAF), 3, 'raised three times');
  assert.equal(count(loop.console, NONLEAF), 1, 'shown once for the loop line');
  const again = captureWarnings(() => { for (let i = 0; i < 2; i++) void c.grad; });
  assert.equal(count(again.trace, NONLEAF), 2);
  assert.equal(count(again.console, NONLEAF), 1, 'another line shows it once more');
  const same = captureWarnings(() => { for (let i = 0; i < 3; i++) void c.grad; });
  assert.equal(count(same.console, NONLEAF), 1, 'a third line: once more');
});

test('warnings once per place: a full backward hook with no input needing grad, fired in a loop', () => {
  const m = mul2w();
  m.registerFullBackwardHook(() => {});
  const w = captureWarnings(() => { for (let i = 0; i < 4; i++) m.call(hg.tensor(2), hg.tensor(3)).backward(); });
  const text = 'Full backward hook is firing when gradients are computed with respect to module outputs';
  assert.equal(count(w.trace, text), 4, 'a trace event per backward');
  assert.equal(count(w.console, text), 1, 'console.warn once for the loop\'s line');
  approx(m.getParameter('w').grad.toArray(), 24, 'w.grad accumulated four times (hand: 4 · a·b = 24)');
});
