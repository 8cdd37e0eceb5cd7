# More than 1000 elements: summarized with '...'.
import torch

print(torch.arange(1001))
print(torch.arange(2000.0))
print(torch.arange(3000.0).view(30, 100))
print(torch.arange(1000))
print(torch.ones(10, 10, 11))
print(torch.arange(1200.0).view(2, 600) / 7)
