# Module __setattr__ routes Parameters and Modules into their registries;
# __getattr__ finds them; plain attributes stay in __dict__; __delattr__.
import torch
import torch.nn as nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.tensor([1.0]))
        self.sub = nn.Linear(1, 1)
        self.count = 0


m = M()
print(list(m._parameters.keys()), list(m._modules.keys()), 'count' in m.__dict__, 'w' in m.__dict__)
m.extra = nn.Parameter(torch.tensor([2.0]))
m.other = nn.Tanh()
m.count += 1
print([n for n, _ in m.named_parameters()], [n for n, _ in m.named_children()], m.count)
del m.extra
print([n for n, _ in m.named_parameters()], hasattr(m, 'extra'))
m.w = nn.Parameter(torch.tensor([5.0]))
print(m.w)
print(getattr(m, 'sub') is m.sub, hasattr(m, 'missing'), getattr(m, 'missing', 'default'))
try:
    m.w = torch.tensor([1.0])
except TypeError as e:
    print(type(e).__name__, e)
m.w = None
print(m.w, [n for n, _ in m.named_parameters()])
