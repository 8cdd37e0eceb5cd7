# nn.Linear's default initialisation under manual_seed.
import torch
import torch.nn as nn

torch.manual_seed(0)
lin = nn.Linear(3, 2)
print(lin.weight)
print(lin.bias)
torch.manual_seed(42)
big = nn.Linear(20, 10)
print(big.weight[0])
print(big.bias)
print(big.weight.sum(), big.weight.abs().max())
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
for name, p in model.named_parameters():
    print(name, p.shape, p.sum())
print(model(torch.ones(1, 4)))
nb = nn.Linear(5, 5, bias=False)
print(nb.weight[0])
