# Gradient clipping between backward() and step(), as training loops write it:
# clip_grad_norm_ (2-norm, inf-norm, the returned total norm, a norm below
# max_norm leaving the gradients as they are) and clip_grad_value_.
import torch
import torch.nn as nn

torch.manual_seed(3)
model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
x = torch.randn(5, 3)
y = torch.randn(5, 1)
loss = ((model(x) - y) ** 2).sum() * 10
loss.backward()
before = [p.grad.clone() for p in model.parameters()]
total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
print(total)
print(torch.stack([p.grad.norm() for p in model.parameters()]))
print(torch.stack([p.grad.norm() for p in model.parameters()]).norm())
print(model[2].bias.grad, before[3])
big = nn.utils.clip_grad_norm_(model.parameters(), 100.0)
print(big, model[2].bias.grad)
w = torch.tensor([3.0, -4.0], requires_grad=True)
(w * torch.tensor([10.0, 10.0])).sum().backward()
print(torch.nn.utils.clip_grad_norm_(w, 5.0, norm_type=float('inf')), w.grad)
w.grad = None
(w * w).sum().backward()
torch.nn.utils.clip_grad_value_([w], clip_value=5)
print(w.grad)
print(nn.utils.clip_grad_norm_([], 1.0))
