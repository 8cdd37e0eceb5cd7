# MSELoss and CrossEntropyLoss (class indices), modules and F forms.
import torch
import torch.nn as nn
import torch.nn.functional as F

pred = torch.tensor([[0.5, 1.5], [2.0, -1.0]], requires_grad=True)
target = torch.tensor([[1.0, 1.0], [1.0, 1.0]])
mse = nn.MSELoss()
loss = mse(pred, target)
print(mse, loss, loss.grad_fn.name())
loss.backward()
print(pred.grad)
print(nn.MSELoss(reduction='sum')(pred, target), F.mse_loss(pred, target))
logits = torch.tensor([[2.0, 1.0, 0.1], [0.5, 2.5, 0.3]], requires_grad=True)
labels = torch.tensor([0, 2])
ce = nn.CrossEntropyLoss()
l2 = ce(logits, labels)
print(ce, l2, l2.grad_fn.name())
l2.backward()
print(logits.grad)
print(F.cross_entropy(logits, labels), F.cross_entropy(logits, labels, reduction='none'))
print(nn.CrossEntropyLoss(reduction='sum')(logits, labels))
