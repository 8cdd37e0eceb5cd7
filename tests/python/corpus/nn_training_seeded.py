# A seeded two-layer network trained a few steps with manual SGD.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
x = torch.tensor([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
y = torch.tensor([[0.0], [1.0], [1.0], [0.0]])
loss_fn = nn.MSELoss()
lr = 0.5
for step in range(8):
    model.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            p -= lr * p.grad
    print(f'step {step} loss {loss.item():.4f}')
print(model(x))
print(model[2].weight)
print(model[0].bias)
