# register_multi_grad_hook: called once with the grads of several tensors
# (None for those not reached).
import torch
from torch.autograd.graph import register_multi_grad_hook

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0], requires_grad=True)
c = torch.tensor(5.0, requires_grad=True)


def all_grads(grads):
    print('multi hook:', grads)


h = register_multi_grad_hook((a, b, c), all_grads)
(a.sum() * b).sum().backward()
((a * c).sum() + b.sum()).backward()
h.remove()
(a.sum() * c).backward()
print(a.grad, b.grad, c.grad)
x = torch.tensor(2.0, requires_grad=True)
y = torch.tensor(3.0, requires_grad=True)
register_multi_grad_hook([x, y], lambda gs: print('any:', gs), mode='any')
(x * y).backward()
print(x.grad, y.grad)
