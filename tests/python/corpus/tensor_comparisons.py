# Comparisons give bool tensors; bools sum to int64.
import torch

x = torch.tensor([1.0, 2.0, 3.0, 4.0])
y = torch.tensor([4.0, 2.0, 1.0, 4.0])
print(x < y)
print(x <= y)
print(x > y)
print(x >= y)
print(x == y)
print(x != y)
print(x > 2)
print(2.5 < x)
print((x == y).dtype, (x > 2).sum(), (x > 2).sum().dtype)
mask = x >= 2
print(mask.float(), x * mask)
i = torch.tensor([1, 5, 3])
print(i == 3, i > torch.tensor([0, 5, 4]))
z = torch.tensor([1.0, 2.0], requires_grad=True)
print(z > 1, (z > 1).requires_grad)
print(torch.tensor(3.0) > 2)
print(bool(torch.tensor(3.0) > 2))
if x.min() > 0:
    print('all positive')
