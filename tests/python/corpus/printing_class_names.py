# What `type(...)` prints for torch's classes (blog code prints them while
# exploring), and an error message that names a module by its class's path.
import torch
import torch.nn as nn

x = torch.ones(2, requires_grad=True)
y = x * 2
print(type(x), type(y.grad_fn), type(y.grad_fn.next_functions[0][0]))
print(type(x.shape), type(x.dtype), type(x.device), type(y.sum().item()))
print(type(nn.Parameter(torch.ones(1))), type(nn.Linear(1, 1)), type(nn.Identity()))
print(type(nn.ReLU()), type(nn.Tanh()), type(nn.Sigmoid()), type(nn.Softmax(dim=0)), type(nn.LogSoftmax(dim=0)))
print(type(nn.MSELoss()), type(nn.CrossEntropyLoss()), type(nn.Sequential()), type(nn.ModuleList()))
print(type(torch.optim.SGD([x], lr=1.0)), type(torch.optim.Adam([x])))
print(type(x.register_hook(lambda g: None)), type(torch.no_grad()))
print(torch.Tensor, nn.Module, nn.Parameter, torch.optim.Optimizer)
print(isinstance(x, torch.Tensor), torch.is_tensor(x), type(x) is torch.Tensor)

m = nn.Linear(1, 1)
try:
    m.weight = nn.Linear(1, 1)
except TypeError as e:
    print("TypeError:", e)
