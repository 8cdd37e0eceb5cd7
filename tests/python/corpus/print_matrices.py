# 2-D and 3-D tensors: indentation, per-tensor column width, empty dims.
import torch

print(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
print(torch.tensor([[1.0, -20.5], [300.25, 4.0]]))
print(torch.arange(24.0).view(2, 3, 4))
print(torch.arange(8).view(2, 2, 2) - 4)
print(torch.arange(16.0).view(2, 2, 2, 2) / 3)
print(torch.zeros(2, 0))
print(torch.zeros(0, 3))
print(torch.ones(1, 1))
print(torch.tensor([[0.001, 1000.0], [1.0, 2.0]]))
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
print(x)
print(x * 2)
print(torch.tensor([[[1.5]]]), torch.ones(1, 2, 1))
