# Activation modules and their outputs.
import torch
import torch.nn as nn

x = torch.tensor([[-2.0, -0.5, 0.0, 0.5, 2.0]], requires_grad=True)
for m in [nn.ReLU(), nn.Tanh(), nn.Sigmoid(), nn.Softmax(dim=1), nn.LogSoftmax(dim=1), nn.Identity()]:
    y = m(x)
    print(m, y)
i = nn.Identity()
print(i(x) is x)
s = nn.Softmax(dim=0)(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
print(s)
seq = nn.Sequential(nn.Tanh(), nn.Sigmoid())
out = seq(x)
out.sum().backward()
print(out)
print(x.grad)
