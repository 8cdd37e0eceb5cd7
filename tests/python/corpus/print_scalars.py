# 0-d tensors: integral floats, 4 decimals, scientific notation, ints, bools.
import torch

for v in [0.0, 1.0, -2.0, 0.5, 0.1, 1 / 3, -0.0001, 123456.0, 1e-5, 1e8, 1e-10, 3.14159, 100.25, -7.0]:
    print(torch.tensor(v))
for v in [0, -5, 123456789, True, False]:
    print(torch.tensor(v))
print(torch.tensor(2.5, requires_grad=True))
print(torch.tensor(2.0, requires_grad=True) * 3)
print(f'{torch.tensor(1.5)}', str(torch.tensor(1.5)), repr(torch.tensor(-1.5)))
print('value:', torch.tensor(0.25))
print(torch.tensor(float('inf')), torch.tensor(float('-inf')), torch.tensor(float('nan')))
print(torch.tensor(-0.0), torch.tensor(1e38), torch.tensor(65504.0))
