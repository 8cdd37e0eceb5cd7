# log_softmax then NLLLoss / F.nll_loss (the MNIST tutorials' pair): values,
# the NllLossBackward0 node over LogSoftmaxBackward0, gradients, reductions.
import torch
import torch.nn as nn
import torch.nn.functional as F

logits = torch.tensor([[2.0, 1.0, 0.1], [0.5, 2.5, 0.3], [-1.0, 0.0, 1.0]], requires_grad=True)
labels = torch.tensor([0, 2, 2])
logp = F.log_softmax(logits, dim=1)
criterion = nn.NLLLoss()
loss = criterion(logp, labels)
print(criterion, loss, loss.grad_fn.name(), loss.grad_fn.next_functions[0][0].name())
loss.backward()
print(logits.grad)
print(F.nll_loss(logp, labels, reduction='none'), F.nll_loss(logp, labels, reduction='sum'))
print(torch.allclose(F.nll_loss(logp, labels), F.cross_entropy(logits, labels)))
single = F.nll_loss(torch.tensor([-0.5, -1.5, -2.0], requires_grad=True), torch.tensor(1))
print(single)
try:
    F.nll_loss(logp, torch.tensor([0, 1]))
except ValueError as e:
    print(type(e).__name__, e)
