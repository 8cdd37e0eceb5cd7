# torch.no_grad() as a context manager and as a decorator; enable_grad
# inside it; is_grad_enabled.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
print(torch.is_grad_enabled())
with torch.no_grad():
    print(torch.is_grad_enabled())
    y = x * 2
    print(y, y.requires_grad, y.grad_fn)
    with torch.enable_grad():
        z = x * 3
        print(z, torch.is_grad_enabled())
    w = x + 1
    print(w.requires_grad)
print(torch.is_grad_enabled())


@torch.no_grad()
def evaluate(t):
    print('in evaluate:', torch.is_grad_enabled())
    return t * 10


r = evaluate(x)
print(r, r.requires_grad)


@torch.no_grad
def evaluate_bare(t):
    return t - 1


print(evaluate_bare(x))


@torch.enable_grad()
def train_step(t):
    return (t ** 2).sum()


with torch.no_grad():
    loss = train_step(x)
print(loss, loss.requires_grad)
loss.backward()
print(x.grad)
print(evaluate.__name__)
