from . import module  # noqa: F401
from .container import ModuleDict, ModuleList, Sequential  # noqa: F401
from .layers import (CrossEntropyLoss, NLLLoss, Identity, Linear, LogSoftmax, MSELoss, ReLU, Sigmoid,  # noqa: F401
                     Softmax, Tanh)
from .module import Module  # noqa: F401
