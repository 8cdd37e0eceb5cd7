# A custom Function's saved tensors: saved_tensors_hooks, double backward
# (create_graph), the in-place version check and a freed graph.
import torch
class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * 3 * x ** 2
x = torch.tensor([2.0], requires_grad=True)
with torch.autograd.graph.saved_tensors_hooks(lambda t: (print('pack', t), t)[1], lambda t: (print('unpack', t), t)[1]):
    y = Cube.apply(x)
g, = torch.autograd.grad(y.sum(), x, create_graph=True)
print(g, g.grad_fn)
g.backward()
print(x.grad)
z = x * 1
y = Cube.apply(z)
z.mul_(2)
try: y.backward()
except RuntimeError as e: print(e)
y = Cube.apply(x)
y.backward()
try: y.backward()
except RuntimeError as e: print(e)
print(y.grad_fn.needs_input_grad, y.grad_fn.next_functions)
