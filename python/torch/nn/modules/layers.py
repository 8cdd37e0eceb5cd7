"""The modules of PyTorch's whose forward is one op: Linear, activations, losses."""

import math

from ... import _dtype as D
from ... import _random
from ..._creation import from_flat
from .. import functional as F
from ..parameter import Parameter
from .module import Module


class Identity(Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        D.check_device(device)
        self.in_features = in_features
        self.out_features = out_features
        # reset_parameters(): kaiming_uniform_(weight, a=sqrt(5)) then the bias
        # uniform in ±1/sqrt(fan_in): the same draws from PyTorch's generator.
        gain = math.sqrt(2.0 / (1 + 5))
        bound = math.sqrt(3.0) * gain / math.sqrt(in_features) if in_features else 0.0
        w = _random.uniform(out_features * in_features, -bound, bound)
        self.weight = Parameter(from_flat(w, (out_features, in_features)))
        if bias:
            b_bound = 1 / math.sqrt(in_features) if in_features > 0 else 0
            self.bias = Parameter(from_flat(_random.uniform(out_features, -b_bound, b_bound), (out_features,)))
        else:
            self.register_parameter("bias", None)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class ReLU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Tanh(Module):
    def forward(self, input):
        return input.tanh()


class Sigmoid(Module):
    def forward(self, input):
        return input.sigmoid()


class Softmax(Module):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    def forward(self, input):
        return F.log_softmax(input, self.dim)


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.reduction = reduction


class MSELoss(_Loss):
    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class CrossEntropyLoss(_Loss):
    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                 label_smoothing=0.0):
        super().__init__(size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        self.weight = weight

    def forward(self, input, target):
        return F.cross_entropy(input, target, self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class NLLLoss(_Loss):
    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.weight = weight

    def forward(self, input, target):
        return F.nll_loss(input, target, self.weight, ignore_index=self.ignore_index, reduction=self.reduction)


# Where PyTorch defines these: `type(m)` prints <class 'torch.nn.modules.linear.Linear'>,
# and error messages name a module by that path (module.py's _typename).
for _cls, _where in ((Identity, "linear"), (Linear, "linear"), (ReLU, "activation"), (Tanh, "activation"),
                     (Sigmoid, "activation"), (Softmax, "activation"), (LogSoftmax, "activation"),
                     (_Loss, "loss"), (MSELoss, "loss"), (CrossEntropyLoss, "loss"), (NLLLoss, "loss")):
    _cls.__module__ = "torch.nn.modules." + _where
del _cls, _where
