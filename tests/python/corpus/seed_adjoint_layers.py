# The adjoint blog post: three layers u + A @ u; a full backward hook on each
# layer sees the adjoint variable, which an explicit transpose pass recomputes.
import torch
import torch.nn as nn


class Layer(nn.Module):
    def __init__(self):
        super(Layer, self).__init__()
        self.A = nn.Parameter(
            torch.tensor([[1.0, -2.0, -1.0], [-2.0, 1.0, -2.0], [-1.0, -2.0, 1]]) / 4
        )

    def forward(self, u):
        return u + self.A @ u


class Model(nn.Module):
    def __init__(self, n=3):
        super(Model, self).__init__()
        self.layers = nn.ModuleList([Layer() for _ in range(n)])

    def forward(self, u):
        for layer in self.layers:
            u = layer(u)
        return u


class Adjoint(nn.Module):
    def __init__(self, forward_model):
        super(Adjoint, self).__init__()
        self.layers = forward_model.layers

    def forward(self, u):
        print(f'Input: {u=}')
        for layer in self.layers:
            print(u, end=' \t')
            u = u + layer.A.T @ u
            print(u)
        return u


torch.manual_seed(0)
u0 = torch.randn(3)
y = torch.randn(3)
model = Model()
model_adjoint = Adjoint(model)


def hook_fn(module, grad_input, grad_output):
    print(f'{grad_output=}, {grad_input=}')


hooks = []
for i, layer in enumerate(model.layers):
    hook = layer.register_full_backward_hook(hook_fn)
    hooks.append(hook)
out = model(u0)
loss = 0.5 * torch.norm(out - y) ** 2
loss.backward()
print(model_adjoint(out - y))
for hook in hooks:
    hook.remove()
print(model.layers[0].A.grad)
