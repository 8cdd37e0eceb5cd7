# RemovableHandle: id from one counter, remove() idempotent, and use as a
# context manager (removed at the end of the with block).
import torch
import torch.nn as nn
from torch.utils.hooks import RemovableHandle

x = torch.tensor([1.0, 2.0], requires_grad=True)
h1 = x.register_hook(lambda g: print('tensor hook', g))
m = nn.Identity()
h2 = m.register_forward_hook(lambda mod, a, o: print('forward hook'))
h3 = m.register_forward_pre_hook(lambda mod, a: print('pre hook'))
print(type(h1).__name__, isinstance(h2, RemovableHandle))
print(h1.id, h2.id, h3.id)
m(x)
h2.remove()
h2.remove()
m(x)
with m.register_forward_hook(lambda mod, a, o: print('temporary hook')) as h4:
    print('inside', h4.id)
    m(x)
print('outside')
m(x)
(x * 2).sum().backward()
h1.remove()
(x * 2).sum().backward()
print(x.grad)
with x.register_hook(lambda g: g * 0) as h5:
    (x * 2).sum().backward()
print(x.grad, h5.id)
