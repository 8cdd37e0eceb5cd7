# register_post_accumulate_grad_hook runs after a leaf's .grad is updated.
import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)


def after(p):
    print('post-accumulate: grad', p.grad, 'is w:', p is w)


h = w.register_post_accumulate_grad_hook(after)
w.register_hook(lambda g: print('tensor hook sees', g))
for step in range(3):
    (w * (step + 1)).sum().backward()
    print('after step', step, w.grad)
h.remove()
(w * 10).sum().backward()
print(w.grad)


def sgd_in_hook(p):
    with torch.no_grad():
        p.sub_(0.1 * p.grad)
    p.grad = None


v = torch.tensor([1.0, 1.0], requires_grad=True)
v.register_post_accumulate_grad_hook(sgd_in_hook)
for _ in range(3):
    ((v - 3) ** 2).sum().backward()
    print(v, v.grad)
