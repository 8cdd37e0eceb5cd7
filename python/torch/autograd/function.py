"""`torch.autograd.Function`: the user's forward runs here under no_grad, then
the engine gives its tensor outputs one `<Name>Backward` node
(`hg.applyCustomFunction`, crate/core/src/custom_function.rs). The engine
calls the user's backward when that node runs; it routes and checks the
gradients backward returns. In PyTorch the node *is* the ctx; here
`y.grad_fn` is a node object that reads and writes the ctx's attributes
(`y.grad_fn.saved_tensors`, `y.grad_fn.k`) and prints as the ctx does, but
is not the same object (see BackwardCFunction)."""

import functools
import warnings
import weakref

from .. import _bridge as B
from . import graph as _graph
from .grad_mode import no_grad


class FunctionCtx:
    def save_for_backward(self, *tensors):
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        self.saved_for_forward = tensors

    def mark_dirty(self, *args):
        raise NotImplementedError("hookgrad does not implement ctx.mark_dirty (in-place custom Functions) yet")

    def mark_non_differentiable(self, *args):
        self.non_differentiable = args

    def set_materialize_grads(self, value):
        self.materialize_grads = value

    @property
    def saved_tensors(self):
        d = self.__dict__.get("_ctx", self).__dict__
        saved = d.get("_saved")
        if saved is None:
            # Before backward: the saved objects themselves, while they live
            # (held weakly: an output holds the node, which holds this ctx).
            weak = d.get("_saved_weak")
            if weak is None:
                return tuple(d.get("to_save", ()))
            return tuple(None if w is None else w() for w in weak)
        return saved

    saved_variables = saved_tensors


class BackwardCFunction(FunctionCtx, _graph.Node):
    """The node class of a custom Function (`MyFnBackward`). Two kinds of
    instance: the ctx (forward's and backward's, owned by the engine node
    through its backward callable) and the `grad_fn` objects the program
    gets, which hold the node's handle and read and write the ctx's
    attributes. The ctx holds no node handle: that would be a cycle (node →
    callable → ctx → node) no collector can see into."""

    def __repr__(self):
        nid = self.__dict__.get("_nid")
        addr = hex(0x7F0000000000 + nid * 0x70) if nid is not None else hex(id(self))
        return f"<torch.autograd.function.{type(self).__name__} object at {addr}>"

    def __getattr__(self, name):
        ctx = self.__dict__.get("_ctx")
        if ctx is None:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        return getattr(ctx, name)

    def __setattr__(self, name, value):
        ctx = self.__dict__.get("_ctx")
        object.__setattr__(ctx if ctx is not None and not name.startswith("_n") else self, name, value)

    def __del__(self):
        h = self.__dict__.get("_nh")
        if h is not None:
            try:
                h.dispose()
            except Exception:
                pass

    # graph.Node reads the engine handle and id from these two.
    @property
    def _h(self):
        h = self.__dict__.get("_nh")
        if h is None:
            raise RuntimeError("this custom Function's node is not available from its ctx in hookgrad; "
                               "use the output's grad_fn")
        return h

    @property
    def _id(self):
        return self.__dict__["_nid"]

    @classmethod
    def _grad_fn(cls, ctx, h):
        n = object.__new__(cls)
        n.__dict__.update(_ctx=ctx, _nh=h, _nid=int(h.id))
        return n


class _SingleLevelFunction:
    @staticmethod
    def forward(*args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward


class Function(_SingleLevelFunction):
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        name = cls.__name__ + "Backward"
        backward_cls = type(name, (BackwardCFunction,), {"_forward_cls": cls})
        backward_cls.__module__ = "torch.autograd.function"
        backward_cls.__qualname__ = name
        cls._backward_cls = backward_cls

    def __init__(self, *args, **kwargs):
        warnings.warn(
            f"{self.__class__} should not be instantiated. Methods on autograd functions are all static, so you "
            "should invoke them on the class itself. Instantiating an autograd function will raise an error in a "
            "future version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use new-style autograd "
            "function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @classmethod
    def apply(cls, *args, **kwargs):
        from .._tensor import Tensor

        setup = cls.setup_context is not _SingleLevelFunction.setup_context
        if setup and kwargs:
            import inspect

            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, {}
        ctx = object.__new__(cls._backward_cls)
        ctx.to_save = ()
        ctx.non_differentiable = ()
        ctx.materialize_grads = True
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        with no_grad():
            if setup:
                out = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, out)
            else:
                out = cls.forward(ctx, *args, **kwargs)
        return _wrap_outputs(cls, ctx, args, out)


def _wrap_outputs(cls, ctx, args, out):
    from .._tensor import Tensor

    many = isinstance(out, tuple)
    outs = out if many else (out,)
    tensor_pos = [i for i, o in enumerate(outs) if isinstance(o, Tensor)]
    tensors = [outs[i] for i in tensor_pos]
    saved = tuple(ctx.to_save or ())
    for s in saved:
        if s is not None and not isinstance(s, Tensor):
            raise TypeError(f"save_for_backward can only save variables, but argument 0 is of type {type(s).__name__}")
    n_out = len(outs)
    saved_dtypes = [None if s is None else s._dtype for s in saved]

    # Captures no output (nor anything holding one): the engine node owns
    # this function, and an output holds the node.
    def backward(grads, saved_h):
        gs = B.grads_from_js(grads)
        full = [None] * n_out
        for p, g in zip(tensor_pos, gs):
            full[p] = g
        hs = iter(saved_h)
        ctx._saved = tuple(None if d is None else B.wrap_tensor(next(hs), d) for d in saved_dtypes)
        fn = cls.backward if cls.backward is not _SingleLevelFunction.backward else cls.vjp
        try:
            r = fn(ctx, *full)
        finally:
            del ctx._saved  # an unpacked output holds the node

        r = r if isinstance(r, tuple) else (r,)
        res = []
        for g in r:
            if g is None:
                res.append(None)
            elif isinstance(g, Tensor):
                res.append(B.hand_over(g))
            else:
                res.append(B.js.options("__pyType", type(g).__name__))
        return B.js.array(*res)

    opts = B.js.object()
    B.js.set(opts, "saved", B.js.array(*[s._h for s in saved if s is not None]))
    nd = [t for t in (ctx.non_differentiable or ()) if isinstance(t, Tensor)]
    B.js.set(opts, "nonDifferentiable", B.js.array(*[t._h for t in nd]))
    B.js.set(opts, "materializeGrads", bool(ctx.materialize_grads))
    js_args = B.js.array(*[a._h if isinstance(a, Tensor) else None for a in args])
    new = B.call_engine(B.hg.applyCustomFunction, cls.__name__, js_args, B.js.array(*[t._h for t in tensors]),
                        B.proxy(backward, cls.backward), opts)
    results = list(outs)
    nid = None
    for p, t, h in zip(tensor_pos, tensors, new):
        if nid is None:
            gf = h.gradFn  # a handle only to read the id: the ctx keeps none
            if gf is not None and gf is not B.jsnull:
                nid = int(gf.id)
                gf.dispose()
        if any(t is a for a in args):
            # An input returned as-is comes out a new tensor (a view of it).
            results[p] = Tensor._wrap(h, t._dtype)
        else:
            _rebind(t, h)
    # PyTorch clears these once saved (`_save_variables`): kept, they would
    # hold the outputs from the ctx.
    ctx._saved_weak = [None if s is None else weakref.ref(s) for s in saved]
    del ctx.to_save
    ctx.non_differentiable = ()
    if nid:
        ctx._nid = int(nid)
        _graph.custom_ctx[ctx._nid] = ctx
    return tuple(results) if many else results[0]


def _rebind(t, h):
    """Gives the Python output object the engine's new handle (the tensor
    with history): PyTorch sets the grad_fn on the forward's own object."""
    from .._tensor import Tensor

    old = object.__new__(Tensor)
    old._i, old._hc, old._dtype = t._i, t._hc, t._dtype
    t._i, t._hc = 0, h
    del old  # releases the old handle (Tensor.__del__)


def once_differentiable(fn):
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        with no_grad():
            return fn(ctx, *args)

    return wrapper


class InplaceFunction(Function):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace


class NestedIOFunction(Function):
    pass

