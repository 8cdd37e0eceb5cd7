# autograd.grad for an input that the output does not depend on.
import torch

a = torch.tensor(1.0, requires_grad=True)
b = torch.tensor(2.0, requires_grad=True)
y = a * 3
print(torch.autograd.grad(y, a, retain_graph=True))
torch.autograd.grad(y, [a, b])
