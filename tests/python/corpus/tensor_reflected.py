# Reflected operators: the scalar on the left.
import torch

x = torch.tensor([1.0, 2.0, 4.0], requires_grad=True)
for name, r in [('2 + x', 2 + x), ('2 - x', 2 - x), ('2 * x', 2 * x),
                ('2 / x', 2 / x), ('2 ** x', 2 ** x), ('1.5 - x', 1.5 - x)]:
    print(name, r)
y = (10 - x) * (1 / x) + 3 ** x
y.sum().backward()
print(x.grad)
i = torch.tensor([1, 2, 3])
print(1 + i, 2 * i, 10 - i, 6 / i, 2 ** i)
print(0.5 + i, 0.5 * i)
print(1 - torch.tensor([0.5, 1.5]) * 2, (3 - x).grad_fn.next_functions[0][0].name())
