# Elementwise functions, their values and derivatives.
import torch

x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
for name in ['exp', 'log', 'sin', 'cos', 'tanh', 'sigmoid', 'relu', 'abs', 'sqrt']:
    y = getattr(x, name)()
    (g,) = torch.autograd.grad(y.sum(), x)
    print(f'{name:8} {y}  {y.grad_fn.name():16} d/dx {g}')
z = torch.tensor([-1.5, 0.0, 2.5], requires_grad=True)
for f in [torch.relu, torch.abs, torch.tanh, torch.sigmoid, torch.exp]:
    y = f(z)
    y.sum().backward()
    print(f.__name__, y, z.grad)
    z.grad = None
print(x.pow(2), x.pow(3).grad_fn.name(), torch.pow(x, 0.5))
print(z.clamp(-1, 1), z.clamp(min=0), z.clamp(max=0).grad_fn.name())
print(torch.log(torch.tensor([1.0, 0.0])), torch.sqrt(torch.tensor([4.0, -1.0])))
print(torch.exp(torch.tensor([100.0, -20.0])))
