# print(t.grad_fn) and friends: object reprs with addresses, names, and
# grad_fn shown in tensor reprs after in-place ops and views.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
print(y.grad_fn)
print(x.grad_fn)
z = y.sum()
print(z.grad_fn, z.grad_fn.next_functions)
print(z.grad_fn.next_functions[0][0].next_functions)
v = y.view(2, 1)
print(v)
y.add_(1)
print(y, y.grad_fn.name())
print(v, v.grad_fn.name())
w = x[0]
print(w, w.grad_fn)
print([x.grad_fn, y.grad_fn.name()])
print(type(y.grad_fn), type(y.grad_fn).__name__)
print(torch.tensor(1.0).grad_fn is None)
