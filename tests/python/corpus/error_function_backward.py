# A custom Function's backward returning the wrong number of gradients, a
# gradient of the wrong shape, a non-tensor, a gradient for a non-tensor
# argument, and raising: each in PyTorch's words.
import torch


def make(name, grads):
    def forward(ctx, x, y, k):
        return x * y * k

    def backward(ctx, g):
        return grads(g)

    return type(name, (torch.autograd.Function,), {'forward': staticmethod(forward), 'backward': staticmethod(backward)})


x = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.tensor([3.0, 4.0], requires_grad=True)
cases = [
    ('TooFew', lambda g: (g, g)),
    ('TooMany', lambda g: (g, g, None, g)),
    ('BadShape', lambda g: (torch.ones(3), g, None)),
    ('NotTensor', lambda g: ('a', g, None)),
    ('GradForInt', lambda g: (g, g, g)),
    ('Single', lambda g: g),
]
for name, grads in cases:
    try:
        make(name, grads).apply(x, y, 2).sum().backward()
        print(name, 'ok', x.grad)
    except Exception as e:
        print(name, type(e).__name__, e)


class Fine(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        return g + 1, None


print(torch.autograd.grad(Fine.apply(x).sum(), x))
try:
    Fine()(x)
except RuntimeError as e:
    print(e)


class Raises(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        raise ValueError('backward failed on purpose')


Raises.apply(x).sum().backward()
