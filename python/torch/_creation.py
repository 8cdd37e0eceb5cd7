"""Creating tensors: `torch.tensor`, `zeros`, `rand`, ... — values made here
(from the data given, or from PyTorch's generator in _random) and handed to
the engine as one constant (or leaf) tensor."""

import math
import struct

from . import _bridge as B
from . import _dtype as D
from . import _random
from ._bridge import js
from ._tensor import Tensor


def _f32(x):
    """x rounded to float32 (PyTorch's float kernels compute in float32)."""
    return struct.unpack("f", struct.pack("f", x))[0]


def from_flat(values, shape, dtype=D.float32, requires_grad=False):
    if requires_grad and not dtype.is_floating_point:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    h = B.call_engine(js.fromFlat, values, js.array(*shape), bool(requires_grad))
    t = Tensor._wrap(h, dtype)
    if requires_grad:
        B.remember(t)
    return t


def _infer(data, leading=True, top=True):
    """(flat values, shape, dtype PyTorch infers) of nested Python data.

    `leading`: every index on the way here was 0. PyTorch sizes the tensor
    by walking first elements, where a string counts as one more dimension
    ("too many dimensions"); elsewhere, and alone, it is a bad element."""
    if isinstance(data, Tensor):
        return data._values(), tuple(data.shape), data.dtype
    if isinstance(data, bool):
        return [1.0 if data else 0.0], (), D.bool_
    if isinstance(data, int):
        return [data], (), D.int64
    if isinstance(data, float):
        return [data], (), D.float32
    if isinstance(data, (str, bytes)):
        if leading and not top:
            raise ValueError(f"too many dimensions '{type(data).__name__}'")
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if not isinstance(data, (list, tuple)):
        if hasattr(data, "__float__"):
            return [float(data)], (), D.float32
        raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")
    if len(data) == 0:
        return [], (0,), D.float32
    parts = [_infer(x, leading and i == 0, False) for i, x in enumerate(data)]
    shape0 = parts[0][1]
    for p in parts:
        if p[1] != shape0:
            raise ValueError(f"expected sequence of length {shape0[0] if shape0 else 0} at dim 1 (got {p[1][0] if p[1] else 0})")
    dtype = parts[0][2]
    for p in parts[1:]:
        dtype = D.promote(dtype, p[2])
    flat = []
    for p in parts:
        flat.extend(p[0])
    return flat, (len(data),) + shape0, dtype


def _as_dtype(values, dtype):
    if dtype is D.bool_:
        return [1.0 if v else 0.0 for v in values]
    if not dtype.is_floating_point:
        return [float(math.trunc(v)) for v in values]
    return [float(v) for v in values]


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    D.check_device(device)
    if isinstance(data, Tensor):
        from . import _warnings

        _warnings.copy_construct()
    values, shape, inferred = _infer(data)
    dtype = dtype or inferred
    t = from_flat(_as_dtype(values, dtype), shape, dtype, requires_grad)
    if D.is_int(dtype) and any(abs(v) > 2 ** 24 for v in values):
        keep_exact(t, [int(v) for v in values])
    return t


def keep_exact(t, ints):
    """Integers beyond float32's exact range, as given: the engine computes
    on float32, so printing and item() read these instead (until the tensor
    is changed in place)."""
    t.__dict__["_exact"] = ints
    return t


def scalar_like(x, t):
    """`x` (a number) as a 0-d constant, for `2 - t` and `2 / t`."""
    return from_flat([float(x)], (), D.result_type(t.dtype, x) if not isinstance(x, Tensor) else x.dtype)


def _size(args, kwargs_size=None):
    if kwargs_size is not None:
        args = (kwargs_size,)
    if len(args) == 1 and isinstance(args[0], (tuple, list, D.Size)):
        args = tuple(args[0])
    for a in args:
        if not isinstance(a, int):
            raise TypeError(f"zeros(): argument 'size' must be tuple of ints, but found element of type {type(a).__name__}")
        if a < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {a}: {list(args)}")
    return tuple(args)


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False):
    D.check_device(device)
    shape = _size((size,) if isinstance(size, int) else (tuple(size),))
    if dtype is None:
        dtype = D.bool_ if isinstance(fill_value, bool) else D.int64 if isinstance(fill_value, int) else D.float32
    return from_flat(_as_dtype([float(fill_value)] * _numel(shape), dtype), shape, dtype, requires_grad)


def zeros(*size, dtype=None, device=None, requires_grad=False, out=None):
    D.check_device(device)
    shape = _size(size)
    return from_flat([0.0] * _numel(shape), shape, dtype or D.float32, requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False, out=None):
    D.check_device(device)
    shape = _size(size)
    return from_flat([1.0] * _numel(shape), shape, dtype or D.float32, requires_grad)


def empty(*size, dtype=None, device=None, requires_grad=False):
    # PyTorch leaves the memory uninitialised; zeros are one of its possible contents.
    return zeros(*size, dtype=dtype, device=device, requires_grad=requires_grad)


def zeros_like(t, *, dtype=None, requires_grad=False, device=None):
    return zeros(*t.shape, dtype=dtype or t.dtype, requires_grad=requires_grad)


def ones_like(t, *, dtype=None, requires_grad=False, device=None):
    return ones(*t.shape, dtype=dtype or t.dtype, requires_grad=requires_grad)


def full_like(t, fill_value, *, dtype=None, requires_grad=False, device=None):
    return full(tuple(t.shape), fill_value, dtype=dtype or t.dtype, requires_grad=requires_grad)


def empty_like(t, **kw):
    return zeros_like(t, **kw)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False):
    m = n if m is None else m
    vals = [1.0 if i == j else 0.0 for i in range(n) for j in range(m)]
    return from_flat(vals, (n, m), dtype or D.float32, requires_grad)


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False):
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    n = max(0, math.ceil((end - start) / step))
    is_int = all(isinstance(v, int) for v in (start, end, step))
    dtype = dtype or (D.int64 if is_int else D.float32)
    vals = [float(start + i * step) for i in range(n)]
    return from_flat(_as_dtype(vals, dtype), (n,), dtype, requires_grad)


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False):
    # PyTorch's CPU kernel: the first half counts up from start, the second
    # half down from end (so both ends are exact), in float32.
    f = _f32
    vals = []
    if steps == 1:
        vals = [float(start)]
    elif steps > 1:
        start, end = f(start), f(end)
        step = f(f(end - start) / (steps - 1))
        half = steps // 2
        # one rounding per value: the kernel's multiply-add is fused
        vals = [f(start + step * i) if i < half else f(end - step * (steps - i - 1)) for i in range(steps)]
    return from_flat(vals, (steps,), dtype or D.float32, requires_grad)


def rand(*size, generator=None, dtype=None, device=None, requires_grad=False):
    shape = _size(size)
    dtype = dtype or D.float32
    return from_flat(_random.rand(_numel(shape), dtype.name, generator=generator), shape, dtype, requires_grad)


def randn(*size, generator=None, dtype=None, device=None, requires_grad=False):
    shape = _size(size)
    dtype = dtype or D.float32
    return from_flat(_random.randn(_numel(shape), dtype.name, generator=generator), shape, dtype, requires_grad)


def randint(low, high=None, size=None, *, generator=None, dtype=None, device=None, requires_grad=False):
    if size is None and isinstance(high, (tuple, list)):
        low, high, size = 0, low, high  # randint(high, size)
    if high is None:
        low, high = 0, low
    if size is None:
        raise TypeError("randint() missing 1 required positional arguments: \"size\"")
    shape = _size((tuple(size),))
    vals = [float(v) for v in _random.randint(low, high, _numel(shape), generator=generator)]
    return from_flat(vals, shape, dtype or D.int64, requires_grad)


def rand_like(t, **kw):
    return rand(*t.shape, **kw)


def randn_like(t, **kw):
    return randn(*t.shape, **kw)


def legacy_new(*args, **kwargs):
    """`torch.Tensor(data)` / `torch.FloatTensor(2, 3)`: data -> float32 copy;
    sizes -> an uninitialised tensor (zeros here)."""
    if kwargs:
        raise TypeError("new() received an invalid combination of arguments")
    if not args:
        return from_flat([], (0,), D.float32)
    if len(args) == 1 and isinstance(args[0], (list, tuple, Tensor)):
        values, shape, _ = _infer(args[0])
        return from_flat(values, shape, D.float32)
    if all(isinstance(a, int) for a in args):
        return zeros(*args)
    raise TypeError("new(): data must be a sequence (got " + type(args[0]).__name__ + ")")
