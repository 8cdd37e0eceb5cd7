# Exceptions from hooks propagate out of backward/forward and can be caught;
# the graph and the module stay usable afterwards.
import torch
import torch.nn as nn

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
handle = y.register_hook(lambda g: 1 / 0)
try:
    y.sum().backward(retain_graph=True)
except ZeroDivisionError as e:
    print('caught', type(e).__name__, e)
handle.remove()
y.sum().backward()
print(x.grad)
m = nn.Identity()
h = m.register_forward_pre_hook(lambda mod, args: args[5])
try:
    m(torch.ones(1))
except IndexError as e:
    print('caught', type(e).__name__, e)
h.remove()
print(m(torch.ones(1)))
lin = nn.Linear(1, 1)
lin.register_full_backward_hook(lambda mod, gi, go: (torch.ones(3), torch.ones(3)))
try:
    lin(torch.ones(1, 1, requires_grad=True)).sum().backward()
except RuntimeError as e:
    print('caught', type(e).__name__, e)
