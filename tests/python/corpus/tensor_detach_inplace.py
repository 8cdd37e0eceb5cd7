# Tensor.detach_(): the tensor itself leaves the graph (truncated
# backpropagation through time detaches a hidden state this way); views
# are refused in PyTorch's words.
import torch

a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 2
c = b * 3
r = b.detach_()
print(r is b, b, b.requires_grad, b.is_leaf, b.grad_fn)
c.sum().backward()
print(a.grad)

# A hidden state carried across steps, detached between them.
w = torch.tensor(0.5, requires_grad=True)
h = torch.zeros(())
for step in range(3):
    h = torch.tanh(w * h + 1.0)
    loss = (h - 0.5) ** 2
    loss.backward()
    print(step, round(loss.item(), 6), round(w.grad.item(), 6))
    h.detach_()
    w.grad = None

for make in (lambda: a.view(2), lambda: torch.ones(2).view(2), lambda: (a * 1)[0]):
    try:
        make().detach_()
    except RuntimeError as e:
        print("RuntimeError:", e)

x = torch.ones(2, requires_grad=True)
print(x.detach_() is x, x.requires_grad, x.is_leaf)
