# torch.Tensor / torch.FloatTensor take data or sizes (sizes: uninitialised
# memory, so only shapes are printed), and always make float32.
import torch

a = torch.Tensor([1, 2, 3])
print(a, a.dtype, a.requires_grad)
b = torch.Tensor([[1, 2], [3, 4]])
print(b)
c = torch.Tensor(2, 3)
print(c.shape, c.dtype)
d = torch.FloatTensor([0.5, 1.5])
print(d, d.dtype)
e = torch.FloatTensor(4)
print(e.size(), e.numel())
f = torch.FloatTensor([[1], [2]])
print(f.shape)
g = torch.Tensor()
print(g, g.shape)
print(type(a).__name__, isinstance(d, torch.Tensor))
h = torch.Tensor(3).fill_(7)
print(h)
