# Forward pre-hooks see (module, args) and may return new args (a tuple or a
# single value); forward hooks see (module, args, output) and may replace it.
import torch
import torch.nn as nn


class Add(nn.Module):
    def forward(self, x, y=None):
        print('forward', x, y)
        return x + (0 if y is None else y)


m = Add()
h1 = m.register_forward_pre_hook(lambda mod, args: print('pre sees', args))
h2 = m.register_forward_pre_hook(lambda mod, args: (args[0] * 2,) + args[1:])
h3 = m.register_forward_hook(lambda mod, args, out: print('post sees', args, out))
h4 = m.register_forward_hook(lambda mod, args, out: out * 10)
print(m(torch.tensor(1.0), torch.tensor(2.0)))
print(m(torch.tensor(1.0), y=torch.tensor(2.0)))
h2.remove()
h4.remove()
single = m.register_forward_pre_hook(lambda mod, args: args[0] + 100)
print(m(torch.tensor(1.0)))
single.remove()
h1.remove()
h3.remove()
print(m(torch.tensor(1.0)))
print(m._forward_pre_hooks, m._forward_hooks)
