# argmax / argmin: ties give the first index, no dim gives the flat index,
# keepdim; and the accuracy line of every classification loop.
import torch

scores = torch.tensor([[1.0, 5.0, 5.0], [7.0, 2.0, 7.0]], requires_grad=True)
print(scores.argmax(), scores.argmax(dim=1), scores.argmin(0), scores.argmax(dim=1, keepdim=True))
print(scores.argmax(keepdim=True), torch.argmax(scores, dim=0), torch.argmin(scores))
print(torch.tensor(3.0).argmax(), torch.tensor([2, 9, 9]).argmax(), scores.argmax(-1).dtype)
pred = scores.argmax(dim=1)
labels = torch.tensor([1, 0])
correct = (pred == labels).sum().item()
print(f"accuracy: {correct}/{len(labels)} = {(pred == labels).float().mean():.2f}")
print(pred.requires_grad, pred.grad_fn)
