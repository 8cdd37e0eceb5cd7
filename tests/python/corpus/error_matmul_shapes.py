# Shape errors: matmul, broadcasting, view.
import torch

a = torch.ones(2, 3)
b = torch.ones(2, 3)
for f in [lambda: a @ b, lambda: a + torch.ones(4), lambda: a.view(4), lambda: torch.ones(3) @ torch.ones(4),
          lambda: torch.cat([a, torch.ones(2, 2)]), lambda: a.t().view(6)]:
    try:
        f()
    except RuntimeError as e:
        print(type(e).__name__, e)
torch.mm(a, b)
