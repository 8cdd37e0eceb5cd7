"""Tensor's shape methods and views (each one engine call: ViewBackward0,
TBackward0, ...) and the in-place random fills, whose values come from
PyTorch's generator (_random) and which the engine writes."""

from . import _bridge as B
from . import _dtype as D
from ._tensor import Tensor, _dim
from ._bridge import js
from ._tensor_ops import _drop

call = B.call_engine


def _shape_arg(args):
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    return js.array(*[int(a) for a in args])


def _view(self, *shape):
    if len(shape) == 1 and isinstance(shape[0], D.dtype):
        raise NotImplementedError("hookgrad does not implement torch.Tensor.view(dtype) yet")
    return Tensor._wrap(call(self._h.view, _shape_arg(shape)), self._dtype)


def _reshape(self, *shape):
    return Tensor._wrap(call(self._h.reshape, _shape_arg(shape)), self._dtype)


def _expand(self, *sizes):
    return Tensor._wrap(call(self._h.expand, _shape_arg(sizes)), self._dtype)


def _transpose(self, dim0, dim1):
    return Tensor._wrap(call(self._h.transpose, dim0, dim1), self._dtype)


def _t(self):
    if self.dim() > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.dim()}D")
    return Tensor._wrap(call(self._h.t), self._dtype)


def _unsqueeze(self, dim):
    return Tensor._wrap(call(self._h.unsqueeze, dim), self._dtype)


def _squeeze(self, dim=None):
    return Tensor._wrap(call(self._h.squeeze) if dim is None else call(self._h.squeeze, dim), self._dtype)


def _clone(self, memory_format=None):
    return Tensor._wrap(call(self._h.clone), self._dtype)


def _contiguous(self, memory_format=None):
    if self.is_contiguous():
        return self
    return Tensor._wrap(call(self._h.contiguous), self._dtype)


Tensor.view = _view
Tensor.reshape = _reshape
Tensor.expand = _expand
Tensor.expand_as = lambda self, other: _expand(self, *other.shape)
Tensor.view_as = lambda self, other: _view(self, *other.shape)
Tensor.reshape_as = lambda self, other: _reshape(self, *other.shape)
Tensor.transpose = _transpose
Tensor.swapaxes = _transpose
Tensor.t = _t
def _permute(self, *dims):
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = tuple(dims[0])
    return Tensor._wrap(call(self._h.permute, js.array(*[int(d) for d in dims])), self._dtype)


_T_0D = ("Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases. "
         "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4313.)")
_T_ND = ("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and it "
         "will throw an error in a future release. Consider `x.mT` to transpose batches of matrices or "
         "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor. "
         "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4306.)")


def _T(self):
    # PyTorch 2.x: Tensor.T is a permute of the reversed dims (PermuteBackward0),
    # with a deprecation warning for any dimension but 2.
    from ._warnings import warn

    n = self.dim()
    if n != 2:
        warn(_T_0D if n == 0 else _T_ND)
    return self if n < 2 else _permute(self, *range(n - 1, -1, -1))


Tensor.permute = _permute
Tensor.T = property(_T)
Tensor.mT = property(lambda self: Tensor._wrap(call(lambda: self._h.mT), self._dtype))


def _unbind(self, dim=0):
    return tuple(Tensor._wrap(h, self._dtype) for h in call(self._h.unbind, _dim(dim, max(self.dim(), 1))))


Tensor.unbind = _unbind
Tensor.unsqueeze = _unsqueeze
Tensor.squeeze = _squeeze
Tensor.clone = _clone
Tensor.contiguous = _contiguous
Tensor.flatten = lambda self, start_dim=0, end_dim=-1: _flatten(self, start_dim, end_dim)


def _flatten(self, start_dim, end_dim):
    shape = list(self.shape)
    if not shape:
        return self.reshape(1)
    s, e = _dim(start_dim, len(shape)), _dim(end_dim, len(shape))
    if s == e:
        return self
    n = 1
    for d in shape[s:e + 1]:
        n *= d
    return self.reshape(*(shape[:s] + [n] + shape[e + 1:]))


# ----- random fills (values from PyTorch's generator; the engine writes them) -----------
def _uniform_(self, a=0.0, b=1.0, *, generator=None):
    from . import _random

    vals = _random.uniform(self.numel(), a, b, generator=generator)
    return _write(self, vals)


def _normal_(self, mean=0.0, std=1.0, *, generator=None):
    from . import _random

    vals = _random.normal(self.numel(), mean, std, generator=generator)
    return _write(self, vals)


def _write(self, vals):
    from ._creation import from_flat

    src = from_flat(vals, tuple(self._h.shape), self._dtype)
    _drop(call(self._h.copy_, src._h), self)
    return self


Tensor.uniform_ = _uniform_
Tensor.normal_ = _normal_

