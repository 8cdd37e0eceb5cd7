# torch.autograd.grad: tuples of gradients, no .grad accumulation,
# retain_graph and grad_outputs.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = torch.tensor(0.5, requires_grad=True)
y = (w * x ** 2).sum()
gx, gw = torch.autograd.grad(y, [x, w], retain_graph=True)
print(gx, gw)
print(x.grad, w.grad)
print(torch.autograd.grad(y, x, retain_graph=True))
print(torch.autograd.grad(outputs=y, inputs=(w,)))
z = x * w
print(torch.autograd.grad(z, x, grad_outputs=torch.tensor([1.0, 0.0, -1.0])))
a = torch.tensor(2.0, requires_grad=True)
b = a ** 3
(g,) = torch.autograd.grad(b, a)
print(g, g.requires_grad)
