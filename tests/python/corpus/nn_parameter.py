# nn.Parameter: a leaf that requires grad, printed as "Parameter containing:".
import torch
import torch.nn as nn

p = nn.Parameter(torch.tensor([1.0, 2.0]))
print(p)
print(repr(p))
print(p.requires_grad, p.is_leaf, p.grad_fn, type(p).__name__, isinstance(p, torch.Tensor))
q = nn.Parameter(torch.tensor(3.0), requires_grad=False)
print(q, q.requires_grad)
r = p * 2
print(r, type(r).__name__)
print(p.data, type(p.data).__name__)
print(p.detach(), type(p.detach()).__name__)
m = nn.Parameter(torch.zeros(2, 3))
print(m)
print(nn.Parameter(torch.tensor([1, 2]).float()))
(p ** 2).sum().backward()
print(p.grad)
print(str(p) == repr(p))
print([p, q])
