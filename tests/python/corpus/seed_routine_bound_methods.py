# The Q&A's question: a Routine that captures a named module's output in a
# forward hook and its grad_input in a (legacy) backward hook, registered as
# bound methods -- which Python passes with self already bound.
import torch
import torch.nn as nn


class Routine:
    def __init__(self, model, attention_layer_name='desired_name_module'):
        self.model = model
        for name, module in self.model.named_modules():
            if attention_layer_name in name:
                print('hooking', repr(name), type(module).__name__)
                module.register_forward_hook(self.get_attention)
                module.register_backward_hook(self.get_attention_gradient)
        self.attentions = []
        self.attention_gradients = []

    def get_attention(self, module, input, output):
        self.attentions.append(output.cpu())

    def get_attention_gradient(self, module, grad_input, grad_output):
        print('grad_input has', len(grad_input), 'entries')
        self.attention_gradients.append(grad_input[0].cpu())

    def __call__(self, input_tensor):
        self.model.zero_grad()
        output = self.model(input_tensor)
        loss = output.mean()
        loss.backward()
        return loss


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 10), nn.Tanh(), nn.Linear(10, 1))
routine = Routine(model, attention_layer_name='0')
x = torch.rand(1, 10, requires_grad=True)
print('loss', routine(x))
print('loss', routine(x * 2))
print(len(routine.attentions), len(routine.attention_gradients))
print(routine.attentions[0])
print(routine.attention_gradients[0])
print(routine.attention_gradients[1])
