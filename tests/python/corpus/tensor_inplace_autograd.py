# In-place ops on non-leaf tensors in a graph: grad_fn changes, and the
# gradient flows through them.
import torch

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a * 2
print(b.grad_fn.name(), b._version)
b += 1
print(b.grad_fn.name(), b._version)
b.mul_(3)
print(b.grad_fn.name(), b._version)
b.sub_(a)
print(b.grad_fn.name(), b._version)
b.div_(2)
print(b, b._version)
b.sum().backward()
print(a.grad)
c = a.clone()
print(c.grad_fn.name())
c.zero_()
print(c, c.grad_fn.name())
c.add_(a * a)
c.sum().backward()
print(a.grad)
with torch.no_grad():
    a.mul_(2)
print(a, a._version, a.is_leaf)
