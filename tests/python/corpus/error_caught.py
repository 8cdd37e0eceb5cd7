# Errors caught and printed as type and message.
import torch
import torch.nn as nn


def attempt(label, f):
    try:
        r = f()
        print(label, 'ok', r)
    except Exception as e:
        print(label, type(e).__name__, e)


x = torch.tensor([1.0, 2.0], requires_grad=True)
attempt('backward no grad', lambda: torch.ones(1).sum().backward())
attempt('non-scalar', lambda: (x * 2).backward())
attempt('index', lambda: x[3])
attempt('item', lambda: x.item())
attempt('in-place leaf', lambda: x.mul_(2))
attempt('getattr', lambda: nn.Linear(1, 1).nope)
attempt('add str', lambda: x + 'a')
attempt('view', lambda: x.view(3))
attempt('mm', lambda: torch.mm(torch.ones(2, 2), torch.ones(3, 3)))
attempt('tensor of str', lambda: torch.tensor(['a']))
attempt('ragged', lambda: torch.tensor([[1, 2], [3]]))
attempt('cross entropy', lambda: nn.CrossEntropyLoss()(torch.ones(2, 3), torch.tensor([0, 5])))
attempt('dim', lambda: x.sum(dim=2))
attempt('grad of int', lambda: torch.tensor([1, 2], requires_grad=True))
attempt('squeeze ok', lambda: x.squeeze(0).shape)
e = x.exp()
e.add_(1)
attempt('saved result', lambda: (e * 2).sum().backward())
y = x * x
y.sum().backward()
attempt('twice', lambda: y.sum().backward())
attempt('param assign', lambda: setattr(nn.Linear(1, 1), 'weight', torch.ones(1)))
attempt('bad module', lambda: nn.Sequential(nn.Linear(2, 3), nn.Linear(2, 3))(torch.ones(1, 2)))
