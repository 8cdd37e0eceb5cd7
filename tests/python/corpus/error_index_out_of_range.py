# Indexing past the end of a dimension.
import torch

t = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
print(t[1])
print(t[-2])
print(t[1, 5])
