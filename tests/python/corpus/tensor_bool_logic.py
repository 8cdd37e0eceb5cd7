# Masks built with & | ^ ~ (bool and integer tensors), torch.logical_*, the
# errors for float operands, and Tensor.T's deprecation on other than 2-D.
import torch

a = torch.arange(6)
mask = (a > 1) & (a < 5)
print(mask, ~mask, mask | (a == 0), mask ^ (a > 3))
print(torch.tensor([1, 2, 6]) & 3, torch.tensor([True]) | 1, 1 & torch.tensor([3]), ~torch.tensor([1, -2]))
print(torch.tensor([[True], [False]]) | torch.tensor([False, True]))
print(1 | torch.tensor([True]), True & torch.tensor([1, 2]), 3 ^ torch.tensor([1, 2]), torch.tensor([True]) | torch.tensor([2]))
print(torch.logical_and(torch.tensor([1.0, 0.0]), torch.tensor([2.0, 2.0])), torch.logical_not(torch.tensor([0.0, 2.0])))
print((a * mask).sum(), mask.sum())
for bad in [lambda: torch.tensor([1.0]) & torch.tensor([1.0]), lambda: ~torch.tensor([1.5])]:
    try:
        bad()
    except Exception as e:
        print(f"{type(e).__name__}: {e}")
v = torch.tensor([1.0, 2.0, 3.0])
print(v.T, torch.tensor(2.0).T, torch.ones(2, 3).T.shape)
