# A Module subclass: __setattr__ registers Parameters and submodules;
# parameters() and named_parameters() walk them in registration order.
import torch
import torch.nn as nn


class Affine(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(n))
        self.shift = nn.Parameter(torch.zeros(n))
        self.note = 'not a parameter'
        self.plain = torch.ones(n)

    def forward(self, x):
        return x * self.scale + self.shift


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = Affine(2)
        self.second = Affine(2)
        self.gain = nn.Parameter(torch.tensor(2.0))

    def forward(self, x):
        return self.second(self.first(x)) * self.gain


net = Net()
for name, p in net.named_parameters():
    print(name, p.shape, p.requires_grad, p.is_leaf)
print(len(list(net.parameters())), sum(p.numel() for p in net.parameters()))
print(net.first.note, net.first.plain)
x = torch.tensor([1.0, -1.0])
out = net(x)
print(out)
out.sum().backward()
for name, p in net.named_parameters():
    print(name, p.grad)
print(net.forward(x))
print(isinstance(net, nn.Module), isinstance(net.gain, torch.Tensor), type(net.gain).__name__)
print([type(m).__name__ for m in net.children()])
