# Module.__getattr__'s AttributeError for a missing attribute.
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)


net = Net()
print(net.fc)
print(net.fc2)
