# Per-parameter gradient hooks (clamping, printing a norm), inference_mode, detach,
# .data assignment, requires_grad_(False), and grad-mode decorators.
import torch
import torch.nn as nn
torch.manual_seed(3)
model = nn.Sequential(nn.Linear(3, 3), nn.Sigmoid(), nn.Linear(3, 1))
for name, p in model.named_parameters():
    p.register_hook(lambda g, name=name: print(f"{name}: {g.norm():.6f}") or g.clamp(-0.1, 0.1))
x = torch.randn(4, 3)
loss = model(x).pow(2).mean()
loss.backward()
print(model[0].weight.grad)
with torch.inference_mode():
    y = model(x)
print(y.requires_grad, y.grad_fn)
z = model(x).detach()
print(z.requires_grad)
model[0].weight.data = torch.zeros(3, 3)
print(model(x).squeeze())
model[0].weight.grad.data.zero_()
print(model[0].weight.grad.sum())
model.requires_grad_(False)
print([p.requires_grad for p in model.parameters()])
with torch.enable_grad():
    print(torch.is_grad_enabled())
@torch.no_grad()
def f(t):
    return t * 2
print(f(torch.ones(1, requires_grad=True)).requires_grad)
print(torch.is_inference_mode_enabled() if hasattr(torch, 'is_inference_mode_enabled') else None)
with torch.inference_mode():
    print(torch.is_inference_mode_enabled(), torch.is_grad_enabled())
    with torch.inference_mode(False):
        print(torch.is_inference_mode_enabled())
print(torch.is_inference_mode_enabled())
