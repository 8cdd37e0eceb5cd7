# backward on a tensor that does not require grad.
import torch

a = torch.tensor([1.0, 2.0])
b = (a * 2).sum()
print(b.requires_grad, b.grad_fn)
b.backward()
print('not reached')
