# torch.optim: SGD with momentum and Adam, five steps each on a seeded MLP
import torch, torch.nn as nn
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
x = torch.randn(8, 3); y = torch.randn(8, 1)
for opt in (torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9), torch.optim.Adam(net.parameters(), lr=0.01)):
    for step in range(5):
        opt.zero_grad()
        loss = ((net(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        print(f"{loss.item():.6f}")
print(net[0].weight)
print(opt)
