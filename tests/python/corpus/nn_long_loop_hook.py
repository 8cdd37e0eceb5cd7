# 1,000 training steps with a tensor hook that clips the weight gradient
# (printed every 100 steps).
import torch
import torch.nn as nn

torch.manual_seed(3)
lin = nn.Linear(3, 1)
x = torch.randn(16, 3)
y = x @ torch.tensor([[1.0], [-2.0], [0.5]]) + 0.3 + 0.1 * torch.randn(16, 1)
calls = {'n': 0, 'clamped': 0}


def watch(g):
    calls['n'] += 1
    if g.abs().max() > 1:
        calls['clamped'] += 1
    return g.clamp(-1, 1)


lin.weight.register_hook(watch)
for step in range(1000):
    lin.zero_grad()
    loss = ((lin(x) - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        for p in lin.parameters():
            p.sub_(0.05 * p.grad)
    if step % 100 == 0:
        print(step, f'{loss.item():.5g}', calls['clamped'])
print(calls['n'])
print(lin.weight, lin.bias)
