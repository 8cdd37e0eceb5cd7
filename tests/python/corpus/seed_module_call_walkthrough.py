# The 004 notes: what nn.Module.__call__ does around forward -- pre-hooks may
# replace the inputs, full backward hooks wrap inputs and outputs in one
# identity node each, forward hooks may replace the output, and a legacy
# hook reports the grads of the output's last node only.
import torch
import torch.nn as nn


class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.tensor([2.0, 3.0]))

    def forward(self, x, y):
        print('  forward sees', x, y)
        return (x * self.w + y).sum()


def pre(module, args):
    print('pre-hook: inputs', args)
    x, y = args
    return x * 10, y


def post(module, args, output):
    print('forward hook: output', output)
    return output + 1


def full(module, grad_input, grad_output):
    print('full hook: grad_input', grad_input, 'grad_output', grad_output)


m = Scale()
m.register_forward_pre_hook(pre)
m.register_forward_hook(post)
m.register_full_backward_hook(full)
x = torch.tensor([1.0, 1.0], requires_grad=True)
y = torch.tensor([0.5, 0.5], requires_grad=True)
out = m(x, y)
print('out', out)
print('out.grad_fn', out.grad_fn.name())
print('next', [f[0].name() for f in out.grad_fn.next_functions if f[0] is not None])
out.backward()
print('x.grad', x.grad, 'y.grad', y.grad, 'w.grad', m.w.grad)

# Inputs that do not require grad: the full hook fires from the outputs.
m2 = Scale()
m2.register_full_backward_hook(full)
m2(torch.ones(2), torch.zeros(2)).backward()

# The legacy hook on a module of two nodes: grads of the last node only.
m3 = Scale()
m3.register_backward_hook(lambda mod, gi, go: print('legacy hook: gi', gi, 'go', go))
m3(x, y).backward()
