# item, tolist, and Python numbers out of tensors.
import torch

t = torch.tensor([[1.5, 2.25], [3.0, -4.125]])
print(t.tolist(), type(t.tolist()).__name__)
print(t[0].tolist(), t.sum().tolist())
print(torch.tensor([1, 2, 3]).tolist(), torch.tensor([True, False]).tolist())
print(t.sum().item(), t.max().item(), t.mean().item())
x = torch.tensor(0.1)
print(x.item(), f'{x.item():.3f}', round(x.item(), 4), x.item() == 0.1)
print(torch.tensor(1 / 3).item())
print(torch.tensor([2.0], requires_grad=True).item())
print(torch.tensor(7).item() + 1, torch.tensor(2.5).item() * 2)
loss = (torch.tensor([1.0, 2.0], requires_grad=True) ** 2).sum()
print(f'loss {loss.item():.4f}', f'{loss.item()}', str(loss.item()))
print(torch.tensor([0.1, 0.2, 0.3]).tolist())
print(torch.tensor(16777217.0).item(), torch.tensor(1e-8).item(), torch.tensor(1e20).item())
print(torch.tensor([3.7, -3.7]).tolist(), torch.tensor([[]]).tolist())
