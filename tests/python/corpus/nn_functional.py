# torch.nn.functional: linear relu tanh sigmoid softmax log_softmax
# mse_loss cross_entropy, and the nodes they make.
import torch
import torch.nn.functional as F

x = torch.tensor([[1.0, -2.0, 0.5]], requires_grad=True)
w = torch.tensor([[0.1, 0.2, 0.3], [-0.3, 0.4, -0.1]], requires_grad=True)
b = torch.tensor([0.01, -0.01], requires_grad=True)
h = F.linear(x, w, b)
print(h, h.grad_fn.name())
print(F.linear(x, w), F.linear(x, w).grad_fn.name())
for f in [F.relu, F.tanh, F.sigmoid]:
    print(f.__name__, f(x))
print(F.softmax(x, dim=1), F.log_softmax(x, dim=-1))
print(F.softmax(x, dim=1).grad_fn.name(), F.log_softmax(x, dim=1).grad_fn.name())
out = F.relu(h)
loss = F.mse_loss(out, torch.tensor([[0.0, 1.0]])) + F.cross_entropy(h, torch.tensor([1]))
print(loss)
loss.backward()
print(x.grad, w.grad, b.grad, sep='\n')
