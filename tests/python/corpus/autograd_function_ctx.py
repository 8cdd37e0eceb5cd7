# ctx.needs_input_grad with non-tensor arguments, mark_non_differentiable,
# set_materialize_grads, extra None gradients, once_differentiable.
import torch
from torch.autograd.function import once_differentiable


class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, k, name='scale'):
        print('forward', ctx.needs_input_grad, k, name, torch.is_grad_enabled())
        ctx.k = k
        ctx.save_for_backward(x, w)
        return x * w * k

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        print('backward', ctx.needs_input_grad, ctx.k)
        gx = g * w * ctx.k if ctx.needs_input_grad[0] else None
        gw = g * x * ctx.k if ctx.needs_input_grad[1] else None
        return gx, gw, None, None, None, None


x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0])
y = Scale.apply(x, w, 10)
print(y.grad_fn.next_functions)
y.sum().backward()
print(x.grad)


class SortWithIndex(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        vals = x * 1
        idx = torch.tensor([1.0, 0.0])
        ctx.mark_non_differentiable(idx)
        return vals, idx

    @staticmethod
    def backward(ctx, g_vals, g_idx):
        print('backward got', g_vals, g_idx)
        return g_vals


v, i = SortWithIndex.apply(x)
print(v.requires_grad, i.requires_grad, i.grad_fn)
v.sum().backward()


class Split(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, materialize):
        ctx.set_materialize_grads(materialize)
        return x * 1, x * 2

    @staticmethod
    @once_differentiable
    def backward(ctx, g1, g2):
        print('Split.backward', g1, g2, torch.is_grad_enabled())
        total = g1 if g2 is None else g1 + 2 * g2
        return total, None


for materialize in (True, False):
    x.grad = None
    a, b = Split.apply(x, materialize)
    a.sum().backward()
    print(x.grad)
