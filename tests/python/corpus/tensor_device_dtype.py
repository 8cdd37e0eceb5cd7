# device, cpu(), to(), float(), dtype conversions.
import torch

t = torch.tensor([1, 2, 3])
print(t.device, t.dtype, t.device.type)
print(t.cpu() is t, t.to('cpu') is t, t.to(torch.int64) is t)
f = t.float()
print(f, f.dtype)
g = t.to(torch.float32)
print(g, g.dtype)
h = torch.tensor([1.9, -1.9]).to(torch.int64)
print(h)
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x.to(torch.float32)
print(y is x, x.float() is x)
z = x.cpu()
print(z is x, z.device)
i = torch.tensor([1, 2], dtype=torch.int64).float() * x
print(i, i.grad_fn.name())
print(torch.tensor([True, False]).float(), torch.tensor([0.0, 2.0]).to(torch.bool))
print(str(t.device), repr(t.device), t.device == torch.device('cpu'))
print(x.to('cpu', torch.float32) is x)
