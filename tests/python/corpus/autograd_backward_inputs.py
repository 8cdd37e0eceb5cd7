# backward(inputs=...) accumulates into the listed leaves only; so does
# torch.autograd.backward; and a gradient argument for non-scalars.
import torch

a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
c = a * b
c.backward(inputs=[a], retain_graph=True)
print(a.grad, b.grad)
c.backward(inputs=b)
print(a.grad, b.grad)
v = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = v * 2
y.backward(torch.tensor([1.0, 0.1, 0.01]))
print(v.grad)
u = torch.tensor([1.0, -1.0], requires_grad=True)
y1 = (u * 2).sum()
y2 = u * u
torch.autograd.backward([y1, y2], [torch.tensor(1.0), torch.tensor([10.0, 10.0])])
print(u.grad)
p = torch.tensor(1.0, requires_grad=True)
q = torch.tensor(1.0, requires_grad=True)
torch.autograd.backward(p * q * 5, inputs=[q])
print(p.grad, q.grad)
m = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
n = m @ m
n.backward(gradient=torch.ones(2, 2))
print(m.grad)
