# The order of everything that runs for one node: tensor hooks (retain_grad
# last), node pre-hooks, the node, node hooks; then the next node.
import torch

a = torch.tensor(2.0, requires_grad=True)
b = a * 3
b.register_hook(lambda g: print('tensor hook 1', g) or g * 2)
b.retain_grad()
b.register_hook(lambda g: print('tensor hook 2', g))
b.grad_fn.register_prehook(lambda go: print('node prehook', go))
b.grad_fn.register_hook(lambda gi, go: print('node hook', gi, go))
c = b * b
c.grad_fn.register_hook(lambda gi, go: print('c node hook', gi, go))
c.register_hook(lambda g: print('c tensor hook', g))
a.register_hook(lambda g: print('a tensor hook', g))
acc = b.grad_fn.next_functions[0][0]
acc.register_prehook(lambda go: print('AccumulateGrad prehook', go))
acc.register_hook(lambda gi, go: print('AccumulateGrad hook', gi, go))
c.backward()
print('a.grad', a.grad, 'b.grad', b.grad)
