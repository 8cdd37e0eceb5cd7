# In-place uniform_ and normal_ on tensors made by empty/zeros.
import torch

torch.manual_seed(0)
print(torch.empty(5).uniform_())
print(torch.empty(5).uniform_(-1, 1))
print(torch.zeros(2, 3).uniform_(0, 10))
print(torch.empty(5).normal_())
print(torch.zeros(4).normal_(10, 0.5))
print(torch.empty(20).uniform_(-2, 2))
print(torch.empty(20).normal_(mean=1.0, std=2.0))
w = torch.empty(3, requires_grad=True)
with torch.no_grad():
    w.uniform_(-0.1, 0.1)
print(w)
t = torch.zeros(3)
r = t.normal_()
print(r is t, t._version)
