# The 2018 notes: a hook on a Variable doubles its gradient; the handle
# removes it; then a forward hook that prints a module's inputs and outputs.
import torch
from torch import nn
from torch.autograd import Variable

v = torch.autograd.Variable(torch.Tensor([0, 0, 0]), requires_grad=True)
h = v.register_hook(lambda grad: grad * 2)  # double the gradient
v.backward(torch.Tensor([1, 1, 1]))
print(v.grad.data)
h.remove()  # removes the hook
v.backward(torch.Tensor([1, 1, 1]))
print(v.grad.data)


def for_hook(module, input, output):
    print(module)
    for val in input:
        print("input val:", val)
    for out_val in output:
        print("output val:", out_val)


class Model(nn.Module):
    def __init__(self):
        super(Model, self).__init__()

    def forward(self, x):
        return x + 1


model = Model()
x = Variable(torch.FloatTensor([1]), requires_grad=True)
handle = model.register_forward_hook(for_hook)
print(model(x))
handle.remove()
print(model(x))
