# retain_grad on non-leaf tensors; retains_grad; is_leaf.
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 2
c = b ** 2
print(a.is_leaf, b.is_leaf, c.is_leaf)
print(a.retains_grad, b.retains_grad)
b.retain_grad()
print(b.retains_grad)
c.retain_grad()
c.retain_grad()
loss = c.sum()
loss.backward()
print(a.grad, b.grad, c.grad)
d = torch.tensor(5.0)
print(d.is_leaf, d.requires_grad)
e = d * 2
print(e.is_leaf, e.requires_grad)
with torch.no_grad():
    f = a * 2
print(f.is_leaf, f.requires_grad)
print(a.retains_grad, loss.retains_grad)
