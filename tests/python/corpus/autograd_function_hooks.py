# Gradient reversal and a straight-through estimator as custom Functions,
# with tensor hooks, node hooks, retain_grad and a module around them:
# everything prints in the order the engine runs it.
import torch
import torch.nn as nn


class GradReverse(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        print('  GradReverse.backward', grad_output)
        return grad_output.neg() * ctx.alpha, None


class STEClamp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clamp(-1.0, 1.0)

    @staticmethod
    def backward(ctx, g):
        print('  STEClamp.backward', g)
        return g


x = torch.tensor([0.4, 1.6, -2.2], requires_grad=True)
x.register_hook(lambda g: print('  x hook', g))
h = x * 3
h.register_hook(lambda g: print('  h hook', g))
r = GradReverse.apply(h, 0.5)
r.retain_grad()
r.register_hook(lambda g: print('  r hook', g))
r.grad_fn.register_prehook(lambda go: print('  prehook', r.grad_fn.name(), go))
r.grad_fn.register_hook(lambda gi, go: print('  posthook', gi, go))
q = STEClamp.apply(r)
print(q, q.grad_fn)
q.grad_fn.register_hook(lambda gi, go: print('  ste posthook', gi, go))
print('backward:')
(q * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print('x.grad', x.grad)
print('r.grad', r.grad)


class Twice(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        print('  Twice.backward', g)
        return g * 2


class M(nn.Module):
    def forward(self, x):
        return Twice.apply(x) + 1


m = M()
m.register_forward_hook(lambda mod, inp, out: print('forward hook', out.grad_fn))
m.register_full_backward_pre_hook(lambda mod, go: print('  module pre-hook', go))
m.register_full_backward_hook(lambda mod, gi, go: print('  module hook', gi, go))
w = torch.tensor([1.0, -1.0], requires_grad=True)
out = m(w)
print('backward:')
out.sum().backward()
print('w.grad', w.grad)
