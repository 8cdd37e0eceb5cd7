# with_kwargs=True: pre-hooks get (module, args, kwargs) and may return
# (args, kwargs); forward hooks get (module, args, kwargs, output).
import torch
import torch.nn as nn


class Scale(nn.Module):
    def forward(self, x, factor=1.0, shift=0.0):
        return x * factor + shift


def pre(module, args, kwargs):
    print('pre', args, kwargs)
    kwargs = dict(kwargs)
    kwargs['factor'] = kwargs.get('factor', 1.0) * 3
    return args, kwargs


def post(module, args, kwargs, output):
    print('post', args, kwargs, output)
    return output + 0.5


m = Scale()
hp = m.register_forward_pre_hook(pre, with_kwargs=True)
m.register_forward_hook(post, with_kwargs=True)
m.register_forward_hook(lambda mod, args, out: print('plain post', args, out))
x = torch.tensor([1.0, 2.0])
print(m(x))
print(m(x, factor=2.0))
print(m(x, shift=torch.tensor(1.0)))
hp.remove()
print(m(x, 2.0))
