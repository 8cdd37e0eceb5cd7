# Walk a backward graph through grad_fn.next_functions, printing each node's
# name() and the input number of each edge.
import torch

w = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
b = torch.tensor([0.1, 0.2], requires_grad=True)
x = torch.tensor([1.0, 2.0])
h = (w @ x + b).tanh()
loss = (h * h).mean() + b.sum() * 0.5


def walk(fn, depth=0):
    if fn is None:
        print('  ' * depth + 'None')
        return
    print('  ' * depth + fn.name())
    for nxt, input_nr in fn.next_functions:
        print('  ' * depth + f'  [input_nr={input_nr}]')
        walk(nxt, depth + 2)


walk(loss.grad_fn)
print(len(loss.grad_fn.next_functions), type(loss.grad_fn.next_functions).__name__)
print(x.grad_fn, w.grad_fn)
c = torch.tensor(1.0, requires_grad=True)
d = c * torch.tensor(2.0)
print(d.grad_fn.next_functions[1])
