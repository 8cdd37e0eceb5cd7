# Reading .grad of a non-leaf tensor that does not retain its grad warns.
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 2
loss = b.sum()
loss.backward()
print(b.grad)
print(a.grad)
c = a + 1
c.retain_grad()
c.sum().backward()
print(c.grad)
d = a.detach()
print(d.grad)

# The default warning filter prints a warning once per code location.
a = torch.tensor(1.0, requires_grad=True)
for i in range(3):
    b = a * i
    print(i, b.grad)
print(b.grad)
print('end')
