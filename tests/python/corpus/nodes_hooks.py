# Node hooks: register_prehook(grad_outputs) may replace them;
# register_hook(grad_inputs, grad_outputs) may replace grad_inputs.
import torch

a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
c = a * b
d = c * 4


def pre(grad_outputs):
    print('prehook on', c.grad_fn.name(), grad_outputs)
    return (grad_outputs[0] * 10,)


def post(grad_inputs, grad_outputs):
    print('hook on', c.grad_fn.name(), 'grad_inputs', grad_inputs, 'grad_outputs', grad_outputs)


def post_replace(grad_inputs, grad_outputs):
    return (grad_inputs[0] + 1, grad_inputs[1])


h1 = c.grad_fn.register_prehook(pre)
h2 = c.grad_fn.register_hook(post)
h3 = c.grad_fn.register_hook(post_replace)
d.backward(retain_graph=True)
print(a.grad, b.grad)
h1.remove()
h3.remove()
a.grad = None
b.grad = None
d.backward()
print(a.grad, b.grad)
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x.exp()
y.grad_fn.register_prehook(lambda go: print('exp prehook', go))
y.grad_fn.register_hook(lambda gi, go: print('exp hook', gi, go))
y.sum().backward()
print(x.grad)

# grad_fn.metadata is a dict kept on the node.
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
