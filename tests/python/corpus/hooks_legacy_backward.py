# The legacy register_backward_hook on Linear reports the last node's grads
# (AddmmBackward0: bias, input, weight.T), with a FutureWarning.
import torch
import torch.nn as nn

lin = nn.Linear(2, 2)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    lin.bias.copy_(torch.tensor([0.5, -0.5]))


def legacy(module, grad_input, grad_output):
    print('legacy hook on', module)
    print(' grad_input', grad_input)
    print(' grad_output', grad_output)


lin.register_backward_hook(legacy)
x = torch.tensor([[1.0, 1.0]], requires_grad=True)
out = lin(x)
print(out.grad_fn.name())
out.sum().backward()
print(x.grad, lin.weight.grad, lin.bias.grad)
out2 = lin(x)
(out2 * torch.tensor([[1.0, 2.0]])).sum().backward()
print(x.grad)
