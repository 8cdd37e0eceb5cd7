# manual_seed then small rand/randn (fewer than 16 elements); then the
# generator's state across calls of every kind, and reseeding.
import torch

torch.manual_seed(0)
print(torch.rand(3))
print(torch.rand(2, 3))
print(torch.randn(3))
print(torch.randn(2, 2))
print(torch.rand(1))
print(torch.randn(()))
torch.manual_seed(0)
print(torch.rand(3))
torch.manual_seed(42)
print(torch.randn(5))
print(torch.rand(15))
print(torch.randn(3, requires_grad=True))
print(torch.rand((2, 2)))


# The generator's state moves on with every call; reseeding replays it.
def draw():
    return [torch.rand(2), torch.randn(2), torch.randint(0, 100, (2,)), torch.randn(18)[-1], torch.rand(3)]


torch.manual_seed(123)
first = draw()
print(first)
torch.manual_seed(123)
second = draw()
print(all(bool((a == b).min()) for a, b in zip(first, second)))
torch.manual_seed(7)
print(torch.randn(2, 2) @ torch.randn(2, 2))
g = torch.manual_seed(7)
print(type(g).__name__, torch.randn(2, 2))
