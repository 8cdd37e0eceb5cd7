# print(grad_fn) shows <NameBackward0 object at 0x...>; next_functions holds
# (node, input_nr) pairs, AccumulateGrad for leaves.
import torch

a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
c = a * b
print(c.grad_fn)
print(repr(c.grad_fn))
print(c.grad_fn.next_functions)
acc = c.grad_fn.next_functions[0][0]
print(acc)
print(acc.name(), type(acc).__name__, type(c.grad_fn).__name__)
print(acc.next_functions)
print(c.grad_fn.next_functions[0][0] is c.grad_fn.next_functions[0][0])
d = c.exp() + 1
print(d.grad_fn, d.grad_fn.next_functions)
print(f'{d.grad_fn.name()} -> {d.grad_fn.next_functions[0][0].name()}')
print(c.grad_fn == c.grad_fn, c.grad_fn is c.grad_fn)
e = c.sum()
print(str(e.grad_fn).startswith('<SumBackward0 object at 0x'))
