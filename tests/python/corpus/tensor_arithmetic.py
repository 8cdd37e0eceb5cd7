# + - * / @ ** and unary minus, tensor-tensor and tensor-scalar, with the
# backward node each creates.
import torch

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = torch.tensor([4.0, 5.0, 6.0], requires_grad=True)
for name, r in [('a + b', a + b), ('a - b', a - b), ('a * b', a * b), ('a / b', a / b),
                ('a @ b', a @ b), ('a ** 2', a ** 2), ('a ** b', a ** b), ('-a', -a),
                ('a + 1', a + 1), ('a - 1.5', a - 1.5), ('a * 2', a * 2), ('a / 4', a / 4),
                ('a ** 0.5', a ** 0.5), ('a * True', a * True)]:
    print(f'{name:8} = {r}')
m = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
v = torch.tensor([1.0, -1.0])
print(m @ v)
print(v @ m)
print(m @ m)
print((m * v).grad_fn.name(), (m @ v).grad_fn.name(), (v @ m).grad_fn.name(), (m @ m).grad_fn.name())
loss = ((a * b) / (a + b) - a ** 2).sum()
loss.backward()
print(a.grad)
print(b.grad)

# Integer tensors: int arithmetic stays int64 except true division.
i = torch.tensor([7, -7, 2])
j = torch.tensor([2, 2, 3])
print(i + j, i - j, i * j)
print(i / j, (i / j).dtype)
print(i ** 2, j ** 2, (i * 1.0).dtype, (i + 0.5))
print(-i, i.abs(), i.sum(), i.max())
print(i.float().mean(), i.float() / 2)
print(i == j, i.clamp(-1, 1))
print(torch.arange(10) * 3 - 5)
print(torch.tensor([100000, -2, 3]))
print(torch.tensor([[1, -20], [300, 4]]))
print(i @ j, torch.tensor([[1, 2], [3, 4]]) @ torch.tensor([[1, 0], [0, 1]]))
