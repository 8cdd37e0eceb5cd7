# Module reprs: leaf modules' extra_repr, nested children, containers,
# a custom extra_repr, and an empty module.
import torch
import torch.nn as nn


class Scale(nn.Module):
    def __init__(self, factor):
        super().__init__()
        self.factor = factor

    def extra_repr(self):
        return f'factor={self.factor}'


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4, bias=False)
        self.act = nn.Tanh()
        self.scale = Scale(0.5)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(2, 4)
        self.blocks = nn.ModuleList([Block(), Block()])
        self.heads = nn.ModuleDict({'a': nn.Linear(4, 1), 'b': nn.Sequential(nn.Linear(4, 3), nn.Softmax(dim=-1))})
        self.out = nn.LogSoftmax(dim=1)
        self.loss = nn.CrossEntropyLoss()


class Empty(nn.Module):
    pass


print(Net())
print(Empty())
print(nn.Sequential())
print(nn.Sequential(nn.ReLU(), nn.Identity(), nn.Sigmoid(), nn.MSELoss()))
print(repr(nn.Linear(3, 5)), str(nn.Softmax(dim=0)))
print([nn.ReLU(), Scale(2)])
print(nn.Sequential(*[nn.Linear(1, 1) for _ in range(3)]))
print(nn.ModuleList())
print(nn.Linear(2, 2).extra_repr(), nn.Tanh().extra_repr() == '')
