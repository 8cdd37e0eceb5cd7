# register_backward_hook on a module whose forward makes several nodes:
# FutureWarning when the hook is set up during the call.
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 1)

    def forward(self, x):
        return self.lin(x).relu()


net = Net()
net.register_backward_hook(lambda m, gi, go: print('legacy hook', len(gi), len(go)))
x = torch.ones(1, 2, requires_grad=True)
for _ in range(2):
    out = net(x)
    out.sum().backward()
print('done')
