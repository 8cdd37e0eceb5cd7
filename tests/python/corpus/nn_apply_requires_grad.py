# apply(fn) visits children first, then the module; requires_grad_(False)
# freezes; to()/cpu() return the module itself.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(3, 2), nn.ReLU(), nn.Sequential(nn.Linear(2, 2), nn.Sigmoid()))
order = []


def init(m):
    order.append(type(m).__name__)
    if isinstance(m, nn.Linear):
        with torch.no_grad():
            m.weight.fill_(0.5)
            m.bias.zero_()


r = model.apply(init)
print(r is model, order)
print(model(torch.tensor([[1.0, 2.0, 3.0]])))
model[0].requires_grad_(False)
print([(n, p.requires_grad) for n, p in model.named_parameters()])
model(torch.ones(1, 3)).sum().backward()
print(model[0].weight.grad, model[2][0].weight.grad)
print(model.to('cpu') is model, model.cpu() is model, model.requires_grad_() is model)
print([p.requires_grad for p in model.parameters()])
print(model.to(torch.float32) is model, model[0].weight.dtype)
