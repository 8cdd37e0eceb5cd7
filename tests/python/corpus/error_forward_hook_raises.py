# A forward hook that raises: the traceback shows the module call and the
# hook's line.
import torch
import torch.nn as nn


def guard(module, inputs, output):
    if (output < 0).sum() > 0:
        raise RuntimeError(f'{type(module).__name__} produced a negative value')


lin = nn.Linear(2, 1)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[1.0, -3.0]]))
    lin.bias.zero_()
lin.register_forward_hook(guard)
print(lin(torch.tensor([[3.0, 1.0]])))
print(lin(torch.tensor([[1.0, 1.0]])))
