# int64 and bool tensors: right-aligned ints, negative signs, bool width.
import torch

print(torch.tensor([1, 22, 333]))
print(torch.tensor([-1, 22, -333]))
print(torch.tensor([[1, 2], [-30, 4]]))
print(torch.tensor([9223372036854775807, -1]))
print(torch.tensor([True]), torch.tensor([False]))
print(torch.tensor([[True, False], [False, False]]))
print(torch.tensor([False, False]))
print(torch.arange(3) == 1)
print(torch.tensor([[0, 0], [0, 0]]))
print(torch.tensor([0]), torch.tensor([-0]))
print(torch.tensor([], dtype=torch.int64), torch.zeros(0, dtype=torch.bool))
print(torch.tensor([3, 4]).shape, torch.tensor([[True]]).dtype)
