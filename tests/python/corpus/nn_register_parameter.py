# register_parameter, None parameters, and assigning Parameters.
import torch
import torch.nn as nn


class Lin(nn.Module):
    def __init__(self, bias):
        super().__init__()
        self.weight = nn.Parameter(torch.tensor([[1.0, 2.0]]))
        if bias:
            self.bias = nn.Parameter(torch.tensor([0.5]))
        else:
            self.register_parameter('bias', None)

    def forward(self, x):
        y = x @ self.weight.t()
        return y if self.bias is None else y + self.bias


for bias in [True, False]:
    m = Lin(bias)
    print(bias, [n for n, _ in m.named_parameters()], m.bias)
    print(m(torch.tensor([[1.0, 1.0]])))
m = Lin(False)
m.register_parameter('extra', nn.Parameter(torch.tensor(3.0)))
print([n for n, _ in m.named_parameters()], m.extra)
m.bias = nn.Parameter(torch.tensor([-1.0]))
print([n for n, _ in m.named_parameters()], m(torch.tensor([[1.0, 1.0]])))
print(list(m.state_dict().keys()))
