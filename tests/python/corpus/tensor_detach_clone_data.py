# detach, clone, data, requires_grad_, is_leaf, grad_fn, and sharing.
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 3
d = b.detach()
print(d, d.requires_grad, d.is_leaf, d.grad_fn)
c = b.clone()
print(c, c.is_leaf, c.grad_fn.name())
print(a.data, a.data.requires_grad, b.data)
d.zero_()
print(b, d)
a.data.mul_(10)
print(a, a._version)
e = a.detach().clone()
e += 1
print(a, e)
f = torch.tensor([3.0])
print(f.requires_grad, f.is_leaf)
g = f.requires_grad_()
print(g is f, f.requires_grad, f.is_leaf)
f.requires_grad_(False)
print(f.requires_grad)
h = (a * f).sum()
print(h.requires_grad, h.is_leaf, h.grad_fn.name())
a.data = torch.tensor([5.0, 6.0])
print(a, a.requires_grad)
print(b.is_leaf, b.requires_grad, a.is_leaf, a.grad_fn)
