"""`torch.nn.functional`: each function is the engine's op of the same name."""

from .. import _bridge as B
from .. import _dtype as D
from .._tensor import Tensor


def linear(input, weight, bias=None):
    h = B.call_engine(B.js.linear, input._h, weight._h, None if bias is None else bias._h)
    return Tensor._wrap(h, input.dtype)


def relu(input, inplace=False):
    return input.relu_() if inplace else input.relu()


def relu_(input):
    return input.relu_()


def tanh(input):
    return input.tanh()


def sigmoid(input):
    return input.sigmoid()


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    return input.softmax(dim)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    return input.log_softmax(dim)


def _reduction(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        raise NotImplementedError("hookgrad does not implement the deprecated size_average/reduce arguments yet")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    reduction = _reduction(size_average, reduce, reduction)
    if tuple(input.shape) != tuple(target.shape):
        from .. import _warnings

        _warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size."
        )
    h = B.call_engine(B.hg.nn.functional.mseLoss, input._h, target._h, B.js.options("reduction", reduction))
    return Tensor._wrap(h, input.dtype)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    reduction = _reduction(size_average, reduce, reduction)
    if weight is not None or label_smoothing or ignore_index != -100:
        raise NotImplementedError("hookgrad does not implement cross_entropy's weight, label_smoothing "
                                  "or ignore_index yet")
    if target.dtype.is_floating_point:
        raise NotImplementedError("hookgrad does not implement cross_entropy with class probabilities yet")
    return _class_loss(B.hg.nn.functional.crossEntropy, input, target, reduction)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    reduction = _reduction(size_average, reduce, reduction)
    if weight is not None or ignore_index != -100:
        raise NotImplementedError("hookgrad does not implement nll_loss's weight or ignore_index yet")
    return _class_loss(B.hg.nn.functional.nllLoss, input, target, reduction)


def _class_loss(engine_fn, input, target, reduction):
    # PyTorch checks this in Python (torch/nn/functional.py), as a ValueError.
    if input.dim() == 2 and target.dim() >= 1 and input.shape[0] != target.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({target.shape[0]}).")
    # Class indices as plain ints: the engine's loss takes them as numbers.
    classes = B.js.array(*[int(v) for v in target.tolist()] if target.dim() else [int(target.item())])
    h = B.call_engine(engine_fn, input._h, classes, B.js.options("reduction", reduction))
    return Tensor._wrap(h, input.dtype)


_ = D


def __getattr__(name):
    from .. import _missing

    return _missing.missing("torch.nn.functional", name)
