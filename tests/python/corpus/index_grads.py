# Gradients through indexing land in the selected places only.
import torch

x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
y = x[0] * 2
y.sum().backward()
print(x.grad)
x.grad = None
(x[:, 1] ** 2).sum().backward()
print(x.grad)
x.grad = None
z = x[1:, ::2]
print(z)
(z * torch.tensor([[10.0, 100.0]])).sum().backward()
print(x.grad)
x.grad = None
(x[0, 0] * x[1, 2] + x[-1][-1]).backward()
print(x.grad)
v = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
parts = [v[i] * (i + 1) for i in range(4)]
total = parts[0] + parts[1] + parts[2] + parts[3]
print(total, total.grad_fn.name())
total.backward()
print(v.grad)
w = torch.tensor([1.0, 2.0], requires_grad=True)
a, b = w
print(a, b)
(a * b).backward()
print(w.grad)
