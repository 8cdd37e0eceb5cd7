# Indexing int and bool tensors, and plain tensors without grad.
import torch

i = torch.arange(10).view(2, 5)
print(i[1], i[:, 2], i[0, 1:4], i[1, -1], i[1, -1].item())
b = torch.tensor([[True, False], [False, True]])
print(b[0], b[:, 1], b[1, 1])
t = torch.linspace(0, 1, 5)
print(t[2], t[1:4], t[-2:], t[::3])
print(i[0][0].dtype, b[0].dtype)
m = torch.eye(3)
print(m[1], m[:, 1:], m[1:, 1:].shape)
row = m[0]
row.fill_(7)
print(m)
