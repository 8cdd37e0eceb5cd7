# Global registration hooks: called when a module registers a parameter,
# buffer or submodule; they may replace what is registered.
import torch
import torch.nn as nn
from torch.nn.modules.module import (register_module_buffer_registration_hook,
                                     register_module_module_registration_hook,
                                     register_module_parameter_registration_hook)

h1 = register_module_parameter_registration_hook(
    lambda module, name, param: print('parameter', type(module).__name__, name, tuple(param.shape)))
h2 = register_module_buffer_registration_hook(
    lambda module, name, buf: print('buffer', type(module).__name__, name, buf))
h3 = register_module_module_registration_hook(
    lambda module, name, sub: print('module', type(module).__name__, name, type(sub).__name__))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 1)
        self.register_buffer('steps', torch.tensor(0))
        self.scale = nn.Parameter(torch.ones(1))


net = Net()
for h in (h1, h2, h3):
    h.remove()
nn.Linear(1, 1)
print([n for n, _ in net.named_parameters()])
