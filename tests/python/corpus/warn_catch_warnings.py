# warnings.catch_warnings(record=True) collects PyTorch's warnings as
# objects: their category and message.
import warnings

import torch
import torch.nn as nn

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter('always')
    a = torch.tensor(1.0, requires_grad=True)
    b = a * 2
    b.grad
    (a ** 2).backward(create_graph=True)
    lin = nn.Linear(1, 1)
    lin.register_full_backward_hook(lambda m, gi, go: None)
    lin(torch.ones(1, 1)).sum().backward()
    m = nn.Sequential(nn.Linear(1, 1), nn.ReLU())
    m.register_backward_hook(lambda m, gi, go: None)
    m(torch.ones(1, 1)).sum().backward()
for w in caught:
    print(w.category.__name__, '|', str(w.message)[:70])
print(len(caught))
with warnings.catch_warnings():
    warnings.simplefilter('ignore')
    print(b.grad)
print('after')
