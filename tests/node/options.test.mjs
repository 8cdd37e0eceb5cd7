// Option objects (issue 8 item 9): crate/wasm/src/options.rs declares each
// one as a Rust struct read by serde-wasm-bindgen. Checked here: (1) every
// struct's fields are exactly its crate/js/hookgrad.d.ts interface's fields
// (the struct names the interface in a `/// JS: Name` doc line); (2) the
// errors for bad option values keep the exact words the field-by-field
// reader had (hand-copied from it, and from PyTorch where PyTorch words
// them: reduction, mode); (3) null / missing mean the default, unknown keys
// are ignored, a getter or an inherited property is read.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { hg, root } from './helpers.mjs';

const camel = (s) => s.replace(/_([a-z])/g, (_, c) => c.toUpperCase());

/** `{JSName: [camelCase field, ...]}` from options.rs. */
function rustStructs() {
  const src = fs.readFileSync(path.join(root, 'crate/wasm/src/options.rs'), 'utf8');
  const out = {};
  const re = /\/\/\/ JS: (\w+)[^\n]*\n(?:\s*(?:\/\/\/|#\[)[^\n]*\n)*\s*pub struct \w+ \{([^}]*)\}/g;
  for (const [, js, body] of src.matchAll(re)) {
    assert.match(src.slice(0, src.indexOf(body)).split('pub struct').at(-2) + src.slice(src.indexOf(`JS: ${js}`), src.indexOf(body)), /rename_all = "camelCase"/, `${js}: camelCase renaming`);
    out[js] = [...body.matchAll(/pub (\w+):/g)].map((m) => camel(m[1])).sort();
  }
  return out;
}

/** An interface's own and inherited property names from hookgrad.d.ts. */
function dtsFields(name, src) {
  const m = src.match(new RegExp(`export interface ${name}(?: extends ([\\w, ]+))? \\{([^}]*)\\}`));
  assert.ok(m, `hookgrad.d.ts has no interface ${name}`);
  const own = [...m[2].matchAll(/^\s*(?:readonly )?(\w+)\??:/gm)].map((x) => x[1]);
  const inherited = (m[1] ?? '').split(',').map((s) => s.trim()).filter(Boolean).flatMap((p) => dtsFields(p, src));
  return [...new Set([...own, ...inherited])];
}

test('every option struct matches its hookgrad.d.ts interface field for field', () => {
  const dts = fs.readFileSync(path.join(root, 'crate/js/hookgrad.d.ts'), 'utf8');
  const structs = rustStructs();
  assert.deepEqual(Object.keys(structs).sort(), [
    'BackwardOptions', 'CustomFunctionOptions', 'GradOptions', 'KwargsHookOptions', 'LinearOptions',
    'MseLossOptions', 'MultiGradHookOptions', 'RandnOptions', 'TensorDataOptions', 'TensorOptions',
  ]);
  for (const [js, fields] of Object.entries(structs)) {
    assert.deepEqual(fields, dtsFields(js, dts).sort(), `${js}: options.rs vs hookgrad.d.ts`);
  }
});

const leaf = () => hg.tensor([1, 2], { requiresGrad: true });
const mod = () => new hg.Module('M', (a) => a.mul(2));
const noop = () => {};
/** [what, call, exact message]. */
const BAD = [
  ['tensor requiresGrad', () => hg.tensor([1], { requiresGrad: 1 }), "option 'requiresGrad' must be a boolean, not number"],
  ['tensor name', () => hg.tensor([1], { name: 5 }), 'tensor(): name must be a string, not number'],
  ['tensor name before requiresGrad', () => hg.tensor([1], { requiresGrad: 'x', name: [] }), 'tensor(): name must be a string, not Array'],
  ['tensor shape', () => hg.tensor(new Float32Array(2), { shape: 'ab' }), 'shape must be an array of integers, not string'],
  ['tensor not an object', () => hg.tensor([1], 3), 'tensor(): options must be an object, not number'],
  ['tensor array', () => hg.tensor([1], []), 'tensor(): options must be an object, not Array'],
  ['zeros name', () => hg.zeros([2], { name: true }), 'zeros(): name must be a string, not boolean'],
  ['ones requiresGrad', () => hg.ones([2], { requiresGrad: 'yes' }), "option 'requiresGrad' must be a boolean, not string"],
  ['randn seed string', () => hg.randn([2], { seed: 'x' }), 'randn(): seed must be a non-negative number'],
  ['randn seed negative', () => hg.randn([2], { seed: -1 }), 'randn(): seed must be a non-negative number'],
  ['randn seed NaN', () => hg.randn([2], { seed: NaN }), 'randn(): seed must be a non-negative number'],
  ['backward createGraph', () => leaf().sum().backward(undefined, { createGraph: 'x' }), "option 'createGraph' must be a boolean, not string"],
  ['backward createGraph before retainGraph', () => leaf().sum().backward(undefined, { retainGraph: 1, createGraph: 1 }), "option 'createGraph' must be a boolean, not number"],
  ['backward retainGraph', () => leaf().sum().backward(undefined, { retainGraph: {} }), "option 'retainGraph' must be a boolean, not Object"],
  ['backward inputs', () => leaf().sum().backward(undefined, { inputs: 3 }), 'backward(): inputs must be Tensor, not number'],
  ['backward not an object', () => leaf().sum().backward(undefined, 'x'), 'backward(): options must be an object, not string'],
  ['grad allowUnused', () => { const a = leaf(); hg.grad(a.sum(), a, { allowUnused: 0 }); }, "option 'allowUnused' must be a boolean, not number"],
  ['grad gradOutputs', () => { const a = leaf(); hg.grad(a.sum(), a, { gradOutputs: 'g' }); }, 'tensor(): data must be a number, nested arrays of numbers, or a typed array, not string'],
  ['hook prepend', () => mod().registerForwardHook(noop, { prepend: 'yes' }), "option 'prepend' must be a boolean, not string"],
  ['hook withKwargs', () => mod().registerForwardPreHook(noop, { withKwargs: 1 }), "option 'withKwargs' must be a boolean, not number"],
  ['hook options', () => mod().registerFullBackwardHook(noop, 7), 'registerFullBackwardHook(): options must be an object, not number'],
  ['customFunction materializeGrads', () => hg.applyCustomFunction('F', [], [], noop, { materializeGrads: 1 }), "option 'materializeGrads' must be a boolean, not number"],
  ['customFunction saved', () => hg.applyCustomFunction('F', [], [], noop, { saved: [1] }), 'applyCustomFunction(): saved must be Tensor, not number'],
  ['Linear bias', () => new hg.nn.Linear(2, 2, { bias: 'no' }), "option 'bias' must be a boolean, not string"],
  ['mseLoss reduction type', () => hg.nn.functional.mseLoss(leaf(), leaf(), { reduction: 1 }), 'mseLoss(): reduction must be a string, not number'],
  // PyTorch: torch/nn/_reduction.py get_enum: "{reduction} is not a valid value for reduction".
  ['mseLoss reduction value', () => hg.nn.functional.mseLoss(leaf(), leaf(), { reduction: 'avg' }), 'avg is not a valid value for reduction'],
  ['mseLoss reduction case', () => hg.nn.functional.mseLoss(leaf(), leaf(), { reduction: 'Mean' }), 'Mean is not a valid value for reduction'],
  // PyTorch: torch/autograd/graph.py register_multi_grad_hook.
  ['multi-grad mode', () => hg.registerMultiGradHook([leaf()], noop, { mode: 'some' }), "Expects mode to be one of ('all', 'any') but got some"],
  ['multi-grad mode number', () => hg.registerMultiGradHook([leaf()], noop, { mode: 2 }), "Expects mode to be one of ('all', 'any') but got 2"],
];

for (const [what, call, message] of BAD) {
  test(`bad option: ${what}`, () => {
    assert.throws(call, (e) => {
      assert.ok(e instanceof Error);
      assert.equal(e.message, message);
      assert.ok(!/internal error/.test(e.message));
      return true;
    });
  });
}

test('null, undefined and missing mean the default; unknown keys are ignored', () => {
  const t = hg.tensor([1, 2], { requiresGrad: null, name: null, shape: null, colour: 'red' });
  assert.equal(t.requiresGrad, false);
  assert.equal(hg.tensor([1], { requiresGrad: undefined }).requiresGrad, false);
  const a = leaf();
  const y = a.mul(a).sum();
  // retainGraph defaults to createGraph (PyTorch): a second backward works.
  y.backward(undefined, { createGraph: true, retainGraph: null, inputs: null });
  y.backward(undefined, { inputs: [a] });
  assert.deepEqual(a.grad.toArray(), [4, 8]); // 2a, accumulated twice
  const l = hg.nn.functional.mseLoss(hg.tensor([1, 3]), hg.tensor([0, 0]), { reduction: null });
  assert.equal(l.item(), 5); // (1 + 9) / 2
  const lin = new hg.nn.Linear(3, 2, { bias: null, seed: null });
  assert.equal([...lin.parameters()].length, 2);
});

test('options are read by name: getters and inherited properties count', () => {
  const proto = { requiresGrad: true };
  const o = Object.create(proto);
  Object.defineProperty(o, 'name', { get: () => 'w', enumerable: false });
  const t = hg.tensor([1, 2], o);
  assert.equal(t.requiresGrad, true);
  assert.equal(t.name, 'w');
});

test('each option has its effect', () => {
  assert.deepEqual(hg.tensor(new Float32Array(6), { shape: [2, 3] }).shape, [2, 3]);
  assert.deepEqual(hg.randn([3], { seed: 7 }).toArray(), hg.randn([3], { seed: 7 }).toArray());
  assert.notDeepEqual(hg.randn([3], { seed: 7 }).toArray(), hg.randn([3], { seed: 8 }).toArray());
  assert.equal(hg.randn([2], { seed: 3.9 }).toArray().join(), hg.randn([2], { seed: 3 }).toArray().join());
  assert.equal([...new hg.nn.Linear(3, 2, { bias: false }).parameters()].length, 1);
  assert.equal(hg.nn.functional.mseLoss(hg.tensor([1, 3]), hg.tensor([0, 0]), { reduction: 'sum' }).item(), 10);
  assert.deepEqual(hg.nn.functional.mseLoss(hg.tensor([1, 3]), hg.tensor([0, 0]), { reduction: 'none' }).toArray(), [1, 9]);
  // grad: gradOutputs scales, allowUnused gives null.
  const a = leaf();
  const b = leaf();
  const [ga, gb] = hg.grad(a.mul(2), [a, b], { gradOutputs: [hg.tensor([1, 10])], allowUnused: true });
  assert.deepEqual(ga.toArray(), [2, 20]);
  assert.equal(gb, null);
  // multi-grad 'any' passes one gradient (a Tensor), 'all' a list.
  let got;
  hg.registerMultiGradHook([a, b], (g) => { got = g; }, { mode: 'any' });
  a.mul(b).sum().backward();
  assert.ok(got instanceof hg.Tensor);
  // prepend: runs before the hook registered first.
  const m = mod();
  const order = [];
  m.registerForwardHook(() => { order.push('first'); });
  m.registerForwardHook(() => { order.push('prepended'); }, { prepend: true });
  m.call(hg.tensor([1]));
  assert.deepEqual(order, ['prepended', 'first']);
});

// `{shape}` lays out flat data; nested data and numbers have a shape of their
// own, which a `{shape}` beside them must match (it was silently ignored).
test('tensor(): {shape} lays out a flat array as it does a typed array, and must match nested data', () => {
  const t = hg.tensor([1, 2, 3, 4, 5, 6], { shape: [2, 3] });
  assert.deepEqual(t.shape, [2, 3]);
  assert.deepEqual(t.toArray(), [[1, 2, 3], [4, 5, 6]]);
  assert.deepEqual(hg.tensor([[1, 2], [3, 4]], { shape: [2, 2] }).toArray(), [[1, 2], [3, 4]]);
  assert.deepEqual(hg.tensor([], { shape: [0, 3] }).shape, [0, 3]);
  assert.throws(() => hg.tensor([1, 2, 3, 4], { shape: [3] }), { message: 'shape [3] needs 3 values, but 4 were given' });
  assert.throws(() => hg.tensor([[1, 2], [3, 4]], { shape: [4] }),
    { message: "tensor(): shape [4] does not match the data's shape [2, 2]; {shape} lays out a typed array or a flat array" });
  assert.throws(() => hg.tensor(5, { shape: [2] }),
    { message: "tensor(): shape [2] does not match the data's shape []; {shape} lays out a typed array or a flat array" });
  assert.throws(() => hg.tensor([1, 2], { shape: [-2] }), { message: 'Trying to create tensor with negative dimension -2: [-2]' });
  assert.deepEqual(hg.tensor(5, { shape: [] }).toArray(), 5);
});
