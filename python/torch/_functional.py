"""`torch.exp(t)`, `torch.cat(...)`, ...: the functional forms of Tensor's
methods and the ops that take several tensors."""

from . import _bridge as B
from . import _dtype as D
from ._tensor import Tensor

__all__ = [
    "abs", "add", "sub", "mul", "div", "true_divide", "neg", "pow", "exp", "log", "sin", "cos", "tanh",
    "sigmoid", "relu", "sqrt", "softmax", "log_softmax", "matmul", "mm", "t", "transpose", "reshape",
    "squeeze", "unsqueeze", "flatten", "clone", "detach", "sum", "mean", "max", "min", "norm", "clamp",
    "clip", "cat", "concat", "concatenate", "stack", "equal", "allclose", "is_floating_point", "numel_of",
    "dot", "outer", "square", "maximum", "minimum", "argmax", "argmin", "relu_",
]


def _method(name):
    def f(input, *args, **kwargs):
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
        return getattr(input, name)(*args, **kwargs)

    f.__name__ = name
    return f


for _n in ("abs", "add", "sub", "mul", "div", "true_divide", "neg", "pow", "exp", "log", "sin", "cos", "tanh",
           "sigmoid", "relu", "sqrt", "softmax", "log_softmax", "matmul", "mm", "t", "transpose", "reshape",
           "squeeze", "unsqueeze", "flatten", "clone", "detach", "sum", "mean", "max", "min", "norm", "clamp",
           "clip", "argmax", "argmin", "relu_"):
    globals()[_n] = _method(_n)


def pow(input, exponent):  # noqa: A001
    if not isinstance(input, Tensor):
        return exponent.__rpow__(input)
    return input.pow(exponent)


def square(input):
    return input.pow(2)


def cat(tensors, dim=0, *, out=None):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = D.promote(dtype, t.dtype)
    return Tensor._wrap(B.call_engine(B.hg.cat, B.js.array(*[t._h for t in tensors]), dim), dtype)


concat = concatenate = cat


def stack(tensors, dim=0, *, out=None):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    return Tensor._wrap(B.call_engine(B.hg.stack, B.js.array(*[t._h for t in tensors]), dim), tensors[0].dtype)


def equal(a, b):
    return tuple(a.shape) == tuple(b.shape) and a._values() == b._values()


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    import math
    from builtins import abs  # this module's own `abs` is torch.abs

    av, bv = a._values(), b._values()
    if tuple(a.shape) != tuple(b.shape):
        from ._tensor_ops import _broadcast, _expand_vals

        s = _broadcast(tuple(a.shape), tuple(b.shape))
        av, bv = _expand_vals(av, tuple(a.shape), s), _expand_vals(bv, tuple(b.shape), s)
    for x, y in zip(av, bv):
        if math.isnan(x) or math.isnan(y):
            if not (equal_nan and math.isnan(x) and math.isnan(y)):
                return False
        elif abs(x - y) > atol + rtol * abs(y):
            return False
    return True


def is_floating_point(t):
    return t.is_floating_point()


def numel_of(t):
    return t.numel()


def dot(a, b):
    if a.dim() != 1 or b.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.dim()}D and {b.dim()}D tensors")
    return a.matmul(b)


def outer(a, b):
    return a.unsqueeze(1).mul(b.unsqueeze(0))


def maximum(a, b):
    raise NotImplementedError("hookgrad does not implement torch.maximum yet")


def minimum(a, b):
    raise NotImplementedError("hookgrad does not implement torch.minimum yet")
