"""`torch.nn`."""

from . import functional, init  # noqa: F401
from .modules import (CrossEntropyLoss, Identity, Linear, LogSoftmax, Module, ModuleDict,  # noqa: F401
                      ModuleList, MSELoss, ReLU, Sequential, Sigmoid, Softmax, Tanh)
from .parameter import Buffer, Parameter  # noqa: F401
from . import modules  # noqa: F401
