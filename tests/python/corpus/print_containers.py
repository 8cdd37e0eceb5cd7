# Tensors inside lists, tuples, dicts and f-strings use repr.
import torch

a = torch.tensor([1.0, 2.0])
b = torch.tensor([[1, 2], [3, 4]])
print([a, b])
print((a,))
print({'a': a, 'n': 3})
print(f'a={a} b={b}')
print(f'{a!r}')
print('%s' % (a,))
print(str(a) == repr(a))
print([torch.tensor(1.0), torch.tensor(2.0, requires_grad=True)])
print((torch.tensor([0.5]), None, 'x'))
print([[a * 2]])
g = torch.tensor([1.0], requires_grad=True) * 2
print({'out': g})
print(f'{torch.tensor(2.0):.3f}', f'{torch.tensor(7):>5}')
