# arange (end, start/end, step; int or float) and linspace.
import torch

print(torch.arange(5))
print(torch.arange(2, 7))
print(torch.arange(0, 1, 0.25))
print(torch.arange(5.0))
print(torch.arange(10, 0, -3))
print(torch.arange(1, 2.5, 0.5))
print(torch.arange(6).dtype, torch.arange(6.0).dtype, torch.arange(0, 1, 0.5).dtype)
print(torch.arange(4, dtype=torch.float32))
print(torch.linspace(0, 1, 5))
print(torch.linspace(-1, 1, 7))
print(torch.linspace(0, 10, steps=3))
print(torch.linspace(2, 2, 1))
print(torch.linspace(0, 1, 11))
print(torch.arange(12).view(3, 4))
print(torch.arange(0.0, 3.0, requires_grad=True))
