# backward(create_graph=True) warns about the reference cycle it makes.
import torch

x = torch.tensor(3.0, requires_grad=True)
y = x ** 3
y.backward(create_graph=True)
print(x.grad)
print(x.grad.requires_grad)
g = x.grad
x.grad = None
g.backward()
print(x.grad)
