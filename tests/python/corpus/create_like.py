# zeros_like / ones_like keep shape and dtype; requires_grad is not copied.
import torch

x = torch.tensor([[1.5, 2.5], [3.5, 4.5]], requires_grad=True)
z = torch.zeros_like(x)
o = torch.ones_like(x)
print(z, z.dtype, z.requires_grad)
print(o, o.requires_grad)
i = torch.tensor([1, 2, 3])
print(torch.zeros_like(i), torch.ones_like(i).dtype)
b = torch.tensor([True, False])
print(torch.ones_like(b))
print(torch.zeros_like(x, requires_grad=True))
print(torch.ones_like(i, dtype=torch.float32))
s = torch.tensor(3.0)
print(torch.zeros_like(s), torch.ones_like(s).shape)
