# randint(high, size) and randint(low, high, size).
import torch

torch.manual_seed(0)
print(torch.randint(10, (5,)))
print(torch.randint(0, 10, (2, 3)))
print(torch.randint(-3, 3, (6,)))
print(torch.randint(5, (3, 3)).dtype)
print(torch.randint(0, 2, (20,)))
print(torch.randint(100, 1000, (4,)))
print(torch.randint(3, size=(2, 2)))
print(torch.randint(0, 10, (20,)))
print(torch.randint(1000000, (3,)))
