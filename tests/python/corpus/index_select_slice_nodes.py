# Indexing makes SelectBackward0, slicing SliceBackward0; chains show in
# next_functions.
import torch

x = torch.arange(12.0).view(3, 4).requires_grad_()
for label, r in [('x[0]', x[0]), ('x[1:3]', x[1:3]), ('x[:, 0]', x[:, 0]), ('x[0, 1]', x[0, 1]),
                 ('x[-1]', x[-1]), ('x[:, 1:3]', x[:, 1:3]), ('x[::2]', x[::2]), ('x[1:]', x[1:]),
                 ('x[:2, -1]', x[:2, -1]), ('x[2][3]', x[2][3])]:
    chain = []
    fn = r.grad_fn
    while fn is not None and fn.next_functions:
        chain.append(fn.name())
        fn = fn.next_functions[0][0]
    print(f'{label:10} {str(r.shape):16} {" <- ".join(chain)}')
    print(r)
v = torch.tensor([10.0, 20.0, 30.0])
print(v[0], v[-1], v[1:], v[:0], v[5:], v[0].shape, v[1:2].shape)
