"""`torch.Tensor`: a Python object owning one engine tensor handle.

Every operation is one engine call (the JS API's method of the same meaning);
the result's dtype follows PyTorch's promotion (the engine itself is float32).
The handle is released when CPython frees the object (reference counting: at
once), so a Python training loop stays flat without `hg.tidy`.
"""

from . import _bridge as B
from . import _dtype as D
from . import _tensor_str as S
from ._bridge import js


_dispose = js.dispose
_get, _put, _release_r = js.tget, js.tput, js.trelease_r
_R = B.R
_collecting, _released = B.collecting, B.released


def _num(x):
    """A Python number as the engine takes it (bool is a number there)."""
    return float(x) if isinstance(x, bool) else x


def _operand(other):
    """(engine operand, dtype-or-number for promotion) of an op's other side."""
    if isinstance(other, Tensor):
        return other._h, other._dtype
    if isinstance(other, (int, float)):
        return _num(other), other
    from ._creation import tensor

    t = tensor(other)
    _last_operand[0] = t  # alive until the engine call that takes its handle
    return t._h, t._dtype


_last_operand = [None]


class Tensor:
    # The engine handle is held two ways (both the same JS object): `_i`, its
    # index in the JS-side table of python-helpers.js, which the hot paths
    # (arithmetic) pass across the FFI as a plain number; and `_hc`, a Pyodide
    # proxy of it, made when first needed by the other methods (`_h`).
    # Returning a proxy from JS costs several times returning a number.
    __slots__ = ("_i", "_hc", "_dtype", "__dict__", "__weakref__")

    def __new__(cls, *args, **kwargs):
        # torch.Tensor(data) / torch.Tensor(2, 3): the legacy constructor.
        from ._creation import legacy_new

        if cls is not Tensor and not args and not kwargs:
            return object.__new__(cls)
        return legacy_new(*args, **kwargs)

    @classmethod
    def _wrap(cls, h, dtype=None):
        t = object.__new__(cls)
        t._i = 0
        t._hc = h
        t._dtype = dtype or D.float32
        return t

    def __getattr__(self, name):
        from ._missing import tensor_attr

        tensor_attr(self, name)

    @property
    def _h(self):
        h = self._hc
        if h is None:
            h = self._hc = _get(self._i)
        return h

    def _id(self):
        i = self._i
        if not i:
            i = self._i = _put(self._hc)
        return i

    def __del__(self):
        try:
            i = self._i
            if i:
                if _collecting[0]:
                    _released.append(i)  # B.release_returned releases it
                    return
                _R[3] = i  # R[3]: never an op's operand (see python-helpers.js)
                _release_r()
            elif self._hc is not None:  # (None: its handle went with a hook's return)
                _dispose(self._hc)
        except Exception:
            pass

    def _new(self, h, dtype=None):
        return Tensor._wrap(h, dtype or self._dtype)

    # ----- printing (torch/_tensor_str.py's rules, in _tensor_str) ------------
    def _values(self):
        exact = self.__dict__.get("_exact") if self.__dict__ else None
        if exact is not None:
            return exact
        return js.flat(self._h).to_py().tolist()

    def __repr__(self, *, tensor_contents=None):
        gf = self._h.gradFn
        name = None if gf is None or gf is B.jsnull else str(gf.name)
        return S.tensor_repr(self._values(), tuple(self._h.shape), self._dtype.name,
                             requires_grad=bool(self._h.requiresGrad), grad_fn=name)

    __str__ = __repr__

    def __format__(self, spec):
        # PyTorch: a plain 0-d Tensor formats as its Python number (f'{t}' -> '30.0')
        if self.dim() == 0 and type(self) is Tensor:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    # ----- shape and metadata ------------------------------------------------
    @property
    def shape(self):
        return D.Size(self._h.shape)

    def size(self, dim=None):
        s = self.shape
        if dim is None:
            return s
        return s[_dim(dim, len(s))]

    def dim(self):
        return len(self._h.shape)

    ndim = property(dim)

    def ndimension(self):
        return self.dim()

    def numel(self):
        return self.shape.numel()

    nelement = numel

    @property
    def dtype(self):
        return self._dtype

    @property
    def device(self):
        return D.device("cpu")

    @property
    def is_cuda(self):
        return False

    def stride(self, dim=None):
        s = tuple(self._h.stride())
        return s if dim is None else s[_dim(dim, len(s))]

    def is_contiguous(self, memory_format=None):
        return bool(self._h.isContiguous())

    def is_floating_point(self):
        return self._dtype.is_floating_point

    def element_size(self):
        return self._dtype.itemsize

    @property
    def _version(self):
        return int(self._h.version)

    @property
    def name(self):
        n = self._h.name
        return None if n is None or n is B.jsnull else str(n)

    def __len__(self):
        if self.dim() == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._h.shape[0]

    def __hash__(self):
        return id(self)

    # ----- values --------------------------------------------------------------
    def item(self):
        n = self.numel()
        if n != 1:
            raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
        exact = self.__dict__.get("_exact") if self.__dict__ else None
        if exact is not None:
            return exact[0]
        v = B.call_engine(self._h.item)
        return _py_scalar(v, self._dtype)

    def tolist(self):
        vals = self._values()
        if self._dtype is not D.float32 and self._dtype is not D.float64:
            vals = [_py_scalar(v, self._dtype) for v in vals]
        return _nest(vals, tuple(self._h.shape))

    def __bool__(self):
        if self.numel() != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if D.is_int(self._dtype) and self.numel() == 1:
            return int(self.item())
        raise TypeError("only integer tensors of a single element can be converted to an index")

    def __iter__(self):
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        # PyTorch iterates over unbind(0): each element has UnbindBackward0
        return iter(self.unbind(0))

    # ----- autograd attributes -------------------------------------------------
    @property
    def requires_grad(self):
        return bool(self._h.requiresGrad)

    @requires_grad.setter
    def requires_grad(self, flag):
        self.requires_grad_(flag)

    def requires_grad_(self, requires_grad=True):
        if requires_grad and not self._dtype.is_floating_point:
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        if not self.is_leaf and not requires_grad:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a computed "
                "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
            )
        B.call_engine(js.setRequiresGrad, self._h, bool(requires_grad))
        B.remember(self)
        return self

    @property
    def is_leaf(self):
        return bool(self._h.isLeaf)

    @property
    def grad_fn(self):
        from .autograd.graph import Node

        return Node._wrap(self._h.gradFn)

    @property
    def grad(self):
        # a non-leaf's .grad warning is the engine's (through _warnings.engine_warning)
        g = js.getGrad(self._h)
        return None if g is None or g is B.jsnull else Tensor._wrap(g)

    @grad.setter
    def grad(self, value):
        B.call_engine(js.setGrad, self._h, None if value is None else value._h)

    @grad.deleter
    def grad(self):
        js.setGrad(self._h, None)

    @property
    def retains_grad(self):
        return bool(self._h.retainsGrad)

    def retain_grad(self):
        r = B.call_engine(self._h.retainGrad)
        if r is not None and r is not B.jsnull and hasattr(r, "dispose") and not js.same(r, self._h):
            r.dispose()

    @property
    def data(self):
        # PyTorch's .data: no history, and a version counter of its own
        return Tensor._wrap(self._h.data, self._dtype)

    @data.setter
    def data(self, value):
        from .autograd.grad_mode import no_grad

        with no_grad():
            self.copy_(value)

    def detach(self):
        return self._new(B.call_engine(self._h.detach))

    def detach_(self):
        B.call_engine(self._h.detach_)
        return self

    # backward, register_hook and register_post_accumulate_grad_hook are
    # defined by torch.autograd (autograd/__init__.py, autograd/hooks.py).

    # ----- conversions that are the identity on a CPU float32 tensor -----------
    def cpu(self):
        return self

    def cuda(self, *args, **kwargs):
        raise AssertionError("Torch not compiled with CUDA enabled")

    def to(self, *args, **kwargs):
        target = kwargs.get("dtype")
        for a in args:
            if isinstance(a, D.dtype):
                target = a
            elif isinstance(a, (str, D.device)):
                D.check_device(a)
        D.check_device(kwargs.get("device"))
        return self if target is None or target is self._dtype else _cast(self, target)

    def type(self, dtype=None):
        if dtype is None:
            return {"float32": "torch.FloatTensor", "float64": "torch.DoubleTensor", "int64": "torch.LongTensor",
                    "bool": "torch.BoolTensor", "int32": "torch.IntTensor"}.get(self._dtype.name, "torch.Tensor")
        return self.to(dtype)

    def float(self):
        return self.to(D.float32)

    def double(self):
        return self.to(D.float64)

    def long(self):
        return self.to(D.int64)

    def int(self):
        return self.to(D.int32)

    def bool(self):
        return self.to(D.bool_)

    def numpy(self):
        raise NotImplementedError("hookgrad does not implement torch.Tensor.numpy yet")


def _cast(t, dtype):
    """A copy of `t` as `dtype` (values rounded toward zero for integer types,
    as PyTorch's conversion does); the result has no graph, as an integer
    cast has none in PyTorch. A float-to-float cast keeps the graph (ToCopyBackward0
    is not modelled: it is the same values)."""
    if dtype.is_floating_point and t._dtype.is_floating_point:
        return Tensor._wrap(B.call_engine(t._h.clone), dtype)
    vals = t._values()
    if dtype is D.bool_:
        vals = [1.0 if v != 0 else 0.0 for v in vals]
    elif not dtype.is_floating_point:
        vals = [float(int(v)) for v in vals]
    from ._creation import from_flat

    return from_flat(vals, tuple(t._h.shape), dtype)


def _py_scalar(v, dtype):
    if dtype is D.bool_:
        return bool(v)
    if not dtype.is_floating_point:
        return int(v)
    return float(v)


def _nest(vals, shape):
    if not shape:
        return vals[0]
    if len(shape) == 1:
        return list(vals)
    step = len(vals) // shape[0] if shape[0] else 0
    return [_nest(vals[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def _dim(d, n):
    lo, hi = (-n, n - 1) if n else (-1, 0)
    if d < lo or d > hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {d})")
    return d + n if d < 0 else d


# The operator and method tables live in _tensor_ops (one idea per file).
from . import _tensor_ops  # noqa: E402,F401

B._Tensor = Tensor  # the tensor-hook dispatcher's class (_bridge cannot import it)


# PyTorch prints the class as <class 'torch.Tensor'>.
Tensor.__module__ = "torch"
