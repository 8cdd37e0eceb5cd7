# saved_tensors_hooks: pack runs when a node saves a tensor in forward,
# unpack when backward reads it.
import torch


def pack(t):
    print('pack', t)
    return t


def unpack(t):
    print('unpack', t)
    return t


a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([0.5, 1.0], requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    c = a * b
    print('forward done')
    d = c.exp()
    e = c + 1
print('backward')
(d.sum() + e.sum()).backward()
print(a.grad, b.grad)


def pack_scaled(t):
    print('pack_scaled', t.shape)
    return t * 2


def unpack_scaled(t):
    print('unpack_scaled')
    return t


x = torch.tensor(3.0, requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(pack_scaled, unpack_scaled):
    y = x * x
y.backward()
print(x.grad)
