# A tensor hook that returns a gradient of the wrong shape.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2


def bad_hook(grad):
    print('hook got', grad.shape)
    return grad[:2]


y.register_hook(bad_hook)
y.sum().backward()
