# The hazard of an in-place change to the gradient a hook receives: the
# same grad object flows to other branches.
import torch

a = torch.tensor(1.0, requires_grad=True)
b = torch.tensor(2.0, requires_grad=True)
c = a + b


def scale_in_place(g):
    g.mul_(10)


b.register_hook(scale_in_place)
c.backward()
print(a.grad, b.grad)
x = torch.tensor(1.0, requires_grad=True)
y = torch.tensor(2.0, requires_grad=True)
z = x * y
w = z + x
w.register_hook(lambda g: g.add_(1))
w.backward()
print(x.grad, y.grad)
