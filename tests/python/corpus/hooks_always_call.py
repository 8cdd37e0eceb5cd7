# A forward hook with always_call=True runs even when forward raises.
import torch
import torch.nn as nn


class Fragile(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            raise ValueError('positive input')
        return x * 2


m = Fragile()
m.register_forward_hook(lambda mod, args, out: print('normal hook', out))
m.register_forward_hook(lambda mod, args, out: print('always hook', out), always_call=True)
print(m(torch.tensor([-1.0])))
try:
    m(torch.tensor([1.0]))
except ValueError as e:
    print('caught', type(e).__name__, e)
