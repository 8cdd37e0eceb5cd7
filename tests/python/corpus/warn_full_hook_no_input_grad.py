# A full backward hook on a module whose inputs do not require grad:
# UserWarning, and grad_input is (None,).
import torch
import torch.nn as nn

lin = nn.Linear(2, 2)
with torch.no_grad():
    lin.weight.fill_(1.0)
    lin.bias.fill_(0.0)
lin.register_full_backward_hook(lambda m, gi, go: print('grad_input', gi, 'grad_output', go))
x = torch.tensor([[1.0, 2.0]])
y = lin(x)
y.sum().backward()
print(lin.weight.grad)
y2 = lin(x)
y2.sum().backward()
print(lin.weight.grad)
