"""`& | ^ ~` and torch.logical_*: bool and integer results that carry no
gradient, made from the values as comparisons are (PyTorch records no graph
for them either). Float operands get PyTorch's own errors."""

import operator

from . import _dtype as D
from ._tensor import Tensor
from ._tensor_ops import _broadcast, _expand_vals

_KERNEL = {"and": "bitwise_and_cpu", "or": "bitwise_or_cpu", "xor": "bitwise_xor_cpu"}
_INT = {"and": operator.and_, "or": operator.or_, "xor": operator.xor}


def _operand(x):
    """(values, shape, dtype) of a tensor or a Python bool/int."""
    if isinstance(x, Tensor):
        return x._values(), tuple(x._h.shape), x.dtype
    if isinstance(x, bool):
        return [float(x)], (), D.bool_
    if isinstance(x, int):
        return [float(x)], (), D.int64
    return None


def _bitwise(name, reflected=False):
    def op(self, other):
        from ._creation import from_flat

        b = _operand(other)
        if b is None:
            return NotImplemented
        a = _operand(self)
        # A Python int beside a tensor does not raise its dtype (bool | 1 is int64 though).
        if isinstance(other, Tensor) or self.dtype is D.bool_ and b[2] is not D.bool_:
            dtype = D.int64 if D.int64 in (a[2], b[2]) else D.bool_
        else:
            dtype = self.dtype
        if reflected:
            a, b = b, a
        (av, ash, ad), (bv, bsh, bd) = a, b
        for d in (ad, bd):
            if d.is_floating_point:
                raise NotImplementedError(f'"{_KERNEL[name]}" not implemented for \'Float\'')
        shape = _broadcast(ash, bsh)
        av, bv = _expand_vals(av, ash, shape), _expand_vals(bv, bsh, shape)
        f = _INT[name]
        return from_flat([float(f(int(x), int(y))) for x, y in zip(av, bv)], shape, dtype)

    return op


def _invert(self):
    from ._creation import from_flat

    if self.dtype.is_floating_point:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    vals = self._values()
    if self.dtype is D.bool_:
        return from_flat([0.0 if v else 1.0 for v in vals], tuple(self._h.shape), D.bool_)
    return from_flat([float(~int(v)) for v in vals], tuple(self._h.shape), self.dtype)


for _name in _KERNEL:
    setattr(Tensor, f"__{_name}__", _bitwise(_name))
    setattr(Tensor, f"__r{_name}__", _bitwise(_name, reflected=True))
    setattr(Tensor, f"bitwise_{_name}", _bitwise(_name))
Tensor.__invert__ = _invert
Tensor.bitwise_not = _invert


def _logical(test):
    def op(a, b=None):
        from ._creation import from_flat

        if b is None:
            return from_flat([1.0 if test(v) else 0.0 for v in a._values()], tuple(a._h.shape), D.bool_)
        av, ash, _ = _operand(a)
        bv, bsh, _ = _operand(b)
        shape = _broadcast(ash, bsh)
        av, bv = _expand_vals(av, ash, shape), _expand_vals(bv, bsh, shape)
        return from_flat([1.0 if test(x, y) else 0.0 for x, y in zip(av, bv)], shape, D.bool_)

    return op


logical_and = _logical(lambda x, y: bool(x) and bool(y))
logical_or = _logical(lambda x, y: bool(x) or bool(y))
logical_xor = _logical(lambda x, y: bool(x) != bool(y))
logical_not = _logical(lambda x: not x)
Tensor.logical_and = logical_and
Tensor.logical_or = logical_or
Tensor.logical_xor = logical_xor
Tensor.logical_not = logical_not
