# softmax and log_softmax along a dim, as methods and functions.
import torch

x = torch.tensor([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]], requires_grad=True)
s = x.softmax(dim=1)
print(s, s.sum(dim=1))
ls = x.log_softmax(1)
print(ls)
print(torch.softmax(x, dim=0))
print(torch.log_softmax(x, dim=-1))
print(s.grad_fn.name(), ls.grad_fn.name())
(s[:, 0].sum() + ls[0, 2]).backward()
print(x.grad)
big = torch.tensor([1000.0, 1000.0, 0.0])
print(big.softmax(0), big.log_softmax(0))
print(torch.tensor([0.0, 0.0, 0.0, 0.0]).softmax(0))
