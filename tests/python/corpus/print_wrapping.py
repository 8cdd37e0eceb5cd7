# Line wrapping at 80 columns for long rows, and where grad_fn goes.
import torch

print(torch.arange(30))
print(torch.arange(30.0))
print(torch.arange(30.0) / 7)
print(torch.arange(40.0).view(2, 20) * 1.5)
print(torch.arange(12.0).view(1, 12) * 1000)
print(torch.linspace(-1, 1, 12).requires_grad_())
print(torch.linspace(0, 1, 9).requires_grad_() * 2)
print(torch.ones(8, requires_grad=True) * 0.5)
print(torch.ones(9, requires_grad=True) * 0.5)
print(torch.arange(20) * 1000)
print(torch.arange(18.0).view(3, 6) * 1e-6)
print(torch.tensor([True, False] * 12))
print('a prefix', torch.arange(25.0))
print([torch.arange(10.0) / 3])
