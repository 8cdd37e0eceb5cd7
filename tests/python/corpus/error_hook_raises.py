# A hook that raises: the traceback goes through the backward call and the
# hook's own line.
import torch

w = torch.tensor([1.0, -1.0], requires_grad=True)


def check_finite(grad):
    print('checking', grad)
    if grad.abs().max() > 1:
        raise ValueError(f'gradient too large: {grad.abs().max().item()}')
    return grad


h = (w * 5)
h.register_hook(check_finite)
loss = h.sum() * 2
loss.backward()
