# A micrograd-style scalar MLP: every weight is its own 0-d tensor
# (2-6-4-1 = 51 parameters), 20 steps of gradient descent.
import random

import torch

random.seed(1337)


class Neuron:
    def __init__(self, nin, act):
        self.w = [torch.tensor(random.uniform(-1, 1), requires_grad=True) for _ in range(nin)]
        self.b = torch.tensor(0.0, requires_grad=True)
        self.act = act

    def __call__(self, x):
        s = self.b
        for wi, xi in zip(self.w, x):
            s = s + wi * xi
        return s.tanh() if self.act else s

    def parameters(self):
        return self.w + [self.b]


class MLP:
    def __init__(self, sizes):
        self.layers = [[Neuron(sizes[i], i < len(sizes) - 2) for _ in range(sizes[i + 1])]
                       for i in range(len(sizes) - 1)]

    def __call__(self, x):
        for layer in self.layers:
            x = [n(x) for n in layer]
        return x[0]

    def parameters(self):
        return [p for layer in self.layers for n in layer for p in n.parameters()]


model = MLP([2, 6, 4, 1])
print('parameters', len(model.parameters()))
xs = [[2.0, 3.0], [3.0, -1.0], [0.5, 1.0], [1.0, 1.0]]
ys = [1.0, -1.0, -1.0, 1.0]
for step in range(20):
    preds = [model([torch.tensor(v) for v in x]) for x in xs]
    loss = sum((p - y) ** 2 for p, y in zip(preds, ys))
    for p in model.parameters():
        p.grad = None
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            p -= 0.02 * p.grad
    print(step, round(loss.item(), 4))
print([round(p.item(), 4) for p in preds])
print(loss)
