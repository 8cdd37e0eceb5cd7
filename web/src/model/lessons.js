// The lesson gallery: each lesson is a hookgrad JS program (the API of
// /work/shared/js-api.md) plus a few sentences. Programs run in the worker
// with `hg` and `console` in scope; every value the page shows comes from
// the engine's graph()/trace(), never from here.
import { PYTHON, NOT_TWINS } from './lessons-python.js';

const L1 = `// Tensor hooks run in the order they were registered,
// and retainGrad() is one of those hooks.
const a = hg.tensor(2, { requiresGrad: true, name: 'a' });
const b = hg.tensor(3, { requiresGrad: true, name: 'b' });
const c = a.mul(b); c.name = 'c';

function cHook(grad) {
  console.log('cHook got', grad);
  return grad.add(2);
}
c.registerHook(cHook);
c.registerHook(function printGrad(grad) { console.log('printGrad got', grad); });
c.retainGrad();

const d = hg.tensor(4, { requiresGrad: true, name: 'd' });
d.registerHook(function addHundred(grad) { return grad.add(100); });

const e = c.mul(d); e.name = 'e';
e.retainGrad();
e.registerHook(function double(grad) { return grad.mul(2); });
e.retainGrad(); // a second call does nothing

e.backward();
console.log('a.grad', a.grad, 'b.grad', b.grad, 'c.grad', c.grad);
console.log('d.grad', d.grad, 'e.grad', e.grad);
`;

const L2 = `// register* returns a handle; handle.remove() takes the hook out again.
const a = hg.tensor(2, { requiresGrad: true, name: 'a' });
const b = hg.tensor(3, { requiresGrad: true, name: 'b' });
const c = a.mul(b); c.name = 'c';
const h = c.registerHook(function addTwo(grad) { return grad.add(2); });
const d = hg.tensor(4, { requiresGrad: true, name: 'd' });
const e = c.mul(d); e.name = 'e';

e.backward(undefined, { retainGraph: true });
console.log('with the hook:    a.grad', a.grad, 'b.grad', b.grad);

h.remove();
h.remove(); // removing twice is fine
a.grad = null; b.grad = null; d.grad = null;
e.backward();
console.log('after remove():   a.grad', a.grad, 'b.grad', b.grad);
`;

const L3 = `// A hook that changes its gradient in place can change other branches too.
const a = hg.tensor(2, { requiresGrad: true, name: 'a' });
const b = hg.tensor(3, { requiresGrad: true, name: 'b' });
const c = a.mul(b); c.name = 'c';
const d = hg.tensor(4, { requiresGrad: true, name: 'd' });
const e = c.add(d); e.name = 'e';

d.registerHook(function dHook(grad) {
  grad.mul_(100); // in place, and nothing returned
});

e.backward();
console.log('d.grad', d.grad, 'a.grad', a.grad, 'b.grad', b.grad);
`;

const L4 = `// Forward pre-hooks may replace the positional inputs, forward hooks the output.
const net = new hg.Module('SumNet', (a, b, { c }) => a.add(b).add(c));

function preHook(module, args) {
  console.log('pre-hook sees', args.length, 'positional args');
  const [a, b] = args;
  return [a.add(10), b];
}
function forwardHook(module, args, output) {
  console.log('forward hook: output was', output);
  return output.add(100);
}
const h1 = net.registerForwardPreHook(preHook);
const h2 = net.registerForwardHook(forwardHook);

const a = hg.tensor(1, { requiresGrad: true, name: 'a' });
const b = hg.tensor(2, { requiresGrad: true, name: 'b' });
const c = hg.tensor(3, { requiresGrad: true, name: 'c' });

const d = net.callWithKwargs([a, b], { c }); // c is a keyword argument
d.name = 'd';
console.log('d =', d);

h1.remove(); h2.remove();
const d2 = net.callWithKwargs([a, b], { c });
d2.name = 'd2';
console.log('d2 =', d2);
`;

const L5 = `// The legacy module backward hook hooks the grad_fn of the module's output.
function show(label) {
  return function legacyHook(module, gradInput, gradOutput) {
    console.log(label, 'grad_input', gradInput, 'grad_output', gradOutput);
  };
}
function mul3(x, y, z) {
  const xy = x.mul(y); xy.name = 'x·y';
  return xy.mul(z);
}

// 1. One multiplication: the legacy hook happens to be right.
const mul2 = new hg.Module('Mul2', (x, y) => x.mul(y));
mul2.registerBackwardHook(show('Mul2 legacy:'));
const a = hg.tensor(2, { requiresGrad: true, name: 'a' });
const b = hg.tensor(3, { requiresGrad: true, name: 'b' });
const c = mul2.call(a, b); c.name = 'c';

// 2. Two multiplications: it only sees the last one.
const legacyMul3 = new hg.Module('Mul3', mul3);
legacyMul3.registerBackwardHook(show('Mul3 legacy:'));
const p = hg.tensor(2, { requiresGrad: true, name: 'p' });
const q = hg.tensor(3, { requiresGrad: true, name: 'q' });
const r = hg.tensor(4, { requiresGrad: true, name: 'r' });
const out = legacyMul3.call(p, q, r); out.name = 'out';

// 3. A twin Mul3 with a full backward hook (PyTorch refuses both kinds on
//    one module): one gradient per input.
const fullMul3 = new hg.Module('Mul3', mul3);
fullMul3.registerFullBackwardHook(function fullHook(module, gradInput, gradOutput) {
  console.log('Mul3 full:   grad_input', gradInput, 'grad_output', gradOutput);
});
const u = hg.tensor(2, { requiresGrad: true, name: 'u' });
const v = hg.tensor(3, { requiresGrad: true, name: 'v' });
const w = hg.tensor(4, { requiresGrad: true, name: 'w' });
const out2 = fullMul3.call(u, v, w); out2.name = 'out2';

c.backward();
out.backward();
out2.backward();
`;

const L6 = `// Workaround: hook the tensors going into and coming out of the module.
const mul3 = new hg.Module('Mul3', (x, y, z) => x.mul(y).mul(z));
const a = hg.tensor(2, { requiresGrad: true, name: 'a' });
const b = hg.tensor(3, { requiresGrad: true, name: 'b' });
const c = hg.tensor(4, { requiresGrad: true, name: 'c' });
for (const t of [a, b, c]) {
  t.registerHook(function inputGrad(grad) { console.log('grad of', t.name, grad); });
}
const d = mul3.call(a, b, c); d.name = 'd';
d.registerHook(function outputGrad(grad) { console.log('grad of d', grad); });
d.backward();
`;

const L7 = `// Full backward hooks see the adjoint: grad_output and grad_input of each layer.
const A = hg.tensor([[1, -2, -1], [-2, 1, -2], [-1, -2, 1]]).div(4);
function makeLayer(i) {
  // One class of layer, as in PyTorch (the Python twin's class Layer): modules are named by their class.
  const layer = new hg.Module('Layer', (u) => u.add(layer.getParameter('A').matmul(u)));
  layer.registerParameter('A', hg.tensor(A.toArray(), { requiresGrad: true, name: 'A' + i }));
  return layer;
}
const layers = [makeLayer(0), makeLayer(1), makeLayer(2)];
const model = new hg.Module('Model', (u) => layers.reduce((x, l) => l.call(x), u));
// The Python twin's nn.ModuleList: a container (never called itself) named 'layers',
// so the layers are layers.0, layers.1, layers.2 in model.namedModules().
const list = new hg.Module('ModuleList', () => { throw new Error('a ModuleList is not called'); });
layers.forEach((l, i) => list.addModule(String(i), l));
model.addModule('layers', list);

layers.forEach((layer, i) => {
  layer.registerFullBackwardHook(function adjointHook(m, gradInput, gradOutput) {
    console.log('Layer' + i, 'grad_output', gradOutput, 'grad_input', gradInput);
  });
});
const u0 = hg.tensor([1, 0.5, -1], { name: 'u0' }); // no grad needed
const y = hg.tensor([0, 1, 0], { name: 'y' });
const out = model.call(u0); out.name = 'out';
const loss = out.sub(y).pow(2).sum().mul(0.5); loss.name = 'loss';
loss.backward();

// The adjoint recursion by hand: λ = out - y, then λ ← λ + Aᵀλ per layer.
hg.noGrad(() => {
  let lam = out.sub(y);
  for (let i = layers.length - 1; i >= 0; i--) {
    const next = lam.add(layers[i].getParameter('A').t().matmul(lam));
    console.log('adjoint', 'Layer' + i, lam, '→', next);
    lam = next;
  }
});
`;

const L8 = `// nn.Linear's forward is one addmm: its legacy hook sees AddmmBackward0's three inputs.
// The parameters PyTorch draws for nn.Linear(3, 1) after torch.manual_seed(0), as the Python twin does.
const lin = new hg.nn.Linear(3, 1);
lin.registerParameter('weight', hg.tensor([[-0.00432251766, 0.309715837, -0.475185335]], { requiresGrad: true }));
lin.registerParameter('bias', hg.tensor([-0.424894601], { requiresGrad: true }));
lin.registerBackwardHook(function legacyHook(module, gradInput, gradOutput) {
  console.log('legacy grad_input has', gradInput.length, 'entries:', gradInput);
  console.log('legacy grad_output', gradOutput);
});
const x = hg.tensor([[1, 2, 3]], { requiresGrad: true, name: 'x' });
const out = lin.call(x); out.name = 'out';
out.registerHook(function scaleGrad(grad) { return grad.mul(0.1); });
out.backward(); // a 1-element output takes the implicit gradient 1
console.log('x.grad', x.grad);
`;

const L9 = `// Capture activations and gradients of one named submodule.
// nn.Linear with the parameters PyTorch draws after torch.manual_seed(7) and (2), as the Python twin does.
function linear(inF, outF, weight, bias) {
  const l = new hg.nn.Linear(inF, outF);
  l.registerParameter('weight', hg.tensor(weight, { requiresGrad: true }));
  l.registerParameter('bias', hg.tensor(bias, { requiresGrad: true }));
  return l;
}
const encoder = linear(4, 3, [[0.0349225402, -0.301196814, 0.159211695, 0.156890273], [-0.267238438, -0.0749385953, -0.292913973, 0.129736364], [-0.134683847, 0.351268351, 0.354943156, 0.0509352088]],
  [-0.213160992, -0.293680608, -0.0549098253]);
const head = linear(3, 2, [[0.132438466, -0.137394518, 0.158326], [-0.0294898059, 0.246636912, 0.137451366]], [-0.0663575679, -0.466766179]);
const net = new hg.Module('Net', (x) => head.call(encoder.call(x).relu()));
net.addModule('encoder', encoder);
net.addModule('head', head);
// Name each parameter by its qualified name, so the figure tells them apart.
for (const [name, p] of net.namedParameters()) p.name = name; // encoder.weight, …, head.bias

const activations = []; const gradients = [];
for (const [name, m] of net.namedModules()) {
  if (name === 'encoder') {
    m.registerForwardHook(function saveActivation(mod, args, output) { activations.push(output); });
    m.registerFullBackwardHook(function saveGradient(mod, gradInput, gradOutput) { gradients.push(gradOutput[0]); });
  }
}
const x = hg.tensor([[1, -1, 0.5, 2]], { requiresGrad: true, name: 'x' });
const loss = net.call(x).mean(); loss.name = 'loss';
loss.backward();
console.log('activation', activations[0]);
console.log('gradient at the encoder output', gradients[0]);
`;

const L10 = `// Hooks on backward nodes themselves, and a hook after .grad is written.
const a = hg.tensor(2, { requiresGrad: true, name: 'a' });
const b = hg.tensor(3, { requiresGrad: true, name: 'b' });
const c = a.mul(b); c.name = 'c';
const e = c.mul(c); e.name = 'e';

const mulNode = c.gradFn; // MulBackward0 of c
mulNode.registerPrehook(function beforeMul(gradOutputs) {
  console.log('pre-hook of', mulNode.name, 'grad_outputs', gradOutputs);
  return [gradOutputs[0].mul(2)];
});
mulNode.registerHook(function afterMul(gradInputs, gradOutputs) {
  console.log('hook of', mulNode.name, 'grad_inputs', gradInputs);
});
const accA = mulNode.nextFunctions[0][0]; // AccumulateGrad of a
accA.registerHook(function afterAccumulate(gradInputs, gradOutputs) {
  console.log(accA.name, 'hook: grad_outputs', gradOutputs);
});
a.registerPostAccumulateGradHook(function gradReady(t) {
  console.log('a.grad is now', t.grad);
});
e.backward();
`;

export const LESSONS = [
  { id: 'tensor-hooks', n: 1, title: 'Tensor hooks and retain_grad order', program: L1,
    text: ['The example of the 2021 video: a·b = c, c·d = e, with hooks on c, d and e. A tensor hook receives the gradient flowing into its tensor and may return a replacement; hooks on one tensor run in registration order.',
      'retainGrad() is a hook as well. Under PyTorch 1.x it runs where you called it, so e.grad keeps the gradient before the doubling hook (1). Since PyTorch 2.0 it always runs last (2). Flip the switch and run again.'] },
  { id: 'handles', n: 2, title: 'Handles and remove()', program: L2,
    text: ['Every register call gives back a handle. Calling remove() on it takes the hook out of its list — calling it twice is harmless.',
      'Here the same graph runs backward twice: first with the +2 hook on c, then after h.remove().'] },
  { id: 'inplace', n: 3, title: 'The in-place hook hazard', program: L3,
    text: ['Addition passes one and the same gradient tensor to both of its inputs. d’s hook multiplies that tensor by 100 in place and returns nothing.',
      'Because the tensor is shared, the change also reaches the c branch: a and b end up with gradients 100× too large. Return a new tensor (grad.mul(100)) instead.'] },
  { id: 'module-forward', n: 4, title: 'Module forward pre-hooks and forward hooks', program: L4,
    text: ['A forward pre-hook runs before forward() and may replace the positional arguments; a forward hook runs after it and may replace the output.',
      'SumNet gets a and b positionally and c as a keyword, so the pre-hook only sees two arguments. With both hooks the result is 116; after removing them it is 6.'] },
  { id: 'legacy-hook', n: 5, title: 'Why the legacy module backward hook lies', program: L5, flagship: true, view: { module: 'Mul3' },
    compare: { module: 'Mul3', control: 'Mul2' }, predict: { module: 'Mul3', kind: 'module-backward' },
    text: ['registerBackwardHook (PyTorch’s deprecated register_backward_hook) does not hook the module. It hooks the grad_fn of the module’s output, whichever node that is, and reports that node’s grad_inputs.',
      'Mul3 computes (x·y)·z, so its hook sits on the second MulBackward0, whose inputs are x·y and z. It reports their two gradients for the module’s three inputs: the first is the gradient of x·y (an intermediate tensor, not p), the second is z’s (that is r’s, shown in q’s place), and r gets none.',
      'The full backward hook wraps the module’s inputs and output in BackwardHookFunctionBackward nodes, so it reports one gradient per input, equal to .grad. Mul2 has a single MulBackward0, so there the legacy hook happens to be right. Press Backward and watch where each hook fires.'] },
  { id: 'workaround', n: 6, title: 'The tensor-hook workaround', program: L6,
    text: ['Before full backward hooks existed, the fix was to put tensor hooks on the module’s inputs and on its output.',
      'Each tensor hook sees the gradient of exactly its own tensor: d’s hook gets the module’s grad_output, and a, b and c’s hooks get one gradient per module input, the values the legacy hook of lesson 5 could not give (compare the console with lesson 5’s table).'] },
  { id: 'adjoint', n: 7, title: 'Full backward hooks as the adjoint', program: L7,
    text: ['Three layers u ← u + A·u. For a loss ½‖out − y‖², the gradient with respect to each layer’s output is the adjoint variable λ, and going back one layer is λ ← λ + Aᵀλ.',
      'Each layer’s full backward hook prints grad_output (λ after the layer) and grad_input (λ before it); compare them with the hand-written recursion at the end. The first layer’s grad_input is None, because u0 does not require grad.'] },
  { id: 'linear-legacy', n: 8, title: 'nn.Linear and AddmmBackward0’s triple', program: L8,
    text: ['Linear computes bias + x·Wᵀ with one addmm, so its legacy backward hook sits on AddmmBackward0 and reports that node’s three grad_inputs for the module’s one input: the gradients of the bias, of x and of Wᵀ (the transposed weight, not W), in that order. Only the middle one is the gradient of the module’s input.',
      'The output tensor’s hook scales the gradient by 0.1 first, and the legacy hook sees the scaled value.'] },
  { id: 'capture', n: 9, title: 'Capturing activations and gradients', program: L9,
    text: ['A common use of hooks: find a submodule by its name in namedModules(), save its output with a forward hook and the gradient at that output with a full backward hook.',
      'The hooks push tensors into plain arrays; they stay valid after the hook returns and are printed at the end.'] },
  { id: 'node-hooks', n: 10, title: 'Node pre/post hooks and post-accumulate-grad hooks', program: L10,
    text: ['Backward nodes have hooks of their own: a pre-hook gets the node’s grad_outputs before it runs and may replace them, a hook gets grad_inputs and grad_outputs afterwards.',
      'AccumulateGrad is a node too. A post-accumulate-grad hook on a leaf runs after its .grad has been written and receives the tensor itself.'] },
];

export const DEFAULT_LESSON = 'tensor-hooks';

export function findLesson(id) {
  return LESSONS.find((l) => l.id === id || String(l.n) === String(id)) || null;
}

// ----- second release: higher-order gradients and torch.autograd.graph hooks

const L11 = `// A gradient penalty: the gradient itself becomes part of the loss.
const w = hg.tensor([[0.2, -0.4, 0.6], [0.1, 0.3, -0.5]], { requiresGrad: true, name: 'w' });
const x = hg.tensor([[1, 0.5, -1], [0, 2, 1]], { name: 'x' });
const h = x.matmul(w.t()); h.name = 'h';
h.registerHook(function seeGrad(g) {
  console.log('h hook:', g, 'requiresGrad', g.requiresGrad);
});
const loss = h.tanh().sum(); loss.name = 'loss';

// createGraph: the gradient is computed with ops that build a graph of
// their own (and retainGraph defaults to true, so loss's graph stays).
const [g] = hg.grad(loss, w, { createGraph: true });
g.name = 'dloss_dw';
console.log('dloss/dw', g, 'gradFn', g.gradFn.name);

const penalty = g.pow(2).sum(); penalty.name = 'penalty';
const total = loss.add(penalty); total.name = 'total';
total.backward();   // runs through the second graph *and* the first
console.log('w.grad', w.grad);
`;

const L12 = `// Saved tensors leave at forward (pack) and come back at backward (unpack).
const x = hg.tensor([0.5, -1, 1.5], { requiresGrad: true, name: 'x' });

function pack(t) {
  console.log('pack: an op saves', t);
  return t.toArray();            // keep plain numbers instead of the tensor
}
function unpack(values) {
  console.log('unpack: backward needs', values);
  return hg.tensor(values);      // must give a tensor back
}

const y = hg.savedTensorsHooks(pack, unpack, () => x.mul(x).exp().sum());
y.name = 'y';
console.log('forward done; backward starts');
y.backward();
console.log('x.grad', x.grad);
`;

const L13 = `// One hook for several tensors: register_multi_grad_hook.
const a = hg.tensor([1, 2], { requiresGrad: true, name: 'a' });
const b = hg.tensor([3, -4], { requiresGrad: true, name: 'b' });

const h = hg.registerMultiGradHook([a, b], function bothGrads(grads) {
  console.log("'all' sees", grads[0], grads[1]);
});
hg.registerMultiGradHook([a, b], function firstGrad(g) {
  console.log("'any' sees the first:", g);
}, { mode: 'any' });

const c = a.mul(b); c.name = 'c';
c.sum().backward();           // both gradients: 'all' fires once with (b, a)
a.mul(2).sum().backward();    // b is not reached: 'all' gets None (null) for it
h.remove();
`;

LESSONS.push(
  { id: 'gradient-penalty', n: 11, title: 'Gradients of gradients: a gradient penalty', program: L11,
    text: ['With createGraph the backward pass records what it computes, so the gradient dloss/dw has a gradFn and can be differentiated again — the basis of gradient penalties and of second derivatives.',
      'The second backward runs through the nodes the first one built and, through the tensors they saved, through the first graph as well: the hook on h fires in both passes, first with a gradient that itself requires grad.'] },
  { id: 'saved-tensors', n: 12, title: 'Saved tensors: pack and unpack', program: L12,
    text: ['Ops keep some tensors for backward: mul keeps both inputs, exp keeps its result. savedTensorsHooks lets you decide how: pack runs when an op saves a tensor during forward, unpack when backward needs it back.',
      'Here pack stores plain numbers and unpack rebuilds a tensor, the pattern used to offload activations to the CPU or a disk. Watch the three packs at forward and the three unpacks while backward runs.'] },
  { id: 'multi-grad', n: 13, title: 'One hook for several tensors', program: L13,
    text: ['registerMultiGradHook watches a group of tensors. In mode all it fires once per backward, when every gradient that backward will compute has arrived, with None (null in JavaScript) for the tensors it does not reach.',
      'In mode any it fires once per backward, for the first gradient that arrives.'] },
);

// ----- a training loop, and memory without reference counting

const L14 = `// Teaching a tiny network XOR. Every step builds a new graph; hg.tidy
// releases the step's tensors when it ends, so memory stays flat for as
// many steps as you like, with no wait for the garbage collector.
const model = new hg.nn.Sequential(
  new hg.nn.Linear(2, 4, { seed: 1 }), new hg.nn.Tanh(), new hg.nn.Linear(4, 1, { seed: 2 }));
const x = hg.tensor([[0, 0], [0, 1], [1, 0], [1, 1]], { name: 'x' });
const y = hg.tensor([[0], [1], [1], [0]], { name: 'y' });
for (const [name, p] of model.namedParameters()) p.name = name; // 0.weight, …, 2.bias: told apart in the figure

// A hook that lives through the whole run: the gradient at the Tanh output.
// Its arguments belong to the step (tidy releases them), so it keeps a number.
let gradNorm = 0;
const tanh = model.namedModules().find(([name]) => name === '1')[1];
tanh.registerFullBackwardHook(function watch(module, gradInput, gradOutput) {
  gradNorm = gradOutput[0].pow(2).sum().sqrt().item();
});

function step() {
  const loss = hg.nn.functional.mseLoss(model.call(x), y);
  model.zeroGrad();
  loss.backward();
  hg.noGrad(() => {
    for (const p of model.parameters()) p.sub_(p.grad.mul(0.5));
  });
  return loss.item();       // a number: nothing of the step outlives it
}

// hg.memory() counts what is alive; compare each step with the first.
const change = (now, then) => (now >= then ? '+' : '') + (now - then);
let first = null;
for (let i = 0; i <= 300; i++) {
  const loss = hg.tidy(step);
  const { tensors, nodes } = hg.memory();
  first ??= { tensors, nodes };
  if (i % 100 === 0) {
    console.log('step', i, 'loss', loss.toFixed(4), '|grad at tanh|', gradNorm.toFixed(3),
      'live tensors', change(tensors, first.tensors), 'graph nodes', change(nodes, first.nodes));
  }
}

// One more forward and backward outside tidy: its graph stays for the figure.
model.zeroGrad();
const out = model.call(x); out.name = 'out';
const loss = hg.nn.functional.mseLoss(out, y); loss.name = 'loss';
loss.backward();
console.log('loss', loss, 'prediction', out);
`;

LESSONS.push(
  { id: 'training-loop', n: 14, title: 'Hooks in a training loop, and hg.tidy', program: L14,
    text: ['Training repeats forward, backward and an update, and every step builds a fresh graph. JavaScript cannot count references the way Python does, so a finished step’s tensors would wait for the garbage collector, which never runs inside a synchronous loop. hg.tidy(step) releases every tensor handle the step created, except what it returns.',
      'The console shows no more live tensors or graph nodes after step 300 than after step 0: each step leaves behind the parameters’ new values and gradients, nothing else. The full backward hook on the Tanh layer fires every step; the tensors it receives belong to the step, so it keeps a plain number. The figure shows one last step, run outside tidy so that its graph stays.'] },
);

// Each lesson's Python twin (lessons-python.js): the same graph and trace in PyTorch code.
for (const l of LESSONS) if (PYTHON[l.id]) { l.python = PYTHON[l.id]; l.twin = !NOT_TWINS[l.id]; }
