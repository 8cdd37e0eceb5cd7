# A hook that registers or removes hooks while backward runs: the list of a
# tensor's hooks is read when the node runs.
import torch

a = torch.tensor(1.0, requires_grad=True)
b = a * 2
c = b * 3
handles = {}


def on_c(g):
    print('c hook', g)
    handles['b2'] = b.register_hook(lambda g: print('late b hook', g))


def b_first(g):
    print('b first hook', g)
    handles['b3'].remove()


c.register_hook(on_c)
b.register_hook(b_first)
handles['b3'] = b.register_hook(lambda g: print('b third hook', g))
c.backward()
print(a.grad)
