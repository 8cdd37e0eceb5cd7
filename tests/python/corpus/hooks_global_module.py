# Global module hooks fire for every module, before the module's own hooks.
import torch
import torch.nn as nn
from torch.nn.modules.module import (register_module_forward_hook,
                                     register_module_forward_pre_hook,
                                     register_module_full_backward_hook,
                                     register_module_full_backward_pre_hook)

model = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
with torch.no_grad():
    model[0].weight.copy_(torch.tensor([[1.0, -1.0], [0.5, 0.5]]))
    model[0].bias.zero_()
handles = [
    register_module_forward_pre_hook(lambda m, a: print('global pre', type(m).__name__)),
    register_module_forward_hook(lambda m, a, o: print('global post', type(m).__name__, o)),
    register_module_full_backward_pre_hook(lambda m, go: print('global bwd pre', type(m).__name__, go)),
    register_module_full_backward_hook(lambda m, gi, go: print('global bwd', type(m).__name__, gi)),
]
model[0].register_forward_pre_hook(lambda m, a: print('local pre Linear'))
model[0].register_forward_hook(lambda m, a, o: print('local post Linear'))
x = torch.tensor([[2.0, 1.0]], requires_grad=True)
y = model(x)
print(y)
y.sum().backward()
for h in handles:
    h.remove()
print('removed')
model(x)
