# register_full_backward_hook: grad_input and grad_output of the module's
# inputs and outputs; returning a tuple replaces grad_input.
import torch
import torch.nn as nn


class Mul3(nn.Module):
    def forward(self, a, b, c):
        return a * b * c


def show(module, grad_input, grad_output):
    print(type(module).__name__, 'grad_input', grad_input, 'grad_output', grad_output)


m = Mul3()
m.register_full_backward_hook(show)
a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
c = torch.tensor(4.0, requires_grad=True)
d = m(a, b, c)
print(d, d.grad_fn.name())
d.backward()
print(a.grad, b.grad, c.grad)
m2 = Mul3()
m2.register_full_backward_hook(lambda mod, gi, go: tuple(g * 0 + 1 if g is not None else None for g in gi))
a.grad = b.grad = c.grad = None
m2(a, torch.tensor(3.0), c).backward()
print(a.grad, c.grad)
torch.manual_seed(0)
lin = nn.Linear(2, 1)
lin.register_full_backward_hook(show)
x = torch.tensor([[1.0, 2.0]], requires_grad=True)
lin(x).sum().backward()
print(x.grad.shape)


# register_full_backward_pre_hook sees grad_output and may replace it.
class Square(nn.Module):
    def forward(self, x):
        return x * x


m = Square()
m.register_full_backward_pre_hook(lambda mod, go: print('pre sees', go))
m.register_full_backward_pre_hook(lambda mod, go: (go[0] * 10,))
m.register_full_backward_hook(lambda mod, gi, go: print('hook sees gi', gi, 'go', go))
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = m(x)
y.sum().backward()
print(x.grad)
