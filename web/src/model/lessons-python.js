// Every lesson in Python too (issue 30): PyTorch code — the hooks video's
// scripts where the lesson comes from the video — that gives the same graph
// and trace as the lesson's JavaScript (values, hook order, node names;
// tests/node/lesson-twins.test.mjs), so the figure can be drawn from either.
// Printed lines are PyTorch's own. lessons.js attaches each as `lesson.python`.

export const PYTHON = {
  'tensor-hooks': `# The hooks video's 1_tensor_hooks/2_with_hooks.py, as it is.
import torch


a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)

c = a * b


def c_hook(grad):
    print(grad)
    return grad + 2


c.register_hook(c_hook)
c.register_hook(lambda grad: print(grad))
c.retain_grad()

d = torch.tensor(4.0, requires_grad=True)
d.register_hook(lambda grad: grad + 100)

e = c * d

e.retain_grad()
e.register_hook(lambda grad: grad * 2)
e.retain_grad() # second-time retain_grad() is NOP

e.backward()

print(f'a.grad {a.grad}')
print(f'b.grad {b.grad}')
print(f'c.grad {c.grad}')
print(f'd.grad {d.grad}')
print(f'e.grad {e.grad}')`,
  'handles': `# register_hook returns a handle; handle.remove() takes the hook out again.
import torch

a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
c = a * b
h = c.register_hook(lambda grad: grad + 2)
d = torch.tensor(4.0, requires_grad=True)
e = c * d

e.backward(retain_graph=True)
print('with the hook:    a.grad', a.grad, 'b.grad', b.grad)

h.remove()
h.remove()  # removing twice is fine
a.grad = None; b.grad = None; d.grad = None
e.backward()
print('after remove():   a.grad', a.grad, 'b.grad', b.grad)
`,
  'inplace': `# The hooks video's 1_tensor_hooks/5_hook_with_in_place_operation.py:
# a hook that changes its gradient in place changes the other branch too.
import torch

a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
c = a * b
d = torch.tensor(4.0, requires_grad=True)
e = c + d


def d_hook(grad):
    grad *= 100  # in place, and nothing returned


d.register_hook(d_hook)

e.backward()
print('d.grad', d.grad, 'a.grad', a.grad, 'b.grad', b.grad)
`,
  'module-forward': `# The hooks video's 2_module_forward_hooks: a forward pre-hook may replace
# the positional inputs, a forward hook the output.
import torch
import torch.nn as nn


class SumNet(nn.Module):
    def forward(self, a, b, c):
        return a + b + c


def forward_pre_hook(module, args):
    print('pre-hook sees', len(args), 'positional args')
    a, b = args
    return a + 10, b


def forward_hook(module, args, output):
    print('forward hook: output was', output)
    return output + 100


net = SumNet()
h1 = net.register_forward_pre_hook(forward_pre_hook)
h2 = net.register_forward_hook(forward_hook)

a = torch.tensor(1.0, requires_grad=True)
b = torch.tensor(2.0, requires_grad=True)
c = torch.tensor(3.0, requires_grad=True)

d = net(a, b, c=c)  # c is a keyword argument
print('d =', d)

h1.remove(); h2.remove()
d2 = net(a, b, c=c)
print('d2 =', d2)
`,
  'legacy-hook': `# The legacy module backward hook hooks the grad_fn of the module's output
# (the hooks video's 3_module_backward_hooks).
import torch
import torch.nn as nn


def show(label):
    def legacy_hook(module, grad_input, grad_output):
        print(label, 'grad_input', grad_input, 'grad_output', grad_output)
    return legacy_hook


class Mul2(nn.Module):
    def forward(self, x, y):
        return x * y


class Mul3(nn.Module):
    def forward(self, x, y, z):
        xy = x * y
        return xy * z


# 1. One multiplication: the legacy hook happens to be right.
mul2 = Mul2()
mul2.register_backward_hook(show('Mul2 legacy:'))
a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
c = mul2(a, b)

# 2. Two multiplications: it only sees the last one.
legacy_mul3 = Mul3()
legacy_mul3.register_backward_hook(show('Mul3 legacy:'))
p = torch.tensor(2.0, requires_grad=True)
q = torch.tensor(3.0, requires_grad=True)
r = torch.tensor(4.0, requires_grad=True)
out = legacy_mul3(p, q, r)

# 3. A twin Mul3 with a full backward hook (PyTorch refuses both kinds on
#    one module): one gradient per input.
full_mul3 = Mul3()


def full_hook(module, grad_input, grad_output):
    print('Mul3 full:   grad_input', grad_input, 'grad_output', grad_output)


full_mul3.register_full_backward_hook(full_hook)
u = torch.tensor(2.0, requires_grad=True)
v = torch.tensor(3.0, requires_grad=True)
w = torch.tensor(4.0, requires_grad=True)
out2 = full_mul3(u, v, w)

c.backward()
out.backward()
out2.backward()
`,
  'workaround': `# The hooks video's 3_tensor_hooks_workaround.py: hook the tensors going
# into and coming out of the module.
import torch
import torch.nn as nn


class Mul3(nn.Module):
    def forward(self, x, y, z):
        return x * y * z


mul3 = Mul3()
a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
c = torch.tensor(4.0, requires_grad=True)
a.register_hook(lambda grad: print('a grad:', grad))
b.register_hook(lambda grad: print('b grad:', grad))
c.register_hook(lambda grad: print('c grad:', grad))
d = mul3(a, b, c)
d.register_hook(lambda grad: print('d grad:', grad))
d.backward()
`,
  'adjoint': `# Full backward hooks see the adjoint: grad_output and grad_input of each layer.
import torch
import torch.nn as nn

A = torch.tensor([[1., -2., -1.], [-2., 1., -2.], [-1., -2., 1.]]) / 4


class Layer(nn.Module):
    def __init__(self, i):
        super().__init__()
        self.i = i
        self.A = nn.Parameter(A.clone())

    def forward(self, u):
        return u + self.A @ u


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Layer(i) for i in range(3)])

    def forward(self, u):
        for layer in self.layers:
            u = layer(u)
        return u


model = Model()


def adjoint_hook(m, grad_input, grad_output):
    print(f'Layer{m.i}', 'grad_output', grad_output, 'grad_input', grad_input)


for layer in model.layers:
    layer.register_full_backward_hook(adjoint_hook)
u0 = torch.tensor([1, 0.5, -1])  # no grad needed
y = torch.tensor([0., 1., 0.])
out = model(u0)
loss = ((out - y) ** 2).sum() * 0.5
loss.backward()

# The adjoint recursion by hand: lambda = out - y, then lambda <- lambda + A^T lambda per layer.
with torch.no_grad():
    lam = out - y
    for layer in reversed(model.layers):
        nxt = lam + layer.A.t() @ lam
        print('adjoint', f'Layer{layer.i}', lam, '->', nxt)
        lam = nxt
`,
  'linear-legacy': `# nn.Linear's forward is one addmm: its legacy hook sees AddmmBackward0's three inputs.
import torch
import torch.nn as nn

torch.manual_seed(0)
lin = nn.Linear(3, 1)


def legacy_hook(module, grad_input, grad_output):
    print('legacy grad_input has', len(grad_input), 'entries:', grad_input)
    print('legacy grad_output', grad_output)


lin.register_backward_hook(legacy_hook)
x = torch.tensor([[1., 2., 3.]], requires_grad=True)
out = lin(x)
out.register_hook(lambda grad: grad * 0.1)
out.backward()  # a 1-element output takes the implicit gradient 1
print('x.grad', x.grad)
`,
  'capture': `# Capture activations and gradients of one named submodule.
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(7)
        self.encoder = nn.Linear(4, 3)
        torch.manual_seed(2)
        self.head = nn.Linear(3, 2)

    def forward(self, x):
        return self.head(self.encoder(x).relu())


net = Net()
activations = []
gradients = []
for name, m in net.named_modules():
    if name == 'encoder':
        m.register_forward_hook(lambda mod, args, output: activations.append(output))
        m.register_full_backward_hook(lambda mod, grad_input, grad_output: gradients.append(grad_output[0]))
x = torch.tensor([[1., -1., 0.5, 2.]], requires_grad=True)
loss = net(x).mean()
loss.backward()
print('activation', activations[0])
print('gradient at the encoder output', gradients[0])
`,
  'node-hooks': `# Hooks on backward nodes themselves, and a hook after .grad is written.
import torch

a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
c = a * b
e = c * c

mul_node = c.grad_fn  # MulBackward0 of c


def before_mul(grad_outputs):
    print('pre-hook of', mul_node.name(), 'grad_outputs', grad_outputs)
    return (grad_outputs[0] * 2,)


def after_mul(grad_inputs, grad_outputs):
    print('hook of', mul_node.name(), 'grad_inputs', grad_inputs)


mul_node.register_prehook(before_mul)
mul_node.register_hook(after_mul)
acc_a = mul_node.next_functions[0][0]  # AccumulateGrad of a
acc_a.register_hook(lambda grad_inputs, grad_outputs: print(acc_a.name(), 'hook: grad_outputs', grad_outputs))
a.register_post_accumulate_grad_hook(lambda t: print('a.grad is now', t.grad))
e.backward()
`,
  'gradient-penalty': `# A gradient penalty: the gradient itself becomes part of the loss.
import torch

w = torch.tensor([[0.2, -0.4, 0.6], [0.1, 0.3, -0.5]], requires_grad=True)
x = torch.tensor([[1, 0.5, -1], [0, 2, 1]])
h = x @ w.t()
h.register_hook(lambda g: print('h hook:', g, 'requires_grad', g.requires_grad))
loss = h.tanh().sum()

# create_graph: the gradient is computed with ops that build a graph of
# their own (and retain_graph defaults to True, so loss's graph stays).
g, = torch.autograd.grad(loss, w, create_graph=True)
dloss_dw = g
print('dloss/dw', g, 'grad_fn', g.grad_fn.name())

penalty = g.pow(2).sum()
total = loss + penalty
total.backward()  # runs through the second graph *and* the first
print('w.grad', w.grad)
`,
  'saved-tensors': `# Saved tensors leave at forward (pack) and come back at backward (unpack).
import torch

x = torch.tensor([0.5, -1, 1.5], requires_grad=True)


def pack(t):
    print('pack: an op saves', t)
    return t.tolist()  # keep plain numbers instead of the tensor


def unpack(values):
    print('unpack: backward needs', values)
    return torch.tensor(values)  # must give a tensor back


with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    y = (x * x).exp().sum()
print('forward done; backward starts')
y.backward()
print('x.grad', x.grad)
`,
  'multi-grad': `# One hook for several tensors: register_multi_grad_hook.
import torch
from torch.autograd.graph import register_multi_grad_hook

a = torch.tensor([1., 2.], requires_grad=True)
b = torch.tensor([3., -4.], requires_grad=True)

h = register_multi_grad_hook((a, b), lambda grads: print("'all' sees", grads[0], grads[1]))
register_multi_grad_hook((a, b), lambda g: print("'any' sees the first:", g), mode='any')

c = a * b
s = c.sum()
s.backward()    # both gradients: 'all' fires once with (b, a)
a2 = a * 2
s2 = a2.sum()
s2.backward()   # b is not reached: 'all' gets None for it
h.remove()
`,
  'training-loop': `# Teaching a tiny network XOR. Python frees each step's tensors as soon as
# nothing refers to them (reference counting): no tidy() needed.
import torch
import torch.nn as nn
import torch.nn.functional as F

model = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 1))
# The starting parameters of the JavaScript lesson (hookgrad's seeded generator), so both
# languages print the same losses.
model[0].weight = nn.Parameter(torch.tensor([[0.0941323042, 0.347587883], [0.666098535, -0.0786879659],
                                             [-0.0788215995, 0.3717888], [0.533651531, 0.0326219201]]))
model[0].bias = nn.Parameter(torch.tensor([-0.303336501, 0.415774047, -0.135563433, 0.149086893]))
model[2].weight = nn.Parameter(torch.tensor([[0.0911897421, 0.24914968, 0.0956380963, 0.265419126]]))
model[2].bias = nn.Parameter(torch.tensor([-0.188411325]))
x = torch.tensor([[0., 0.], [0., 1.], [1., 0.], [1., 1.]])
y = torch.tensor([[0.], [1.], [1.], [0.]])

grad_norm = 0.0


def watch(module, grad_input, grad_output):
    global grad_norm
    grad_norm = grad_output[0].pow(2).sum().sqrt().item()


model[1].register_full_backward_hook(watch)


def step():
    loss = F.mse_loss(model(x), y)
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            p.sub_(p.grad * 0.5)
    return loss.item()


for i in range(301):
    loss = step()
    if i % 100 == 0:
        print('step', i, 'loss', f'{loss:.4f}', '|grad at tanh|', f'{grad_norm:.3f}')

# One more forward and backward: its graph is the figure.
model.zero_grad()
out = model(x)
loss = F.mse_loss(out, y)
loss.backward()
print('loss', loss, 'prediction', out)
`,
};

/**
 * Lessons whose Python does not (yet) give the JS lesson's very trace: the
 * page then never stands the JS figure in for the Python (model/lang.js),
 * and the twin test lists them as to-do with the reason.
 */
export const NOT_TWINS = {
  // None today: every lesson's Python gives its JavaScript's very trace.
};
