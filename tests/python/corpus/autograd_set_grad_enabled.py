# set_grad_enabled as a function and as a context manager.
import torch

x = torch.tensor(3.0, requires_grad=True)
with torch.set_grad_enabled(False):
    print(torch.is_grad_enabled(), (x * 2).requires_grad)
print(torch.is_grad_enabled())
for is_train in [True, False]:
    with torch.set_grad_enabled(is_train):
        y = x * x
    print(is_train, y, y.requires_grad)
torch.set_grad_enabled(False)
print(torch.is_grad_enabled(), (x + 1).grad_fn)
torch.set_grad_enabled(True)
print(torch.is_grad_enabled(), (x + 1).grad_fn.name())
with torch.no_grad():
    with torch.set_grad_enabled(True):
        print('inner', torch.is_grad_enabled())
    print('outer', torch.is_grad_enabled())
