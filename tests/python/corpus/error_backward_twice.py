# A second backward through a graph whose saved tensors were freed.
import torch

x = torch.tensor(2.0, requires_grad=True)
y = x * x
z = y * 3
z.backward()
print(x.grad)
z.backward()
