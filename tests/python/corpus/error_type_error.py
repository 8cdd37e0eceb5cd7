# Calling a module's forward with a missing argument: TypeError.
import torch
import torch.nn as nn


class Add(nn.Module):
    def forward(self, a, b):
        return a + b


m = Add()
print(m(torch.tensor(1.0), torch.tensor(2.0)))
m(torch.tensor(1.0))
