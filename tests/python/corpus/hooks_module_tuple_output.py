# Hooks on a module that takes and returns several tensors (tuples), and a
# non-tensor argument.
import torch
import torch.nn as nn


class Split(nn.Module):
    def forward(self, x, scale, name):
        print('forward got name', name)
        return x * scale, x + scale


def fwd(module, args, out):
    print('forward hook args', len(args), 'out', out)
    return out[0], out[1] * 0


def bwd(module, grad_input, grad_output):
    print('backward hook gi', grad_input, 'go', grad_output)


m = Split()
m.register_forward_hook(fwd)
m.register_full_backward_hook(bwd)
x = torch.tensor([1.0, 2.0], requires_grad=True)
s = torch.tensor(3.0, requires_grad=True)
p, q = m(x, s, 'split')
print(p, q)
(p.sum() + q.sum()).backward()
print(x.grad, s.grad)
