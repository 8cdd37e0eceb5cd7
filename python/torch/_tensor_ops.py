"""Tensor's operators and methods: each is one engine call (or, for what
carries no gradient — comparisons, integer results — a new constant tensor
from the values, as PyTorch's comparison results have no graph)."""

from . import _bridge as B
from . import _dtype as D
from ._bridge import js
from ._missing import Missing
from ._tensor import Tensor, _dim, _operand

call = B.call_engine


def _binary(method):
    # The hot path of every program: one FFI call without arguments through a
    # JS function held here, its operands in the registers (_bridge.R/F);
    # dtypes decided without a call when both sides are alike.
    jsop_r = js.op_r(method)  # (R[0], R[1]) -> id
    jsop_nr = js.op_nr(method)  # (R[0], F[0]) -> id
    R, F = B.R, B.F
    is_div = method == "div"
    new = object.__new__
    f32 = D.float32

    def op(self, other):
        t = type(other)
        d = self._dtype
        if t is float:
            if not d.is_floating_point:
                d = f32
        elif t is Tensor or isinstance(other, Tensor):
            if other._dtype is not d:
                d = D.promote(d, other._dtype)
        elif t is int and d.is_floating_point:
            other = float(other)  # an integer scalar never changes a floating tensor's dtype
        elif t is int or t is bool:
            d = D.result_type(d, other)
            other = float(other)
        elif t is list or t is tuple:
            other = _operand_tensor(other)
            if other._dtype is not d:
                d = D.promote(d, other._dtype)
        else:
            return NotImplemented  # Python then raises its TypeError
        try:
            a = self._i or self._id()
            if type(other) is float:
                R[0] = a
                F[0] = other
                r = jsop_nr()
            else:
                b = other._i or other._id()
                R[0] = a
                R[1] = b
                r = jsop_r()
        except B.JsException as e:
            raise B.translate(e) from None
        if is_div and not d.is_floating_point:
            d = f32
        out = new(Tensor)
        out._i = r
        out._hc = None
        out._dtype = d
        return out

    return op


for _name, _py in (("add", "add"), ("sub", "sub"), ("mul", "mul"), ("div", "truediv")):
    _op = _binary(_name)
    setattr(Tensor, _name, _op)
    setattr(Tensor, f"__{_py}__", _op)
Tensor.__div__ = Tensor.__truediv__
Tensor.true_divide = Tensor.div
Tensor.multiply = Tensor.mul
Tensor.subtract = Tensor.sub


def _radd(self, other):
    return self.add(other) if isinstance(other, (int, float)) else _operand_tensor(other).add(self)


def _rmul(self, other):
    return self.mul(other) if isinstance(other, (int, float)) else _operand_tensor(other).mul(self)


def _rsub(self, other):
    if isinstance(other, (int, float)) and not isinstance(other, bool):
        # PyTorch: `2 - t` is torch.rsub(t, 2) (RsubBackward1)
        return Tensor._wrap(call(self._h.rsub, other), D.result_type(self._dtype, other))
    return _operand_tensor(other).sub(self)


def _rdiv(self, other):
    if isinstance(other, (int, float)) and not isinstance(other, bool):
        # PyTorch's __rtruediv__: self.reciprocal() * other (MulBackward0 over ReciprocalBackward0)
        d = self._dtype if self._dtype.is_floating_point else D.float32
        return Tensor._wrap(call(self._h.reciprocal), d).mul(other)
    return _operand_tensor(other).div(self)


def _reciprocal(self):
    d = self._dtype if self._dtype.is_floating_point else D.float32
    return Tensor._wrap(call(self._h.reciprocal), d)


Tensor.reciprocal = _reciprocal


def _operand_tensor(other):
    from ._creation import tensor

    return other if isinstance(other, Tensor) else tensor(other)


Tensor.__radd__ = _radd
Tensor.__rmul__ = _rmul
Tensor.__rsub__ = _rsub
Tensor.__rtruediv__ = _rdiv


_plain_add, _plain_sub = Tensor.__add__, Tensor.__sub__


def _add(self, other, *, alpha=1):
    return _plain_add(self, other if alpha == 1 else other * alpha)


def _sub(self, other, *, alpha=1):
    return _plain_sub(self, other if alpha == 1 else other * alpha)


Tensor.add = _add
Tensor.sub = _sub


def _pow(self, exponent):
    if isinstance(exponent, Tensor):
        return Tensor._wrap(call(js.powTensor, self._h, exponent._h), D.result_type(self._dtype, exponent._dtype))
    return Tensor._wrap(call(self._h.pow, _num(exponent)), D.result_type(self._dtype, exponent))


def _rpow(self, base):
    return Tensor._wrap(call(js.rpow, _num(base), self._h), D.result_type(self._dtype, base))


def _num(x):
    return float(x) if isinstance(x, bool) else x


Tensor.pow = _pow
Tensor.__pow__ = _pow
Tensor.__rpow__ = _rpow


def _neg(self):
    return Tensor._wrap(call(self._h.neg), self._dtype)


Tensor.neg = _neg
Tensor.__neg__ = _neg
Tensor.negative = _neg
Tensor.__pos__ = lambda self: self


def _matmul(self, other):
    if not isinstance(other, Tensor):
        raise TypeError(f"matmul(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")
    return Tensor._wrap(call(self._h.matmul, other._h), D.promote(self._dtype, other._dtype))


Tensor.matmul = _matmul
Tensor.__matmul__ = _matmul
Tensor.__rmatmul__ = lambda self, other: _operand_tensor(other).matmul(self)


def _mm(self, other):
    if self.dim() != 2:
        raise RuntimeError("self must be a matrix")
    if other.dim() != 2:
        raise RuntimeError("mat2 must be a matrix")
    return _matmul(self, other)


Tensor.mm = _mm


# ----- in place ----------------------------------------------------------------
def _inplace(method):
    def op(self, other, *, alpha=1):
        if isinstance(other, (int, float)) and alpha != 1:
            other = other * alpha
        elif alpha != 1:
            other = other * alpha
        h, _ = _operand(other)
        _drop(call(getattr(self._h, method), h), self)
        return self

    return op


for _name in ("add_", "sub_", "mul_", "div_"):
    setattr(Tensor, _name, _inplace(_name))
Tensor.__iadd__ = Tensor.add_
Tensor.__isub__ = Tensor.sub_
Tensor.__imul__ = Tensor.mul_
Tensor.__itruediv__ = Tensor.div_


def _drop(r, t):
    """An in-place op returns its tensor as a new JS handle: Python returns
    `t` itself, so that handle is released now (not at some later GC). Exact
    integers kept from creation no longer hold after an in-place change."""
    if t.__dict__:
        t.__dict__.pop("_exact", None)
    if r is not None and r is not B.jsnull and not js.same(r, t._h):
        r.dispose()


def _zero_(self):
    _drop(call(self._h.zero_), self)
    return self


def _fill_(self, value):
    _drop(call(self._h.fill_, float(value.item() if isinstance(value, Tensor) else value)), self)
    return self


def _copy_(self, src, non_blocking=False):
    src = _operand_tensor(src)
    _drop(call(self._h.copy_, src._h), self)
    return self


def _relu_(self):
    _drop(call(self._h.relu_), self)
    return self


Tensor.zero_ = _zero_
Tensor.relu_ = _relu_
Tensor.fill_ = _fill_
Tensor.copy_ = _copy_


# ----- comparisons: bool tensors without a graph (as in PyTorch) ----------------
def _compare(test):
    def op(self, other):
        from ._creation import from_flat

        a = self._values()
        if isinstance(other, Tensor):
            b = other._values()
            shape = _broadcast(tuple(self._h.shape), tuple(other._h.shape))
            a, b = _expand_vals(a, tuple(self._h.shape), shape), _expand_vals(b, tuple(other._h.shape), shape)
        elif isinstance(other, (int, float)):
            shape, b = tuple(self._h.shape), [float(other)] * len(a)
        else:
            return NotImplemented
        return from_flat([1.0 if test(x, y) else 0.0 for x, y in zip(a, b)], shape, D.bool_)

    return op


_CMP = {
    "eq": lambda x, y: x == y, "ne": lambda x, y: x != y, "lt": lambda x, y: x < y,
    "le": lambda x, y: x <= y, "gt": lambda x, y: x > y, "ge": lambda x, y: x >= y,
}
for _name, _test in _CMP.items():
    _f = _compare(_test)
    setattr(Tensor, _name, _f)
    setattr(Tensor, f"__{_name}__", _f)
Tensor.__hash__ = lambda self: id(self)
Tensor.greater = Tensor.gt
Tensor.less = Tensor.lt


def _broadcast(a, b):
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    out = []
    for x, y in zip(a, b):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton dimension {len(out)}")
        out.append(max(x, y))
    return tuple(out)


def _expand_vals(vals, shape, to):
    if shape == to:
        return vals
    shape = (1,) * (len(to) - len(shape)) + shape
    out = []
    strides = [0] * len(shape)
    s = 1
    for i in range(len(shape) - 1, -1, -1):
        strides[i] = 0 if shape[i] == 1 else s
        s *= shape[i]
    total = 1
    for d in to:
        total *= d
    for flat in range(total):
        rem, off = flat, 0
        for i in range(len(to) - 1, -1, -1):
            off += (rem % to[i]) * strides[i]
            rem //= to[i]
        out.append(vals[off])
    return out


# ----- elementwise math ----------------------------------------------------------
def _unary(method):
    jsop_r = js.unary_op_r(method)  # R[0] -> id: one FFI call without arguments per use
    R = B.R
    keeps_int = method in ("abs", "relu")
    new = object.__new__

    def op(self):
        d = self._dtype
        if not d.is_floating_point and not keeps_int:
            d = D.float32
        try:
            a = self._i or self._id()
            R[0] = a
            r = jsop_r()
        except B.JsException as e:
            raise B.translate(e) from None
        out = new(Tensor)
        out._i = r
        out._hc = None
        out._dtype = d
        return out

    return op


for _name in ("exp", "log", "sin", "cos", "tanh", "sigmoid", "relu", "abs", "sqrt"):
    setattr(Tensor, _name, _unary(_name))
Tensor.__abs__ = Tensor.abs


def _clamp(self, min=None, max=None):
    return Tensor._wrap(call(js.clamp, self._h, min, max), self._dtype)


Tensor.clamp = _clamp
Tensor.clip = _clamp


def _clamp_(self, min=None, max=None):
    # Where no graph records it (a .grad, .data, or under no_grad: what
    # gradient clipping and weight constraints do), clamp_ is the clamped
    # values copied in: the same values and one version bump, as PyTorch's.
    # With a graph it would need ClampBackward1 over the in-place op.
    from .autograd.grad_mode import is_grad_enabled

    if self.requires_grad and is_grad_enabled():
        raise NotImplementedError("hookgrad does not implement torch.Tensor.clamp_ on a tensor that requires grad "
                                  "outside torch.no_grad() yet")
    return self.copy_(self.clamp(min, max))


Tensor.clamp_ = _clamp_
Tensor.clip_ = _clamp_


def _softmax(method, name):
    def op(self, dim=None, dtype=None):
        if dim is None:
            # PyTorch's own words ("arguments").
            raise TypeError(f"{name}() missing 1 required positional arguments: \"dim\"")
        return Tensor._wrap(call(getattr(self._h, method), _dim(dim, max(self.dim(), 1))))

    return op


Tensor.softmax = _softmax("softmax", "softmax")
Tensor.log_softmax = _softmax("logSoftmax", "log_softmax")


# ----- reductions -------------------------------------------------------------------
def _reduce(method):
    def op(self, dim=None, keepdim=False, *, dtype=None):
        if method == "mean" and not self._dtype.is_floating_point:
            raise RuntimeError(
                "mean(): could not infer output dtype. Input dtype must be either a floating point or "
                f"complex dtype. Got: {_type_name(self._dtype)}"
            )
        if dim is None:
            r = call(getattr(self._h, method))
        else:
            dims = [dim] if isinstance(dim, int) else list(dim)
            if len(dims) > 1:  # the engine reduces over one dim (SumBackward1 over several is not built)
                raise NotImplementedError(f"hookgrad does not implement torch.{method} over several dims yet")
            r = call(js.reduce, self._h, method, js.array(*[_dim(d, max(self.dim(), 1)) for d in dims]), bool(keepdim))
        return Tensor._wrap(r, D.int64 if method == "sum" and not self._dtype.is_floating_point else self._dtype)

    return op


def _type_name(d):
    return {"int64": "Long", "int32": "Int", "bool": "Bool", "float64": "Double"}.get(d.name, d.name)


Tensor.sum = _reduce("sum")
Tensor.mean = _reduce("mean")


def _extreme(method, node_kind):
    def op(self, dim=None, keepdim=False):
        if isinstance(dim, Tensor):
            raise NotImplementedError(f"hookgrad does not implement torch.{method}(Tensor, Tensor) yet")
        if dim is None:
            return Tensor._wrap(call(getattr(self._h, method)), self._dtype)
        res = call(getattr(self._h, method), _dim(dim, max(self.dim(), 1)), bool(keepdim))
        from .return_types import minmax

        return minmax(method, Tensor._wrap(res.values, self._dtype), Tensor._wrap(res.indices, D.int64))

    return op


Tensor.max = _extreme("max", 0)
Tensor.min = _extreme("min", 0)


def _arg_extreme(method):
    # The indices max(dim)/min(dim) give (the first extreme of each row, as
    # PyTorch's argmax/argmin), of a detached tensor: no node for a result
    # that is only indices. Without dim: the index into the flattened tensor.
    def op(self, dim=None, keepdim=False):
        t = self.detach()
        if dim is None:
            idx = getattr(t.reshape(-1), method)(0).indices
            return idx.reshape([1] * self.dim()) if keepdim else idx
        return getattr(t, method)(dim, keepdim).indices

    op.__name__ = "arg" + method
    return op


Tensor.argmax = _arg_extreme("max")
Tensor.argmin = _arg_extreme("min")


def _norm(self, p="fro", dim=None, keepdim=False, dtype=None):
    if p == "fro":
        p = 2
    dims = None if dim is None else js.array(*([dim] if isinstance(dim, int) else list(dim)))
    return Tensor._wrap(call(js.norm, self._h, float(p), dims, bool(keepdim)), self._dtype)


Tensor.norm = _norm


# Shapes, views and random fills live in _tensor_views; indexing in _indexing.
from . import _tensor_views  # noqa: E402,F401
from . import _indexing  # noqa: E402,F401
from . import _tensor_logic  # noqa: E402,F401 (& | ^ ~, logical_*)


def _lacking(op, example):
    def method(self, *args, **kwargs):
        raise Missing(f"hookgrad does not implement {op} ({example}) yet")

    return method


# Without these, `t // 2` and `t % 2` would end in Python's TypeError
# ("unsupported operand type(s)"), which says nothing about hookgrad.
for _name in ("__floordiv__", "__rfloordiv__", "__ifloordiv__"):
    setattr(Tensor, _name, _lacking("torch.floor_divide", "t // x"))
for _name in ("__mod__", "__rmod__", "__imod__"):
    setattr(Tensor, _name, _lacking("torch.remainder", "t % x"))

from . import _tensor_logic  # noqa: E402,F401 (& | ^ ~ and logical_*)
