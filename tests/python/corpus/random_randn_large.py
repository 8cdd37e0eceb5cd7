# randn/rand with 16 or more elements (PyTorch's vectorised path).
import torch

torch.manual_seed(0)
print(torch.randn(16))
print(torch.randn(17))
print(torch.randn(4, 5))
torch.manual_seed(1)
print(torch.rand(16))
print(torch.rand(20))
x = torch.randn(100)
print(x.sum(), x.mean(), x.max(), x.min())
torch.manual_seed(2)
print(torch.randn(3, 8))
print(torch.randn(15), torch.randn(16).sum())
