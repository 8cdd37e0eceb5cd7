# An in-place op on a leaf that requires grad.
import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.no_grad():
    w.add_(1)
print(w)
w.add_(1)
