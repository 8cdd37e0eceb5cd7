# register_buffer, named_buffers, buffers, and buffers in state_dict.
import torch
import torch.nn as nn


class Norm(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer('running_mean', torch.zeros(2))
        self.register_buffer('count', torch.tensor(0))
        self.weight = nn.Parameter(torch.ones(2))

    def forward(self, x):
        with torch.no_grad():
            self.running_mean.mul_(0.9).add_(0.1 * x)
            self.count += 1
        return (x - self.running_mean) * self.weight


class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = Norm()
        self.register_buffer('scale', torch.tensor([2.0]))


m = Outer()
print(list(m.named_buffers()))
print([b.shape for b in m.buffers()])
print(m.norm.running_mean, m.norm.count, m.norm.running_mean.requires_grad)
for _ in range(3):
    y = m.norm(torch.tensor([1.0, 2.0]))
print(y)
print(m.norm.running_mean, m.norm.count)
print(list(m.state_dict().keys()))
print([n for n, _ in m.named_parameters()])
m.norm.running_mean = torch.ones(2)
print(m.norm.running_mean, [n for n, _ in m.named_buffers()])
m.register_buffer('empty', None)
print([n for n, _ in m.named_buffers()], m.empty)
