"""`nn.Parameter`: a leaf tensor that modules register (sharing the data of
the tensor it is made from, as PyTorch's does)."""

from .. import _bridge as B
from .. import _tensor_str as S
from .._tensor import Tensor


class Parameter(Tensor):
    __slots__ = ()

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            from .._creation import zeros

            data = zeros(0)
        h = B.call_engine(data._h.detach)
        if requires_grad:
            B.call_engine(B.js.setRequiresGrad, h, True)
        p = object.__new__(cls)
        p._i = 0
        p._hc = h
        p._dtype = data._dtype
        B.remember(p)
        return p

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self):
        return S.parameter_repr(self._values(), tuple(self._h.shape), self._dtype.name,
                                requires_grad=self.requires_grad)

    __str__ = __repr__


class Buffer:
    def __new__(cls, data=None, *, persistent=True):
        raise NotImplementedError("hookgrad does not implement torch.nn.Buffer yet")
