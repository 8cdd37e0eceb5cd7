# Sequential, ModuleList, ModuleDict: indexing, len, iteration, append.
import torch
import torch.nn as nn

seq = nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 1))
print(len(seq), type(seq[0]).__name__, type(seq[-1]).__name__)
print([type(m).__name__ for m in seq])
print(type(seq[0:2]).__name__, len(seq[0:2]))
layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
layers.append(nn.Tanh())
print(len(layers), [type(m).__name__ for m in layers])
print([n for n, _ in layers.named_parameters()][:3])
heads = nn.ModuleDict({'cls': nn.Linear(2, 3), 'reg': nn.Linear(2, 1)})
heads['act'] = nn.Sigmoid()
print(list(heads.keys()), len(heads), 'cls' in heads)
for k, m in heads.items():
    print(k, type(m).__name__)
print([n for n, _ in heads.named_parameters()])
with torch.no_grad():
    for m in [seq[0], seq[2], *layers[:3], heads['cls'], heads['reg']]:
        m.weight.fill_(0.1)
        m.bias.fill_(0.0)
x = torch.tensor([[1.0, -2.0]])
print(seq(x))
h = x
for layer in layers:
    h = layer(h)
print(h)
print(heads['cls'](x), heads['act'](heads['reg'](x)))


class Wrapper(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2)])
        self.named = nn.ModuleDict({'out': nn.Linear(2, 1)})


print([n for n, _ in Wrapper().named_parameters()])
