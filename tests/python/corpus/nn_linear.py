# nn.Linear with set weights: forward, the AddmmBackward0 node, grads.
import torch
import torch.nn as nn

lin = nn.Linear(3, 2)
print(lin.in_features, lin.out_features, lin.weight.shape, lin.bias.shape)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[1.0, 0.0, -1.0], [0.5, 0.5, 0.5]]))
    lin.bias.copy_(torch.tensor([0.1, -0.1]))
x = torch.tensor([[1.0, 2.0, 3.0], [0.0, 1.0, 0.0]], requires_grad=True)
y = lin(x)
print(y, y.grad_fn.name())
print([n[0].name() if n[0] is not None else None for n in y.grad_fn.next_functions])
y.sum().backward()
print(lin.weight.grad)
print(lin.bias.grad)
print(x.grad)
v = lin(torch.tensor([1.0, 1.0, 1.0]))
print(v, v.grad_fn.name())
nb = nn.Linear(2, 2, bias=False)
print(nb.bias, [n for n, _ in nb.named_parameters()])
with torch.no_grad():
    nb.weight.copy_(torch.eye(2))
out = nb(torch.tensor([[3.0, 4.0]]))
print(out, out.grad_fn.name())
