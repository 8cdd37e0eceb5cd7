# torch.Size (a tuple), dtypes and devices as printed.
import torch

t = torch.zeros(2, 3)
print(t.shape)
print(t.size())
print(repr(t.shape), str(t.shape))
print(torch.tensor(1.0).shape, torch.zeros(0).shape)
print(t.shape == (2, 3), t.shape[0], t.shape[-1], len(t.shape), list(t.shape), tuple(t.shape))
print(t.shape[1:], type(t.shape[1:]).__name__, isinstance(t.shape, tuple))
a, b = t.shape
print(a, b, t.size(0), t.size(dim=1))
print(f'shape={t.shape}', [t.shape], {'s': t.shape})
print(torch.Size([4, 5]), torch.Size([]), torch.Size((1,)))
print(t.numel(), torch.Size([2, 3]).numel())
print(t.dtype, repr(t.dtype), str(torch.int64), [torch.bool])
print(t.dtype == torch.float32, t.dtype == torch.float, t.dtype is torch.float32)
print(t.device, [t.device], f'{t.device}')
print(t.is_contiguous(), t.stride(), t.T.stride())
