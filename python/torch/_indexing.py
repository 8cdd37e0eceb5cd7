"""`t[...]` and `t[...] = v`: Python's indexing turned into the engine's views
(`select` -> SelectBackward0, `slice` -> SliceBackward0, `unsqueeze` for
None), one dimension at a time, as PyTorch's own indexing does."""

from . import _bridge as B
from ._tensor import Tensor

call = B.call_engine


def _parts(index):
    if not isinstance(index, tuple):
        index = (index,)
    if any(isinstance(i, (Tensor, list)) for i in index):
        raise NotImplementedError("hookgrad does not implement indexing with a tensor or a list yet")
    n_ell = sum(1 for i in index if i is Ellipsis)
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    return index


def _getitem(self, index):
    lone_slice = isinstance(index, slice)  # `x[:]` is a SliceBackward0 even when whole
    index = _parts(index)
    ndim = self.dim()
    used = sum(1 for i in index if i is not None and i is not Ellipsis)
    if used > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    t, dim, orig = self, 0, 0  # orig: the dimension of `self` PyTorch names in errors
    for i in index:
        if i is Ellipsis:
            dim += ndim - used
            orig += ndim - used
            continue
        if i is None:
            t = Tensor._wrap(call(t._h.unsqueeze, dim), self._dtype)
            dim += 1
            continue
        if isinstance(i, bool):
            raise NotImplementedError("hookgrad does not implement indexing with a bool yet")
        if isinstance(i, int) or hasattr(i, "__index__") and not isinstance(i, slice):
            i = int(i.__index__()) if not isinstance(i, int) else i
            size = t._h.shape[dim]
            if i < -size or i >= size:
                raise IndexError(f"index {i} is out of bounds for dimension {orig} with size {size}")
            t = Tensor._wrap(call(t._h.select, dim, i), self._dtype)
            orig += 1
            continue
        if isinstance(i, slice):
            step = 1 if i.step is None else int(i.step)
            if step <= 0:
                raise ValueError("step must be greater than zero")
            size = t._h.shape[dim]
            start, stop, _ = i.indices(size)
            if start == 0 and stop >= size and step == 1 and not lone_slice:
                # PyTorch's indexing skips a slice that keeps the whole dimension
                dim += 1
                orig += 1
                continue
            t = Tensor._wrap(call(t._h.slice, dim, start, max(stop, start), step), self._dtype)
            dim += 1
            orig += 1
            continue
        raise IndexError(
            "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices "
            f"(got {type(i).__name__})"
        )
    if t is self:
        # nothing but whole slices and `...`: PyTorch returns x.alias() (AliasBackward0)
        t = Tensor._wrap(call(self._h.alias), self._dtype)
    return t


def _setitem(self, index, value):
    view = _getitem(self, index)
    if isinstance(value, Tensor):
        view.copy_(value)
    else:
        view.fill_(value)


Tensor.__getitem__ = _getitem
Tensor.__setitem__ = _setitem
Tensor.select = lambda self, dim, index: Tensor._wrap(call(self._h.select, dim, index), self._dtype)
Tensor.narrow = lambda self, dim, start, length: Tensor._wrap(call(self._h.slice, dim, start, start + length, 1), self._dtype)
