# In-place operators and methods bump _version and return the same tensor.
import torch

t = torch.tensor([1.0, 2.0, 3.0])
print(t._version)
t += 1
print(t, t._version)
t -= 0.5
print(t, t._version)
t *= 2
print(t, t._version)
t /= 4
print(t, t._version)
r = t.add_(1)
print(r is t, t, t._version)
t.sub_(torch.tensor([1.0, 1.0, 1.0]))
t.mul_(10)
t.div_(2)
print(t, t._version)
t.zero_()
print(t, t._version)
t.fill_(3.5)
print(t, t._version)
t.copy_(torch.tensor([9.0, 8.0, 7.0]))
print(t, t._version)
print(t.clamp(min=7.5), t.clamp(max=8.0), t.clamp(7.5, 8.5))
i = torch.tensor([1, 2, 3])
i += 2
i *= 3
print(i, i.dtype)
u = t
u += 100
print(t, u is t)
v = torch.tensor([1.0, 2.0])
w = v
v = v + 1
print(v, w)
