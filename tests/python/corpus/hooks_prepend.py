# prepend=True puts a hook before those already registered.
import torch
import torch.nn as nn

m = nn.Identity()
log = []
m.register_forward_pre_hook(lambda mod, a: log.append('pre A'))
m.register_forward_pre_hook(lambda mod, a: log.append('pre B'), prepend=True)
m.register_forward_pre_hook(lambda mod, a: log.append('pre C'))
m.register_forward_hook(lambda mod, a, o: log.append('post A'))
m.register_forward_hook(lambda mod, a, o: log.append('post B'), prepend=True)
m.register_full_backward_pre_hook(lambda mod, go: log.append('bwd pre A'))
m.register_full_backward_pre_hook(lambda mod, go: log.append('bwd pre B'), prepend=True)
m.register_full_backward_hook(lambda mod, gi, go: log.append('bwd A'))
m.register_full_backward_hook(lambda mod, gi, go: log.append('bwd B'), prepend=True)
x = torch.tensor([1.0], requires_grad=True)
m(x * 1).sum().backward()
print(log)
