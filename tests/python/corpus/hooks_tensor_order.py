# Tensor hooks run in registration order; retain_grad stores the grad after
# all of them (PyTorch 2); a hook's return value replaces the grad.
import torch

a = torch.tensor(2.0, requires_grad=True)
b = a * 3
b.retain_grad()
b.register_hook(lambda g: print('first', g) or g + 1)
b.register_hook(lambda g: print('second', g) or g * 10)
b.register_hook(lambda g: print('third', g))
c = b * b
c.backward()
print('b.grad', b.grad, 'a.grad', a.grad)
x = torch.tensor([1.0, 2.0], requires_grad=True)
x.register_hook(lambda g: g * 2)
x.register_hook(lambda g: print('leaf hook sees', g))
(x * x).sum().backward()
print(x.grad)

# Hooks that rescale, clip and zero gradients; removing a hook mid-way.
w = torch.tensor([0.5, -2.0, 3.0], requires_grad=True)
clip = w.register_hook(lambda g: g.clamp(-1, 1))
loss = (w ** 3).sum()
loss.backward()
print(w.grad)
clip.remove()
w.grad = None
(w ** 3).sum().backward()
print(w.grad)
h = torch.tensor([1.0, 1.0], requires_grad=True)
mid = h * 4
mid.register_hook(lambda g: torch.zeros_like(g))
out = (mid * h).sum()
out.backward()
print(h.grad)
s = torch.tensor(1.0, requires_grad=True)
t = s.exp()
t.register_hook(lambda g: g / 2)
t.register_hook(lambda g: g / 2)
t.backward()
print(s.grad)
