# Higher derivatives with create_graph=True.
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x ** 4
(d1,) = torch.autograd.grad(y, x, create_graph=True)
print(d1, d1.requires_grad)
(d2,) = torch.autograd.grad(d1, x, create_graph=True)
print(d2)
(d3,) = torch.autograd.grad(d2, x)
print(d3)
a = torch.tensor([1.0, 2.0], requires_grad=True)
f = (a.sin() * a).sum()
(g,) = torch.autograd.grad(f, a, create_graph=True)
print(g)
g.sum().backward()
print(a.grad)
t = torch.tensor(1.5, requires_grad=True)
s = t.tanh()
(ds,) = torch.autograd.grad(s, t, create_graph=True)
print(ds, ds.grad_fn.name())
