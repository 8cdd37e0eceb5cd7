# backward twice needs retain_graph=True; gradients accumulate.
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
y = (a.exp() * a).sum()
y.backward(retain_graph=True)
print(a.grad)
y.backward(retain_graph=True)
print(a.grad)
y.backward()
print(a.grad)
a.grad.zero_()
print(a.grad)
z = (a * 3).sum()
z.backward()
print(a.grad)
a.grad = None
(a ** 2).sum().backward()
print(a.grad)

# Gradients accumulate across backward calls until zeroed; a tensor used
# twice gets the sum of both paths.
w = torch.tensor(1.0, requires_grad=True)
for i in range(3):
    loss = w * (i + 1)
    loss.backward()
    print(i, w.grad)
w.grad.zero_()
print(w.grad)
x = torch.tensor(3.0, requires_grad=True)
y = x * x + x * 2 + x
y.backward()
print(x.grad)
print(y.grad_fn.name(), [n[0].name() for n in y.grad_fn.next_functions])
a = torch.tensor([1.0, 2.0], requires_grad=True)
s = a.sum()
s2 = s * s
s2.backward()
print(a.grad)
