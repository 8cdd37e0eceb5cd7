# When PyTorch switches a tensor to scientific notation.
import torch

print(torch.tensor([1e-4, 1.0]))
print(torch.tensor([1e-5, 1.0]))
print(torch.tensor([1.0, 1e8]))
print(torch.tensor([1.0, 1e7]))
print(torch.tensor([1.5, 2e8]))
print(torch.tensor([1e-8, 1e-9]))
print(torch.tensor([123456789.0]))
print(torch.tensor([0.0001]))
print(torch.tensor([0.00001]))
print(torch.tensor([[1e-5, 2.0], [3.0, 4e5]]))
print(torch.tensor([1e10, -1e10, 0.0]))
print(torch.tensor(1e-7) * torch.arange(5.0))
print(torch.tensor([2.0, 3.0]) ** 40)
print(torch.tensor([1e-20, 1e20]))
