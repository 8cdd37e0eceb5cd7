# A seeded model and seeded data trained a few steps; CrossEntropyLoss.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.randn(20, 4)
labels = torch.randint(0, 3, (20,))
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
print(labels)
for step in range(10):
    logits = model(x)
    loss = F.cross_entropy(logits, labels)
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            p.sub_(0.1 * p.grad)
    print(step, round(loss.item(), 4))
pred = model(x).softmax(dim=1)
print(pred[:3])
print((pred.max(dim=1)[1] == labels).sum())
