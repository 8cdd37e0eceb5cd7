# In-place ops on what a module with a full backward hook returns (pytorch #61519), and relu_ itself.
import torch
import torch.nn as nn
import torch.nn.functional as F


def attempt(label, f):
    try:
        r = f()
        print(label, 'ok', r)
    except Exception as e:
        print(label, type(e).__name__, e)


class Two(nn.Module):
    def forward(self, x):
        return x * 2, x + 1


x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)


def hooked(module, pre=False):
    if pre:
        module.register_full_backward_pre_hook(lambda m, go: None)
    else:
        module.register_full_backward_hook(lambda m, gi, go: print('hook', gi, go))
    return module


out = hooked(nn.Identity())(x * 1)
attempt('ReLU(inplace=True)', lambda: nn.ReLU(inplace=True)(out))
attempt('F.relu inplace', lambda: F.relu(out, inplace=True))
attempt('mul_', lambda: out.mul_(3))
attempt('add_', lambda: out.add_(1))
attempt('torch.relu_', lambda: torch.relu_(out))
attempt('view of it', lambda: out[0].mul_(2))
print('unchanged', out, out._version, out.grad_fn.name())
attempt('pre-hook only', lambda: hooked(nn.Identity(), pre=True)(x * 1).relu_())
a, b = hooked(Two())(x)
attempt('two outputs, 0', lambda: a.add_(1))
attempt('two outputs, 1', lambda: b.add_(1))
attempt('clone first', lambda: out.clone().relu_())
with torch.no_grad():
    out.mul_(2)
print('under no_grad', out.detach(), out._version)
plain = nn.Identity()
plain.register_forward_hook(lambda m, i, o: None)
y = plain(x * 1)
r = nn.ReLU(inplace=True)(y)
print('forward hook only', r is y, y, y._version, y.grad_fn.name(), y.grad_fn.next_functions[0][0].name())
y.sum().backward()
print('x.grad', x.grad)
z = x * 1
z.relu_()
z.add_(2)
attempt('saved result changed', lambda: z.sum().backward())
print(nn.ReLU(inplace=True), nn.ReLU(), nn.Sequential(nn.ReLU(True)))
m = hooked(nn.Identity())
y = nn.ReLU()(m(x * 1))
y.sum().backward()
print('x.grad', x.grad)
