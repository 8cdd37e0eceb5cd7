# named_modules (pre-order, with the root as ''), named_children, modules,
# children; the same module registered twice is listed once.
import torch.nn as nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 2)
        self.act = nn.ReLU()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = Block()
        self.seq = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), Block())
        self.shared = self.a.act
        self.heads = nn.ModuleList([nn.Identity(), nn.Sigmoid()])


net = Net()
for name, m in net.named_modules():
    print(repr(name), type(m).__name__)
print('--')
for name, m in net.named_children():
    print(name, type(m).__name__)
print('--')
print([type(m).__name__ for m in net.modules()])
print([type(m).__name__ for m in net.children()])
print([name for name, _ in net.named_parameters()])
print([name for name, _ in net.seq.named_modules()])
print(net.seq[2].lin.in_features, net.shared is net.a.act, len(list(net.named_children())))
