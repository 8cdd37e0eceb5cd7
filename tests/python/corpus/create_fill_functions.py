# zeros, ones, full, eye, empty: sizes as ints or a tuple, dtype= and
# requires_grad= keywords.
import torch

print(torch.zeros(3))
print(torch.zeros(2, 3))
print(torch.zeros((3, 2)))
print(torch.zeros(2, dtype=torch.int64))
print(torch.ones(4))
print(torch.ones(2, 2, dtype=torch.bool))
print(torch.ones((1, 3), requires_grad=True))
print(torch.full((2, 2), 7.0))
print(torch.full((3,), 5))
print(torch.full((2,), 1.5, requires_grad=True))
print(torch.eye(3))
print(torch.eye(2, 3))
print(torch.zeros(()), torch.zeros(()).shape)
print(torch.ones(0), torch.ones(0).shape)
print(torch.zeros(2, 0, 3).shape)
e = torch.empty(2, 3)
print(e.shape, e.dtype, e.requires_grad)
e2 = torch.empty((4,), dtype=torch.int64)
print(e2.shape, e2.dtype)
print(torch.zeros(2, 3, 4).shape, torch.ones(1, 1, 1))
