# Modifying in place a tensor that backward still needs: the version check.
import torch

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a * 2
c = b * b
print(b._version, b.grad_fn.name())
b.add_(1)
print(b._version, b.grad_fn.name())
s = (b * 3).sum()
s.backward(retain_graph=True)
print('fine: b * 3 saved no tensor, a.grad =', a.grad)
c.sum().backward()
