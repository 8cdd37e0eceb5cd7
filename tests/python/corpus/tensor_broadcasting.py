# Broadcasting in the forward pass, and gradients summed back to each
# operand's shape.
import torch

a = torch.tensor([[1.0], [2.0], [3.0]], requires_grad=True)
b = torch.tensor([10.0, 20.0], requires_grad=True)
c = torch.tensor(2.0, requires_grad=True)
y = a * b + c
print(y)
print(y.shape)
y.sum().backward()
print(a.grad)
print(b.grad)
print(c.grad)
m = torch.ones(2, 3, requires_grad=True)
v = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
z = (m - v) / v
z.backward(torch.ones(2, 3))
print(m.grad)
print(v.grad)
print((torch.zeros(4, 1, 2) + torch.ones(3, 1)).shape)
