// The surprises (issue 33): what people get wrong about hooks, each a lesson
// with one switch in its text that flips the one thing and runs again.
// Written in Python first (PyTorch code, run as it is by real torch in
// tests/fixtures/pyfixtures/surprises.py), each with its JavaScript twin
// (same graph and trace: tests/node/lesson-twins.test.mjs, both sides of the
// switch). `switch.python` / `switch.js`: [as written, switched] — each
// string occurs exactly once in its program; `off` / `on` name the two sides
// (`offJs` / `onJs` in JavaScript's words where they differ). Every fact the text states is
// in the fixtures of both sides (tests/node/surprises.test.mjs).

const S_FORWARD = {
  python: `# Module hooks run inside model(x) — PyTorch's __call__ — and nowhere else.
import torch
from torch import nn


class Scale(nn.Module):
    def forward(self, x):
        return x * 3


model = Scale()


def forward_hook(module, args, output):
    print('forward hook saw', output)


def backward_hook(module, grad_input, grad_output):
    print('backward hook: grad_output', grad_output, 'grad_input', grad_input)


model.register_forward_hook(forward_hook)
model.register_full_backward_hook(backward_hook)

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = model(x)
loss = y.sum()
loss.backward()
print('x.grad', x.grad)
`,
  program: `// Module hooks run inside model.call(x) — PyTorch's model(x) — and nowhere else.
function forward(x) {
  return x.mul(3);
}
const model = new hg.Module('Scale', forward);

model.registerForwardHook(function forwardHook(module, args, output) {
  console.log('forward hook saw', output);
});
model.registerFullBackwardHook(function backwardHook(module, gradInput, gradOutput) {
  console.log('backward hook: grad_output', gradOutput, 'grad_input', gradInput);
});

const x = hg.tensor([1, 2], { requiresGrad: true, name: 'x' });
const y = model.call(x); y.name = 'y';
const loss = y.sum(); loss.name = 'loss';
loss.backward();
console.log('x.grad', x.grad);
`,
  switch: { python: ['y = model(x)', 'y = model.forward(x)'], js: ['const y = model.call(x);', 'const y = forward(x);'],
    off: 'model(x)', on: 'model.forward(x)', offJs: 'model.call(x)', onJs: 'forward(x)' },
};

const S_NONE = {
  python: `# A full backward hook on the first layer: grad_input is about the module's input.
import torch
from torch import nn


class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.tensor(2.0))

    def forward(self, x):
        return x * self.w


model = Scale()


def show_grads(module, grad_input, grad_output):
    print('grad_input', grad_input, 'grad_output', grad_output)


model.register_full_backward_hook(show_grads)

x = torch.tensor(3.0)
y = model(x)
y.backward()
print('w.grad', model.w.grad)
`,
  program: `// A full backward hook on the first layer: gradInput is about the module's input.
const model = new hg.Module('Scale', (x) => x.mul(model.getParameter('w')));
model.registerParameter('w', hg.tensor(2, { requiresGrad: true, name: 'w' }));

model.registerFullBackwardHook(function showGrads(module, gradInput, gradOutput) {
  console.log('grad_input', gradInput, 'grad_output', gradOutput);
});

const x = hg.tensor(3, { name: 'x' });
const y = model.call(x); y.name = 'y';
y.backward();
console.log('w.grad', model.getParameter('w').grad);
`,
  switch: { python: ['x = torch.tensor(3.0)', 'x = torch.tensor(3.0, requires_grad=True)'],
    js: ["const x = hg.tensor(3, { name: 'x' });", "const x = hg.tensor(3, { requiresGrad: true, name: 'x' });"],
    off: 'x without requires_grad', on: 'x with requires_grad=True', offJs: 'x without requiresGrad', onJs: 'x with requiresGrad: true' },
};

const S_NO_GRAD = {
  python: `# Under torch.no_grad() nothing is recorded: no graph, so no backward hook.
import torch
from torch import nn


class Scale(nn.Module):
    def forward(self, x):
        return x * 3


model = Scale()


def backward_hook(module, grad_input, grad_output):
    print('backward hook: grad_output', grad_output)


model.register_full_backward_hook(backward_hook)

x = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.no_grad():
    y = model(x)
print('y.requires_grad', y.requires_grad, '| y.grad_fn is None:', y.grad_fn is None)

try:
    y.register_hook(lambda grad: print('hook on y', grad))
except RuntimeError as e:
    print('register_hook:', e)
try:
    loss = y.sum()
    loss.backward()
except RuntimeError as e:
    print('backward:', e)
print('x.grad', x.grad)
`,
  program: `// Under hg.noGrad (PyTorch's torch.no_grad()) nothing is recorded: no graph, so no backward hook.
const model = new hg.Module('Scale', (x) => x.mul(3));
model.registerFullBackwardHook(function backwardHook(module, gradInput, gradOutput) {
  console.log('backward hook: grad_output', gradOutput);
});

const x = hg.tensor([1, 2], { requiresGrad: true, name: 'x' });
const y = hg.noGrad(() => model.call(x)); y.name = 'y';
console.log('y.requiresGrad', y.requiresGrad, '| y.gradFn is null:', y.gradFn === null);

try {
  y.registerHook((grad) => console.log('hook on y', grad));
} catch (e) {
  console.log('registerHook:', e.message);
}
try {
  const loss = y.sum(); loss.name = 'loss';
  loss.backward();
} catch (e) {
  console.log('backward:', e.message);
}
console.log('x.grad', x.grad);
`,
  switch: { python: ['with torch.no_grad():', 'with torch.enable_grad():'], js: ['const y = hg.noGrad(() => model.call(x));', 'const y = model.call(x);'],
    off: 'under no_grad', on: 'with grad enabled', offJs: 'under hg.noGrad' },
};

const S_NONLEAF = {
  python: `# .grad is kept for leaves only: a tensor computed from others needs retain_grad().
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
h = x * 3
h.register_hook(lambda grad: print('hook on h sees', grad))
y = (h * h).sum()
y.backward()
print('x.grad', x.grad)
print('h.grad', h.grad)
`,
  program: `// .grad is kept for leaves only: a tensor computed from others needs retainGrad().
const x = hg.tensor([1, 2], { requiresGrad: true, name: 'x' });
const h = x.mul(3); h.name = 'h';
h.registerHook((grad) => console.log('hook on h sees', grad));
const y = h.mul(h).sum(); y.name = 'y';
y.backward();
console.log('x.grad', x.grad);
console.log('h.grad', h.grad);
`,
  switch: { python: ['h = x * 3\n', 'h = x * 3\nh.retain_grad()\n'], js: ["const h = x.mul(3); h.name = 'h';\n", "const h = x.mul(3); h.name = 'h';\nh.retainGrad();\n"],
    off: 'no retain_grad()', on: 'h.retain_grad()', offJs: 'no retainGrad()', onJs: 'h.retainGrad()' },
};

const S_GRAD_READY = {
  python: `# Inside a module's full backward hook: is the parameter's .grad written yet?
import torch
from torch import nn


class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.tensor([2.0, -1.0]))

    def forward(self, x):
        return x * self.w


model = Scale()


def check_grad(module, grad_input, grad_output):
    print('in the hook: w.grad', module.w.grad)


model.register_full_backward_hook(check_grad)

a = torch.tensor([1.0, 3.0], requires_grad=True)
x = a * 2
y = model(x)
loss = y.sum()
loss.backward()
print('after backward: w.grad', model.w.grad, 'a.grad', a.grad)
`,
  program: `// Inside a module's full backward hook: is the parameter's .grad written yet?
const model = new hg.Module('Scale', (x) => x.mul(model.getParameter('w')));
model.registerParameter('w', hg.tensor([2, -1], { requiresGrad: true, name: 'w' }));

model.registerFullBackwardHook(function checkGrad(module, gradInput, gradOutput) {
  console.log('in the hook: w.grad', module.getParameter('w').grad);
});

const a = hg.tensor([1, 3], { requiresGrad: true, name: 'a' });
const x = a.mul(2); x.name = 'x';
const y = model.call(x); y.name = 'y';
const loss = y.sum(); loss.name = 'loss';
loss.backward();
console.log('after backward: w.grad', model.getParameter('w').grad, 'a.grad', a.grad);
`,
  switch: { python: ['x = a * 2', 'x = a * model.w'], js: ["const x = a.mul(2); x.name = 'x';", "const x = a.mul(model.getParameter('w')); x.name = 'x';"],
    off: 'x = a · 2', on: 'x = a · w' },
};

const S_PILE_UP = {
  python: `# A hook registered inside the training loop stays registered.
import torch

w = torch.tensor(1.0, requires_grad=True)


def double(grad):
    print('  double sees', grad)
    return grad * 2


for step in range(3):
    w.grad = None
    handle = w.register_hook(double)
    loss = w * 2
    loss.backward()
    handle.remove()
    print('step', step, 'w.grad', w.grad)
`,
  program: `// A hook registered inside the training loop stays registered.
const w = hg.tensor(1, { requiresGrad: true, name: 'w' });

function double(grad) {
  console.log('  double sees', grad);
  return grad.mul(2);
}

let loss = null;
for (let step = 0; step < 3; step++) {
  w.grad = null;
  const handle = w.registerHook(double);
  const next = w.mul(2); next.name = 'loss';
  loss?.dispose(); loss = next; // Python frees the last step's loss here, as the name is taken again
  loss.backward();
  handle.remove();
  console.log('step', step, 'w.grad', w.grad);
}
`,
  switch: { python: ['    handle.remove()\n', '    # handle.remove() forgotten\n'], js: ['  handle.remove();\n', '  // handle.remove() forgotten\n'],
    off: 'handle.remove()', on: 'no remove()' },
};

const S_LEGACY = {
  python: `# One module, one backward hook: what does grad_input hold?
import torch
from torch import nn


class Mul3(nn.Module):
    def forward(self, x, y, z):
        return x * y * z


model = Mul3()


def show_grads(module, grad_input, grad_output):
    print('grad_input', grad_input)


model.register_full_backward_hook(show_grads)

x = torch.tensor(2.0, requires_grad=True)
y = torch.tensor(3.0, requires_grad=True)
z = torch.tensor(4.0, requires_grad=True)
out = model(x, y, z)
out.backward()
print('x.grad', x.grad, 'y.grad', y.grad, 'z.grad', z.grad)
`,
  program: `// One module, one backward hook: what does grad_input hold?
const model = new hg.Module('Mul3', (x, y, z) => x.mul(y).mul(z));

model.registerFullBackwardHook(function showGrads(module, gradInput, gradOutput) {
  console.log('grad_input', gradInput);
});

const x = hg.tensor(2, { requiresGrad: true, name: 'x' });
const y = hg.tensor(3, { requiresGrad: true, name: 'y' });
const z = hg.tensor(4, { requiresGrad: true, name: 'z' });
const out = model.call(x, y, z); out.name = 'out';
out.backward();
console.log('x.grad', x.grad, 'y.grad', y.grad, 'z.grad', z.grad);
`,
  switch: { python: ['model.register_full_backward_hook(show_grads)', 'model.register_backward_hook(show_grads)'],
    js: ['model.registerFullBackwardHook(function showGrads', 'model.registerBackwardHook(function showGrads'],
    off: 'register_full_backward_hook', on: 'register_backward_hook (legacy)', offJs: 'registerFullBackwardHook', onJs: 'registerBackwardHook (legacy)' },
};

const S_INPLACE = {
  python: `# A full backward hook on a layer, then nn.ReLU(inplace=True) on what it returns.
import torch
from torch import nn


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.b = nn.Parameter(torch.tensor([0.5, 0.5]))

    def forward(self, x):
        return x * 2 + self.b


layer = Layer()
act = nn.ReLU(inplace=True)


def show_grads(module, grad_input, grad_output):
    print('hook: grad_output', grad_output, 'grad_input', grad_input)


layer.register_full_backward_hook(show_grads)

x = torch.tensor([1.0, -1.0], requires_grad=True)
h = layer(x)
y = act(h)
loss = y.sum()
loss.backward()
print('x.grad', x.grad, 'b.grad', layer.b.grad)
`,
  program: `// A full backward hook on a layer, then nn.ReLU({ inplace: true }) on what it returns.
const layer = new hg.Module('Layer', (x) => x.mul(2).add(layer.getParameter('b')));
layer.registerParameter('b', hg.tensor([0.5, 0.5], { requiresGrad: true, name: 'b' }));
const act = new hg.nn.ReLU({ inplace: true });

layer.registerFullBackwardHook(function showGrads(module, gradInput, gradOutput) {
  console.log('hook: grad_output', gradOutput, 'grad_input', gradInput);
});

const x = hg.tensor([1, -1], { requiresGrad: true, name: 'x' });
const h = layer.call(x); h.name = 'h';
const y = act.call(h); y.name = 'y';
const loss = y.sum(); loss.name = 'loss';
loss.backward();
console.log('x.grad', x.grad, 'b.grad', layer.getParameter('b').grad);
`,
  switch: { python: ['nn.ReLU(inplace=True)\n', 'nn.ReLU(inplace=False)\n'], js: ['new hg.nn.ReLU({ inplace: true });', 'new hg.nn.ReLU({ inplace: false });'],
    off: 'inplace=True', on: 'inplace=False', offJs: '{ inplace: true }', onJs: '{ inplace: false }' },
};

/** The surprise lessons, in gallery order; lessons.js numbers them after the others. */
export const SURPRISES = [
  { id: 'forward-skips-hooks', title: 'The hook never fires: model.forward(x)', ...S_FORWARD,
    see: 'Calling forward() yourself skips every hook of the module.',
    text: ['Module hooks are run by the module’s call, model(x) (PyTorch’s __call__), around forward(). Calling model.forward(x) runs the same computation and skips them: nothing prints, and the figure has no module box and no BackwardHookFunctionBackward nodes.',
      'The gradient does not change: x.grad is 3 either way. Only the hooks are gone.'] },
  { id: 'grad-input-none', title: 'grad_input holds None', ...S_NONE,
    see: 'A first layer whose input needs no gradient hands its full hook (None,).',
    text: ['A full backward hook’s grad_input holds the gradients with respect to the module’s inputs. Here the input x does not require grad, so there is no such gradient: grad_input is (None,), and PyTorch warns that the hook fires on the outputs’ gradients instead.',
      'The parameter w is not an input of forward(): its gradient never appears in grad_input, whatever the switch says.'] },
  { id: 'no-grad-hooks', title: 'no_grad and hooks', ...S_NO_GRAD,
    see: 'Under no_grad the output has no graph: register_hook and backward both raise.',
    text: ['Inside torch.no_grad() the module runs but records nothing: y has no grad_fn and does not require grad. So register_hook on y raises, backward raises, and the module’s backward hook never runs.',
      'Outside it the same lines record a graph, the hook on y and the module’s backward hook both fire, and x.grad is 3.'] },
  { id: 'nonleaf-grad', title: '.grad of a non-leaf is None', ...S_NONLEAF,
    see: 'A computed tensor keeps no .grad unless you call retain_grad().',
    text: ['Backward writes .grad only into leaves, the tensors you created with requires_grad=True. h = x · 3 is computed, so h.grad stays None and PyTorch warns when you read it. A hook on h still sees the gradient as it passes.',
      'retain_grad() asks PyTorch to keep it: it is a hook too, and since PyTorch 2 it runs after h’s other hooks (PyTorch 1.x: where you called it). Flip the PyTorch 2 / 1.x switch to see its mark move in the timeline.'] },
  { id: 'grad-ready-in-hook', title: 'Is .grad set yet inside my hook?', ...S_GRAD_READY,
    see: 'Whether a parameter’s .grad is written before the module hook depends on the graph.',
    text: ['A module’s full backward hook runs once the gradients for its inputs are computed. Whether the parameter’s .grad has been written by then is not a rule: it is the engine’s order, and it depends on the graph.',
      'When w is used only inside the module, its AccumulateGrad runs first and the hook sees w.grad. When w also computes the module’s input, its .grad waits for that second gradient, which arrives after the hook: the hook sees None. Watch the .grad and full marks on the timeline trade places.'] },
  { id: 'hooks-pile-up', title: 'Hooks pile up', ...S_PILE_UP,
    see: 'Registering a hook every step without remove() runs it 1, 2, 3… times.',
    text: ['A hook stays on its tensor until its handle’s remove() is called. A leaf like w lives across the steps of a training loop, so a hook registered at every step without remove() is one more hook each time.',
      'With remove() the hook runs once per step and w.grad is 4 every time. Without it the step k hook runs k + 1 times, doubling again each time: w.grad is 4, 8, 16. The timeline shows the marks pile up on w.'] },
  { id: 'legacy-or-full', title: 'The legacy hook’s lie, in one switch', ...S_LEGACY,
    see: 'register_backward_hook reports the last node’s inputs, not the module’s.',
    text: ['The full backward hook reports one gradient per input of the module: (12, 8, 6) for x, y and z, equal to their .grad.',
      'The legacy register_backward_hook hooks the grad_fn of the output, the second MulBackward0, and reports its inputs’ gradients: (4, 6) for x·y and z — two values for three inputs, and the first is not x’s. PyTorch warns about it when the module runs. Lesson 5 takes it apart.'] },
  { id: 'inplace-after-hook', title: 'In place after a hooked module', ...S_INPLACE,
    see: 'nn.ReLU(inplace=True) after a layer with a full backward hook raises.',
    text: ['A full backward hook makes the layer hand back its output through BackwardHookFunction, which returns it as-is: PyTorch treats h as a view made inside a custom Function. Changing it in place would bypass that node, and the hook with it, so nn.ReLU(inplace=True) raises a RuntimeError at y = act(h), before it writes anything. Backward never runs and the hook never fires.',
      'With inplace=False the ReLU writes a new tensor: backward runs and the hook fires with grad_output (1, 0) — the ReLU let only the first value through — and grad_input (2, 0). x.grad is (2, 0) and b.grad (1, 0). PyTorch’s message names the other way out: clone the output before changing it in place.'] },
];
