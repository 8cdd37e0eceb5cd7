# Forward and full backward hooks on every layer of a Sequential, found by
# named_modules: the order they fire in, forward and backward.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2), nn.Tanh())
shapes = {}


def make_hooks(name):
    def fwd(module, inputs, output):
        shapes[name] = tuple(output.shape)
        print('forward', name, type(module).__name__, tuple(output.shape))

    def bwd(module, grad_input, grad_output):
        print('backward', name, [None if g is None else tuple(g.shape) for g in grad_input],
              grad_output[0].norm().item() > 0)
    return fwd, bwd


for name, module in model.named_modules():
    if name:
        fwd, bwd = make_hooks(name)
        module.register_forward_hook(fwd)
        module.register_full_backward_hook(bwd)
x = torch.randn(2, 3)
y = model(x)
y.sum().backward()
print(shapes)
print(y)
