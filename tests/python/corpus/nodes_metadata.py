# grad_fn.metadata is a dict kept on the node.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
z = y.sum()
print(y.grad_fn.metadata)
y.grad_fn.metadata['label'] = 'double'
z.grad_fn.metadata['step'] = 1
print(y.grad_fn.metadata, z.grad_fn.metadata)
print(z.grad_fn.next_functions[0][0].metadata)
print(z.grad_fn.next_functions[0][0] is y.grad_fn)


def tag(grad_inputs, grad_outputs):
    print('backward through', y.grad_fn.metadata['label'])


y.grad_fn.register_hook(tag)
z.backward()
print(x.grad)
print(type(y.grad_fn.metadata).__name__)
