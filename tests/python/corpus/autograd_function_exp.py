# torch.autograd.Function: the docs' Exp (saves its output), a two-output
# Function, a setup_context-style one, and what the nodes look like.
import torch


class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result


x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
y = Exp.apply(x)
print(y)
print(y.grad_fn.name(), type(y.grad_fn).__name__, y.requires_grad, y.is_leaf)
print(y.grad_fn.next_functions[0][0].name())
(y * 2).sum().backward()
print(x.grad)


class MulAdd(torch.autograd.Function):
    @staticmethod
    def forward(a, b):
        return a * b, a + b

    @staticmethod
    def setup_context(ctx, inputs, output):
        a, b = inputs
        ctx.save_for_backward(a, b)

    @staticmethod
    def backward(ctx, g_prod, g_sum):
        a, b = ctx.saved_tensors
        return g_prod * b + g_sum, g_prod * a + g_sum


a = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 4.0], requires_grad=True)
p, s = MulAdd.apply(a, b)
print(p, s)
print(p.grad_fn is s.grad_fn, p.grad_fn.name())
(p.sum() + 10 * s.sum()).backward()
print(a.grad, b.grad)

c = torch.tensor([1.0, 2.0])
print(Exp.apply(c).grad_fn, Exp.apply(c).requires_grad)
with torch.no_grad():
    print(Exp.apply(x).grad_fn)
z = Exp.apply(x)
print(z.grad_fn.saved_tensors[0])
