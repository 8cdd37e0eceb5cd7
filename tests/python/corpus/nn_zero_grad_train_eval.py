# zero_grad sets grads to None; train()/eval() set .training recursively and
# return the module.
import torch
import torch.nn as nn

torch.manual_seed(1)
model = nn.Sequential(nn.Linear(2, 2), nn.Tanh(), nn.Linear(2, 1))
model(torch.ones(1, 2)).sum().backward()
print([p.grad is None for p in model.parameters()])
model.zero_grad()
print([p.grad for p in model.parameters()])
print(model.training, [m.training for m in model])
r = model.eval()
print(r is model, model.training, [m.training for m in model])
model.train()
print(model.training, model[2].training)
model.train(False)
print(model.training, model[0].training)
model[1].train()
print([m.training for m in model.modules()])
p = nn.Parameter(torch.tensor([1.0]))
(p * 2).sum().backward()
print(p.grad)
