// Hand-written graph()/trace() data in the engine's documented format, used
// only as inputs for the pure modules' tests. The values are the 2021 video's
// example worked out by hand (PyTorch 1.x retain-grad order); they are not
// engine output.
const T = (id, name, data, o = {}) => ({ id, name, shape: [], data, requiresGrad: true, isLeaf: true, retainsGrad: false, gradFn: null, grad: null, hooks: [], ...o });

export const videoGraph = {
  tensors: [
    T(1, 'a', 2, { grad: 30 }), T(2, 'b', 3, { grad: 20 }),
    T(3, 'c', 6, { isLeaf: false, gradFn: 10, retainsGrad: true, grad: 10, hooks: [
      { handle: 1, kind: 'tensor', name: 'cHook' }, { handle: 2, kind: 'tensor', name: 'printGrad' }, { handle: 3, kind: 'retain-grad', name: '' }] }),
    T(4, 'd', 4, { grad: 112, hooks: [{ handle: 4, kind: 'tensor', name: 'addHundred' }] }),
    T(5, 'e', 24, { isLeaf: false, gradFn: 13, retainsGrad: true, grad: 1, hooks: [
      { handle: 5, kind: 'retain-grad', name: '' }, { handle: 6, kind: 'tensor', name: 'double' }] }),
  ],
  nodes: [
    { id: 10, name: 'MulBackward0', next: [{ node: 11, inputNr: 0 }, { node: 12, inputNr: 0 }], variable: null, preHooks: [], postHooks: [] },
    { id: 11, name: 'AccumulateGrad', next: [], variable: 1, preHooks: [], postHooks: [] },
    { id: 12, name: 'AccumulateGrad', next: [], variable: 2, preHooks: [], postHooks: [] },
    { id: 13, name: 'MulBackward0', next: [{ node: 10, inputNr: 0 }, { node: 14, inputNr: 0 }], variable: null, preHooks: [], postHooks: [] },
    { id: 14, name: 'AccumulateGrad', next: [], variable: 4, preHooks: [], postHooks: [] },
  ],
};

export const videoTrace = [
  { type: 'op', node: 10, name: 'MulBackward0', inputs: [1, 2], output: 3 },
  { type: 'op', node: 13, name: 'MulBackward0', inputs: [3, 4], output: 5 },
  { type: 'hook', kind: 'retain-grad', handle: 5, tensor: 5, before: 1, after: 1 },
  { type: 'hook', kind: 'tensor', handle: 6, tensor: 5, before: 1, after: 2 },
  { type: 'node', node: 13, name: 'MulBackward0', gradOutputs: [2], gradInputs: [8, 12] },
  { type: 'hook', kind: 'tensor', handle: 4, tensor: 4, before: 12, after: 112 },
  { type: 'accumulate', tensor: 4, grad: 112 },
  { type: 'node', node: 14, name: 'AccumulateGrad', gradOutputs: [112], gradInputs: [] },
  { type: 'hook', kind: 'tensor', handle: 1, tensor: 3, before: 8, after: 10 },
  { type: 'hook', kind: 'tensor', handle: 2, tensor: 3, before: 10, after: 10 },
  { type: 'hook', kind: 'retain-grad', handle: 3, tensor: 3, before: 10, after: 10 },
  { type: 'node', node: 10, name: 'MulBackward0', gradOutputs: [10], gradInputs: [30, 20] },
  { type: 'accumulate', tensor: 1, grad: 30 },
  { type: 'node', node: 11, name: 'AccumulateGrad', gradOutputs: [30], gradInputs: [] },
  { type: 'accumulate', tensor: 2, grad: 20 },
  { type: 'node', node: 12, name: 'AccumulateGrad', gradOutputs: [20], gradInputs: [] },
];

/** A module call (Mul3-like) with a warning inside it, for module/pin tests.
 *  As in the engine, the legacy hook's row on its node has its own handle (8)
 *  and the hook event comes right before that node's event. */
export const moduleGraph = {
  tensors: [T(1, 'x', 2), T(2, 'y', 3), T(3, '', 6, { isLeaf: false, gradFn: 10 }), T(4, 'out', 6, { isLeaf: false, gradFn: 11 })],
  nodes: [
    { id: 10, name: 'MulBackward0', next: [{ node: 12, inputNr: 0 }, { node: 13, inputNr: 0 }], variable: null, preHooks: [], postHooks: [] },
    { id: 11, name: 'MulBackward0', next: [{ node: 10, inputNr: 0 }, { node: null, inputNr: 0 }], variable: null, preHooks: [], postHooks: [{ handle: 8, kind: 'module-backward', name: "legacyHook (module 'Mul3')" }] },
    { id: 12, name: 'AccumulateGrad', next: [], variable: 1, preHooks: [], postHooks: [] },
    { id: 13, name: 'AccumulateGrad', next: [], variable: 2, preHooks: [], postHooks: [] },
  ],
};
export const moduleTrace = [
  { type: 'module', module: 'Mul3', moduleId: 1, phase: 'pre-hook' },
  { type: 'module', module: 'Mul3', moduleId: 1, phase: 'forward' },
  { type: 'op', node: 10, name: 'MulBackward0', inputs: [1, 2], output: 3 },
  { type: 'op', node: 11, name: 'MulBackward0', inputs: [3, 1], output: 4 },
  { type: 'module', module: 'Mul3', moduleId: 1, phase: 'hook' },
  { type: 'warning', message: 'Using a non-full backward hook when the forward contains multiple autograd Nodes is deprecated' },
  { type: 'module', module: 'Mul3', moduleId: 1, phase: 'end' },
  { type: 'hook', kind: 'module-backward', handle: 7, module: 'Mul3', moduleId: 1, before: [2, 6], after: [2, 6] },
  { type: 'node', node: 11, name: 'MulBackward0', gradOutputs: [1], gradInputs: [2, 6] },
  { type: 'error', message: 'boom', node: 10 },
];
