# The Q&A's answer: first a plain-Python object with callbacks, then the
# Routine with lambdas wrapping its methods and register_full_backward_hook.
import torch
import torch.nn as nn


class Obj:
    def __init__(self):
        self.hooks = []

    def register_hook(self, hook):
        self.hooks.append(hook)

    def __call__(self, x, y):
        print('instance called')
        for hook in self.hooks:
            hook(x, y)


def foo(x, y):
    print(f'foo called with {x} and {y}')


def bar(x, _):
    print(f'bar called with {x}')


obj = Obj()
obj.register_hook(foo)
obj('yes', 'no')
obj.register_hook(bar)
obj('yes', 'no')


class Routine:
    def __init__(self, model, attention_layer_name):
        self.model = model
        for name, module in self.model.named_modules():
            if attention_layer_name in name:
                module.register_forward_hook(
                    lambda *args, **kwargs: Routine.get_attention(self, *args, **kwargs))
                module.register_full_backward_hook(
                    lambda *args, **kwargs: Routine.get_attention_gradient(self, *args, **kwargs))
        self.attentions = []
        self.attention_gradients = []

    def get_attention(self, module, input, output):
        self.attentions.append(output.cpu())

    def get_attention_gradient(self, module, grad_input, grad_output):
        self.attention_gradients.append(grad_input[0].cpu())

    def __call__(self, input_tensor):
        self.model.zero_grad()
        output = self.model(input_tensor)
        loss = output.mean()
        loss.backward()


torch.manual_seed(0)
routine = Routine(nn.Sequential(nn.Linear(10, 10)), attention_layer_name='0')
routine(torch.rand(1, 10, requires_grad=True))
print(routine.attentions)
print(routine.attention_gradients)
routine(torch.rand(1, 10, requires_grad=True))
print(len(routine.attentions), len(routine.attention_gradients))
print(routine.attention_gradients[1])
