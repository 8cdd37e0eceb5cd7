// Bad-input catalogue: misuses of the JS API a learner can type. Each must
// throw a JS Error with a clear message (PyTorch's words where PyTorch has
// them; messages checked against torch 2.15), never trap, and leave the instance working: the canary runs after
// every case (see harness.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hg, L, expectError, canary, quiet } from './harness.mjs';

const DATA = /^tensor\(\): data must be a number, nested arrays of numbers, or a typed array, not /;
const BCAST = (a, b, d) => `The size of tensor a (${a}) must match the size of tensor b (${b}) at non-singleton dimension ${d}`;
const DIM = (lo, hi, got) => `Dimension out of range (expected to be in range of [${lo}, ${hi}], but got ${got})`;
const NOT_FN = (fn, got) => `${fn}(): hook must be a function, not ${got}`;
const mod = (fwd = (a) => a.mul(2)) => new hg.Module('M', fwd);

/** [name, fn, expected message (string = exact, RegExp = match), opts?] */
const cases = [
  // ------------------------------------------------------------ data
  ['tensor(string)', () => hg.tensor('abc'), DATA],
  ['tensor(object)', () => hg.tensor({ a: 1 }), DATA],
  ['tensor(undefined)', () => hg.tensor(undefined), DATA],
  ['tensor(null)', () => hg.tensor(null), DATA],
  ['tensor(function)', () => hg.tensor(() => 1), DATA],
  ['tensor(symbol)', () => hg.tensor(Symbol('s')), DATA],
  ['tensor(bigint)', () => hg.tensor(1n), DATA],
  ['tensor(ragged, short row)', () => hg.tensor([[1, 2], [3]]), 'expected sequence of length 2 at dim 1 (got 1)'],
  ['tensor(ragged, number row)', () => hg.tensor([[1, 2], 3]), /expected sequence of length 2 at dim 1/],
  ['tensor(ragged, array after number)', () => hg.tensor([1, [2]]), /expected a number at dim 1/],
  ['tensor(string element)', () => hg.tensor([1, 'a']), /expected a number at dim 1, got string/],
  ['tensor(typed array, wrong shape)', () => hg.tensor(new Float32Array(6), { shape: [4] }), /shape \[4\] needs 4 values, but 6 were given/],
  ['tensor(options not an object)', () => hg.tensor([1, 2], 'abc'), /options must be an object/],
  ['tensor(requiresGrad: string)', () => hg.tensor([1, 2], { requiresGrad: 'yes' }), /'requiresGrad' must be a boolean/],
  ['tensor(name: number)', () => hg.tensor([1, 2], { name: 5 }), /name must be a string/],
  // ----------------------------------------------------------- shapes
  ['zeros(negative)', () => hg.zeros([-1]), 'Trying to create tensor with negative dimension -1: [-1]'],
  // A bare number is a 1-d shape, printed as torch prints it (was 'JsValue(-1)').
  ['zeros(bare negative)', () => hg.zeros(-1), 'Trying to create tensor with negative dimension -1: [-1]'],
  ['zeros(fractional)', () => hg.zeros([1.5]), /shape entries must be integers, got 1\.5/],
  ['zeros(NaN)', () => hg.zeros([NaN]), /shape entries must be integers, got NaN/],
  ['zeros(Infinity)', () => hg.zeros([Infinity]), /shape entries must be integers/],
  ['zeros(absurdly large)', () => hg.zeros([1e9, 1e9]), /too large/],
  ['ones(2^31)', () => hg.ones([2 ** 31]), /too large/],
  ['zeros(string shape)', () => hg.zeros('abc'), /shape must be an array of integers, not string/],
  ['ones(string entry)', () => hg.ones([2, 'a']), /shape entries must be integers/],
  ['ones(null shape)', () => hg.ones(null), /shape must be an array of integers, not null/],
  ['randn(negative)', () => hg.randn([-2], { seed: 1 }), 'Trying to create tensor with negative dimension -2: [-2]'],
  ['randn(seed: string)', () => hg.randn([2], { seed: 'x' }), /seed must be a non-negative number/],
  ['reshape(wrong numel)', () => hg.ones([2, 3]).reshape([4]), "shape '[4]' is invalid for input of size 6"],
  ['reshape(two -1)', () => hg.ones([6]).reshape([-1, -1]), 'only one dimension can be inferred'],
  ['reshape(-2)', () => hg.ones([6]).reshape([-2, 3]), 'invalid shape dimension -2'],
  ['reshape(string)', () => hg.ones([6]).reshape('abc'), /shape must be an array of integers/],
  ['reshape(fractional)', () => hg.ones([6]).reshape([1.5, 4]), /^reshape\(\): shape entries must be integers, got 1\.5$/],
  // -------------------------------------------------------------- ops
  ['add(non-broadcastable)', () => hg.ones([2, 3]).add(hg.ones([2, 4])), BCAST(3, 4, 1)],
  ['sub(non-broadcastable)', () => hg.ones([3]).sub(hg.ones([4])), BCAST(3, 4, 0)],
  ['mul(non-broadcastable)', () => hg.ones([2, 3]).mul(hg.ones([3, 2])), BCAST(3, 2, 1)],
  ['div(non-broadcastable)', () => hg.ones([5, 1]).div(hg.ones([4, 3])), BCAST(5, 4, 0)],
  ['add(string)', () => hg.tensor(2).add('3'), /add\(\): argument 'other' \(position 1\) must be Tensor or number, not string/],
  ['add(plain object)', () => hg.tensor(2).add({}), /must be Tensor or number, not Object/],
  ['mul(forged Tensor without handle)', () => hg.tensor(2).mul(Object.create(hg.Tensor.prototype)), /must be Tensor or number/],
  ['mul(undefined)', () => hg.tensor(2).mul(undefined), /must be Tensor or number/],
  ['matmul(array)', () => hg.tensor([1, 2]).matmul([1, 2]), /matmul\(\): argument 'other' \(position 1\) must be Tensor, not Array/],
  ['pow(string)', () => hg.tensor(2).pow('a'), /pow\(\): argument 'exponent' must be a number/],
  ['matmul mm mismatch', () => hg.ones([2, 3]).matmul(hg.ones([4, 5])), 'mm: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)'],
  ['matmul dot mismatch', () => hg.ones([3]).matmul(hg.ones([4])),
    'inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, but got 3 and 4 elements respectively'],
  ['matmul mv mismatch', () => hg.ones([2, 3]).matmul(hg.ones([4])), 'size mismatch, got input (2), mat (2x3), vec (4)'],
  ['matmul vm mismatch', () => hg.ones([3]).matmul(hg.ones([4, 2])), 'mm: mat1 and mat2 shapes cannot be multiplied (1x3 and 4x2)'],
  ['matmul 0-d', () => hg.tensor(2).matmul(hg.tensor(3)), /^both arguments to matmul need to be at least 1D, but they are 0D and 0D/],
  ['matmul 3-d', () => hg.ones([2, 2, 2]).matmul(hg.ones([2, 2])), /1-D and 2-D/],
  ['sum(dim out of range)', () => hg.ones([2, 3]).sum(2), DIM(-2, 1, 2)],
  ['mean(dim -3)', () => hg.ones([2, 3]).mean(-3), DIM(-2, 1, -3)],
  ['sum(dim) of 0-d', () => hg.tensor(2).sum(1), DIM(-1, 0, 1)],
  ['transpose(0, 5)', () => hg.ones([2, 3]).transpose(0, 5), DIM(-2, 1, 5)],
  ['sum(fractional dim)', () => hg.ones([2, 3]).sum(1.5), /sum\(\): argument 'dim' must be an integer/],
  ['sum(string dim)', () => hg.ones([2, 3]).sum('a'), /sum\(\): argument 'dim' must be an integer, not string/],
  ['t() of 3-d', () => hg.ones([2, 2, 2]).t(), 't() expects a tensor with <= 2 dimensions, but self is 3D'],
  ['item() of 6 elements', () => hg.ones([2, 3]).item(), 'a Tensor with 6 elements cannot be converted to Scalar'],
  ['item() of 0 elements', () => hg.zeros([0]).item(), 'a Tensor with 0 elements cannot be converted to Scalar'],
  // ---------------------------------------------------------- backward
  ['backward() of non-scalar', () => L([[1, 2], [3, 4]]).mul(2).backward(), 'grad can be implicitly created only for scalar outputs'],
  ['backward() without grad', () => hg.ones([2]).sum().backward(), 'element 0 of tensors does not require grad and does not have a grad_fn'],
  ['backward twice', () => { const x = L(2); const y = x.mul(x); y.backward(); y.backward(); },
    /^Trying to backward through the graph a second time \(or directly access saved tensors after they have already been freed\)\. /],
  ['backward(gradient of wrong shape)', () => L([1, 2]).mul(2).backward(hg.ones([3])),
    'Mismatch in shape: grad_output[0] has a shape of torch.Size([3]) and output[0] has a shape of torch.Size([2]).'],
  ['backward(string gradient)', () => L(2).mul(2).backward('abc'), /but got string/],
  ['backward(options as gradient)', () => L(2).mul(2).backward({ retainGraph: true }), /but got Object \(options go second/],
  ['backward(string gradient) names backward, not tensor()', () => L(2).mul(2).backward('abc'), /^(backward\(\)|gradients can be either Tensors or None)/],
  ['backward(options first) names backward, not tensor()', () => L(2).mul(2).backward({ retainGraph: true }), /^(backward\(\)|gradients can be either Tensors or None)/],
  ['backward(inputs: [])', () => L(2).mul(2).backward(undefined, { inputs: [] }), "'inputs' argument to backward() cannot be empty."],
  ['backward(inputs without grad)', () => L(2).mul(2).backward(undefined, { inputs: [hg.tensor(1)] }), 'One of the differentiated Tensors does not require grad'],
  ['grad(unused input)', () => hg.grad(L(2).mul(2), L(3)),
    'The differentiated Tensor at index 0 appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior.'],
  ['grad(string inputs)', () => hg.grad(L(2).mul(2), ['a']), /grad\(\): inputs must be Tensor, not string/],
  ['grad(string outputs)', () => hg.grad('a', 'b'), /grad\(\): outputs must be Tensor, not string/],
  ['grad(no inputs)', () => hg.grad(L(2).mul(2), []), 'grad requires non-empty inputs.'],
  ['grad(non-scalar implicit)', () => { const x = L([1, 2]); hg.grad(x.mul(2), x); }, 'grad can be implicitly created only for scalar outputs'],
  ['grad(gradOutputs count)', () => { const x = L(2); hg.grad(x.mul(2), x, { gradOutputs: [hg.tensor(1), hg.tensor(1)] }); }, /grad_outputs/],
  ['grad(gradOutputs shape)', () => { const x = L(2); hg.grad(x.mul(2), x, { gradOutputs: [hg.ones([3])] }); },
    'Mismatch in shape: grad_output[0] has a shape of torch.Size([3]) and output[0] has a shape of torch.Size([]).'],
  // ------------------------------------------------------------- .grad
  ['.grad = wrong shape', () => { L([1, 2]).grad = hg.ones([3]); }, "attempting to assign a gradient of size '[3]' to a tensor of size '[2]'. Please ensure that the gradient and the tensor are the same size"],
  ['.grad = string', () => { L(2).grad = 'abc'; }, /grad must be Tensor, not string/],
  ['.grad = number', () => { L(2).grad = 5; }, /grad must be Tensor, not number/],
  // ---------------------------------------------------------- in-place
  ['add_ on leaf requiring grad', () => L(2).add_(1), 'a leaf Variable that requires grad is being used in an in-place operation.'],
  ['mul_ on leaf requiring grad', () => L([1, 2]).mul_(2), 'a leaf Variable that requires grad is being used in an in-place operation.'],
  ['zero_ on leaf requiring grad', () => L(2).zero_(), 'a leaf Variable that requires grad is being used in an in-place operation.'],
  ['in-place on a saved tensor', () => { const x = L(2); const a = x.exp(); const b = a.mul(a); a.add_(1); b.backward(); },
    /^one of the variables needed for gradient computation has been modified by an inplace operation: \[torch\.FloatTensor \[\]\], which is output 0 of Add, is at version 1; expected version 0 instead\./],
  ['add_ broadcasting to a bigger shape', () => hg.ones([3]).add_(hg.ones([2, 3])), "output with shape [3] doesn't match the broadcast shape [2, 3]"],
  ['requiresGrad = false on non-leaf', () => { L(2).mul(2).requiresGrad = false; },
    "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."],
  ['requiresGrad = string', () => { hg.tensor(2).requiresGrad = 'yes'; }, /requiresGrad must be a boolean, not string/],
  // ------------------------------------------------------------- hooks
  ['registerHook(number)', () => L(2).registerHook(5), NOT_FN('registerHook', 'number')],
  ['registerHook(undefined)', () => L(2).registerHook(undefined), /hook must be a function/],
  ['registerHook on tensor without grad', () => hg.tensor(2).registerHook((g) => g), "cannot register a hook on a tensor that doesn't require gradient"],
  ['tensor hook returns string', () => { const x = L(2); x.registerHook(() => 'abc'); x.mul(3).backward(); }, /expected Tensor or None \(got string\) from hook/],
  ['tensor hook returns number', () => { const x = L(2); x.registerHook(() => 5); x.mul(3).backward(); }, /expected Tensor or None \(got number\) from hook/],
  ['tensor hook returns array', () => { const x = L(2); x.registerHook(() => [1]); x.mul(3).backward(); }, /expected Tensor or None \(got Array\) from hook/],
  ['tensor hook returns wrong shape', () => { const x = L(2); x.registerHook(() => hg.ones([3])); x.mul(3).backward(); }, "hook 'hook' has changed the size of value"],
  ['non-leaf hook returns wrong shape', () => { const x = L([1, 2]); const y = x.mul(3); y.registerHook(function scale() { return hg.ones([3]); }); y.sum().backward(); },
    "hook 'scale' has changed the size of value"],
  ['tensor hook returns plain object', () => { const x = L(2); x.registerHook(() => ({ shape: [] })); x.mul(3).backward(); }, /got Object/],
  ['retainGrad without grad', () => hg.tensor(2).retainGrad(), "can't retain_grad on Tensor that has requires_grad=False"],
  ['post-accumulate hook on non-leaf', () => L(2).mul(2).registerPostAccumulateGradHook(() => {}), 'post accumulate grad hooks cannot be registered on non-leaf tensors'],
  ['post-accumulate hook returns value', () => { const x = L(2); x.registerPostAccumulateGradHook(() => 5); x.mul(3).backward(); },
    /Tensor post accumulate grad hooks should return None\.$/],
  ['registerPostAccumulateGradHook(string)', () => L(2).registerPostAccumulateGradHook('abc'), NOT_FN('registerPostAccumulateGradHook', 'string')],
  ['node.registerPrehook(null)', () => L(2).mul(2).gradFn.registerPrehook(null), NOT_FN('registerPrehook', 'null')],
  ['node.registerHook(object)', () => L(2).mul(2).gradFn.registerHook({}), NOT_FN('registerHook', 'Object')],
  ['node pre-hook returns too many', () => { const y = L(2).mul(2); y.gradFn.registerPrehook((g) => [g[0], g[0]]); y.backward(); },
    "hook 'hook' has returned an incorrect number of values (got 2, but expected 1)"],
  ['node post-hook returns too many', () => { const y = L(2).mul(L(3)); y.gradFn.registerHook((gi) => [gi[0], gi[0], gi[0]]); y.backward(); },
    "hook 'hook' has returned an incorrect number of values (got 3, but expected 2)"],
  ['node post-hook returns string', () => { const y = L(2).mul(2); y.gradFn.registerHook(() => 'abc'); y.backward(); }, /must return an array of Tensors/],
  ['node pre-hook returns [string]', () => { const y = L(2).mul(2); y.gradFn.registerPrehook(() => ['abc']); y.backward(); }, /returned an array holding string, expected Tensor or null/],
  ['node post-hook returns wrong shape', () => { const y = L(2).mul(L(3)); y.gradFn.registerHook((gi) => [hg.ones([2]), gi[1]]); y.backward(); },
    "hook 'hook' has changed the size of value"],
  // ----------------------------------------------------------- modules
  ['Module(forward: number)', () => new hg.Module('M', 5), /forward must be a function, not number/],
  ['legacy then full backward hook', () => { const m = mod(); m.registerBackwardHook(() => {}); m.registerFullBackwardHook(() => {}); quiet(() => m.call(L(1)).backward()); },
    'Cannot use both regular backward hooks and full backward hooks on a single Module. Please use only one of them.'],
  ['full then legacy backward hook', () => { const m = mod(); m.registerFullBackwardHook(() => {}); m.registerBackwardHook(() => {}); quiet(() => m.call(L(1)).backward()); },
    'Cannot use both regular backward hooks and full backward hooks on a single Module. Please use only one of them.'],
  ['registerForwardHook(number)', () => mod().registerForwardHook(5), /hook must be a function, not number/],
  ['registerForwardPreHook(string)', () => mod().registerForwardPreHook('x'), /hook must be a function/],
  ['registerFullBackwardHook(null)', () => mod().registerFullBackwardHook(null), /hook must be a function/],
  ['forward pre-hook returns a string', () => { const m = mod(); m.registerForwardPreHook(() => 'abc'); m.call(L(1)); }, /forward of module 'M' raised an error: .*not a function/],
  ['registerParameter(number)', () => mod().registerParameter('w', 5), /parameter must be Tensor, not number/],
  ['registerParameter(non-leaf)', () => mod().registerParameter('w', L(2).mul(2)), /^Cannot assign non-leaf Tensor to parameter 'w'\. Model parameters must be created explicitly\./],
  ['addModule(plain object)', () => mod().addModule('c', {}), /Module/],
  ['getParameter(missing)', () => mod().getParameter('nope'), /has no parameter 'nope'/],
  ['callWithKwargs(string args)', () => mod().callWithKwargs('a', 5), /args must be an array/],
  ['nn.Linear(-1, 2)', () => new hg.nn.Linear(-1, 2), /^nn\.Linear\(\): in_features must be a non-negative integer, not -1$/],
  ['nn.Linear(string)', () => new hg.nn.Linear('a', 2), /in_features must be a non-negative integer/],
  ['nn.Linear on wrong input width', () => new hg.nn.Linear(4, 2, { seed: 1 }).call(hg.ones([1, 3])), /mat1 and mat2 shapes cannot be multiplied \(1x3 and 4x2\)/],
  ['full backward hook returns too many', () => { const m = mod(); m.registerFullBackwardHook((_m, gi) => [gi[0], gi[0]]); m.call(L(1)).backward(); },
    'Backward hook returned an invalid number of grad_input, got 2, but expected 1'],
  ['full backward hook returns string', () => { const m = mod(); m.registerFullBackwardHook(() => 'abc'); m.call(L(1)).backward(); }, /must return an array of Tensors/],
  ['module forward throws', () => mod(() => { throw new Error('boom'); }).call(L(1)), /forward of module 'M' raised an error: boom/],
  ['module forward throws a string', () => mod(() => { throw 'boom'; }).call(L(1)), /boom/],
  // ------------------------------------------------------------ global
  ['setSemantics(bad name)', () => hg.setSemantics('pytorch-3'), /expected 'pytorch-2' or 'pytorch-1', but got 'pytorch-3'/],
  ['setSemantics(number)', () => hg.setSemantics(5), /expected 'pytorch-2' or 'pytorch-1'/],
  ['noGrad(number)', () => hg.noGrad(5), /fn must be a function/],
  ['noGrad(fn that throws)', () => hg.noGrad(() => { throw new Error('inside'); }), /inside/],
  ['trace(number)', () => hg.trace(5), /fn must be a function/],
  ['graph(string)', () => hg.graph('abc'), /roots must be Tensor, not string/],
  ['graph([object])', () => hg.graph([{}]), /roots must be Tensor, not Object/],
];

const active = cases.filter(([, , , o]) => !o?.skip);

test('the catalogue holds at least 60 misuses', (t) => {
  if (active.length < 60) throw new Error(`only ${active.length} cases`);
});

for (const [name, fn, expected, opts = {}] of active) {
  test(`misuse: ${name}`, { todo: opts.todo }, () => {
    expectError(fn, expected, name);
    canary();
  });
}

test('trace(fn) records a throw of fn as an error event and does not rethrow', () => {
  const events = hg.trace(() => { throw new Error('inside trace'); });
  const last = events[events.length - 1];
  if (last.type !== 'error' || !/inside trace/.test(last.message)) throw new Error(JSON.stringify(events));
  canary();
});

test('free() is a harmless no-op: wrappers keep working (the binding owns memory through the GC)', () => {
  const t = hg.tensor(2);
  t.free();
  t.free();
  assert.equal(t.item(), 2);
  assert.equal(hg.tensor(1).add(t).item(), 3);
  const n = L(2).mul(3).gradFn;
  n.free();
  n.free();
  assert.equal(n.name, 'MulBackward0');
  const m = mod((a) => { m.free(); return a.mul(2); });
  assert.equal(m.call(L(1)).item(), 2);
  const x = L(2);
  const h = x.registerHook((g) => { g.free(); x.free(); h.free(); });
  x.mul(3).backward();
  assert.equal(x.grad.item(), 3);
  h.remove();
  canary();
});

test('canary still passes after the whole catalogue', () => {
  for (const [, fn] of active) {
    try { quiet(fn); } catch { /* each was checked above */ }
  }
  canary();
});
