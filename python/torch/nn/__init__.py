"""`torch.nn`."""

from . import functional, init, utils  # noqa: F401
from .modules import (CrossEntropyLoss, NLLLoss, Identity, Linear, LogSoftmax, Module, ModuleDict,  # noqa: F401
                      ModuleList, MSELoss, ReLU, Sequential, Sigmoid, Softmax, Tanh)
from .parameter import Buffer, Parameter  # noqa: F401
from . import modules  # noqa: F401


def __getattr__(name):
    from .. import _missing

    return _missing.missing("torch.nn", name)
