# torch.autograd.Variable is a legacy alias: it returns a plain tensor and
# honours requires_grad=.
import torch
from torch.autograd import Variable

a = Variable(torch.tensor([1.0, 2.0]))
print(a, a.requires_grad, type(a).__name__, a.is_leaf)
b = Variable(torch.tensor([1.0, 2.0]), requires_grad=True)
print(b, b.requires_grad, b.is_leaf, b.grad_fn)
c = (b * b).sum()
c.backward()
print(b.grad)
d = torch.autograd.Variable(torch.Tensor([[1, 2], [3, 4]]), requires_grad=True)
print(d)
print(isinstance(d, torch.Tensor), isinstance(d, Variable))
e = Variable(torch.ones(2) * 3)
print(e, e.grad_fn)
