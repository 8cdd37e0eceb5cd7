# Integer tensors: int arithmetic stays int64 except true division.
import torch

i = torch.tensor([7, -7, 2])
j = torch.tensor([2, 2, 3])
print(i + j, i - j, i * j)
print(i / j, (i / j).dtype)
print(i ** 2, j ** 2, (i * 1.0).dtype, (i + 0.5))
print(-i, i.abs(), i.sum(), i.max())
print(i.float().mean(), i.float() / 2)
print(i == j, i.clamp(-1, 1))
print(torch.arange(10) * 3 - 5)
print(torch.tensor([100000, -2, 3]))
print(torch.tensor([[1, -20], [300, 4]]))
print(i @ j, torch.tensor([[1, 2], [3, 4]]) @ torch.tensor([[1, 0], [0, 1]]))
