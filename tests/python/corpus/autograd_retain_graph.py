# backward twice needs retain_graph=True; gradients accumulate.
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
y = (a.exp() * a).sum()
y.backward(retain_graph=True)
print(a.grad)
y.backward(retain_graph=True)
print(a.grad)
y.backward()
print(a.grad)
a.grad.zero_()
print(a.grad)
z = (a * 3).sum()
z.backward()
print(a.grad)
a.grad = None
(a ** 2).sum().backward()
print(a.grad)
