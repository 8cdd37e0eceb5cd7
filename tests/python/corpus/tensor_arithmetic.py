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
