# torch.tensor infers the dtype: Python floats -> float32, ints -> int64,
# bools -> bool; a mix of ints and floats is float32.
import torch

for data in [2.5, 3, True, [1.0, 2.0], [1, 2, 3], [True, False], [1, 2.5], [[1, 2], [3, 4]], [[0.5], [1.5]]]:
    t = torch.tensor(data)
    print(repr(data), '->', t, t.dtype, t.shape, t.dim(), t.numel())

print(torch.tensor(7).item(), type(torch.tensor(7).item()).__name__)
print(torch.tensor(0.25).item(), type(torch.tensor(0.25).item()).__name__)
print(torch.tensor(False).item(), type(torch.tensor(False).item()).__name__)
print(torch.tensor([1, 2], dtype=torch.float32))
print(torch.tensor([1.7, -2.7], dtype=torch.int64))
print(torch.tensor([0, 3], dtype=torch.bool))
print(torch.tensor([1.0, 2.0], requires_grad=True))
print(torch.tensor(1.5, requires_grad=True).is_leaf)
print(torch.float32, torch.int64, torch.bool)
print(torch.float, torch.long, torch.float is torch.float32)
print(torch.tensor([]), torch.tensor([]).shape, torch.tensor([]).dtype)
