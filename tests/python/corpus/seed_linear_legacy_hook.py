# The 2018 notes' Linear: a legacy backward hook that prints grad_input and
# grad_output and zeroes the inputs' gradients, and a tensor hook that scales
# the output's gradient by 0.1 before the module's hook sees it.
import math

import torch
import torch.nn as nn
from torch.autograd import Variable
from torch.nn import Parameter


def bh(m, gi, go):
    print("Grad Input")
    print(gi)
    print("Grad Output")
    print(go)
    return gi[0] * 0, gi[1] * 0


class Linear(nn.Module):
    def __init__(self, in_features, out_features, bias=True):
        super(Linear, self).__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(torch.Tensor(out_features, in_features))
        if bias:
            self.bias = Parameter(torch.Tensor(out_features))
        else:
            self.register_parameter('bias', None)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1. / math.sqrt(self.weight.size(1))
        self.weight.data.uniform_(-stdv, stdv)
        if self.bias is not None:
            self.bias.data.uniform_(-stdv, stdv)

    def forward(self, input):
        return input.mm(self.weight.t())


torch.manual_seed(0)
x = Variable(torch.FloatTensor([[1, 2, 3]]), requires_grad=True)
mod = Linear(3, 1, bias=False)
print(mod.weight)
print(mod.bias)
mod.register_backward_hook(bh)
out = mod(x)
out.register_hook(lambda grad: 0.1 * grad)
out.backward()
print(['*'] * 20)
print("x.grad", x.grad)
print(mod.weight.grad)
