"""Backward nodes (`t.grad_fn`) and `torch.autograd.graph`'s hooks, over the
engine's nodes and hook registries."""

import weakref

from .. import _bridge as B

# One Python object per engine node while the user holds it (`c.grad_fn is
# c.grad_fn` is True in PyTorch), and its `metadata` dict for as long as the
# node lives in this run.
_nodes = weakref.WeakValueDictionary()
_metadata = {}
# A custom Function's ctx by its node's id (autograd/function.py), while the
# node (which owns it through its backward) lives.
custom_ctx = weakref.WeakValueDictionary()


class Node:
    __slots__ = ("_h", "_id", "__weakref__")

    @staticmethod
    def _wrap(h):
        if h is None or h is B.jsnull:
            return None
        nid = int(h.id)
        n = _nodes.get(nid)
        if n is not None:
            if not B.js.same(h, n._h):
                h.dispose()
            return n
        ctx = custom_ctx.get(nid)
        if ctx is not None:
            n = type(ctx)._grad_fn(ctx, h)
            _nodes[nid] = n
            return n
        n = object.__new__(_node_class(str(h.name)))
        n._h, n._id = h, nid
        _nodes[nid] = n
        return n

    def __del__(self):
        try:
            self._h.dispose()
        except Exception:
            pass

    def name(self):
        # C++-defined nodes answer with their qualified C++ name
        n = str(self._h.name)
        return _CPP_NAMES.get(n, n)

    @property
    def next_functions(self):
        return tuple((Node._wrap(n), int(nr)) for n, nr in self._h.nextFunctions)

    @property
    def variable(self):
        v = self._h.variable
        if v is None or v is B.jsnull:
            raise AttributeError(f"'{self.name()}' object has no attribute 'variable'")
        return B.wrap_tensor(v)

    @property
    def metadata(self):
        return _metadata.setdefault(self._id, {})

    def register_hook(self, fn):
        def call(grad_inputs, grad_outputs):
            gi = B.grads_from_js(grad_inputs)
            r = fn(gi, B.grads_from_js(grad_outputs))
            return None if r is None else B.grads_to_js(r, fn, len(gi))

        h = B.call_engine(self._h.registerHook, B.proxy(call, fn))
        return B.note_hook(h)

    def register_prehook(self, fn):
        def call(grad_outputs):
            go = B.grads_from_js(grad_outputs)
            r = fn(go)
            return None if r is None else B.grads_to_js(r, fn, len(go))

        h = B.call_engine(self._h.registerPrehook, B.proxy(call, fn))
        return B.note_hook(h)

    def __call__(self, *args):
        raise NotImplementedError("hookgrad does not implement calling a backward node directly yet")

    def __repr__(self):
        # A stand-in address, stable for a node (PyTorch prints the C++ object's).
        return f"<{type(self).__name__} object at {hex(0x7F0000000000 + self._id * 0x70)}>"

    def __eq__(self, other):
        return isinstance(other, Node) and other._id == self._id

    def __hash__(self):
        return hash(self._id)

_CPP_NAMES = {"AccumulateGrad": "torch::autograd::AccumulateGrad", "CopySlices": "torch::autograd::CopySlices"}
_classes = {}


def _node_class(name):
    """`type(t.grad_fn).__name__` is the node's name in PyTorch."""
    cls = _classes.get(name)
    if cls is None:
        cls = type(name, (Node,), {"__slots__": ()})
        cls.__module__ = "builtins"  # PyTorch's node classes print as <class 'MulBackward0'>
        _classes[name] = cls
    return cls


class saved_tensors_hooks:
    """`with saved_tensors_hooks(pack, unpack):` — the engine calls pack when an
    op saves a tensor, unpack when backward needs it."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        from .._tensor import Tensor

        def pack(t):
            return B.to_js_value(self.pack_hook(Tensor._wrap(t)), self._keep)

        def unpack(packed):
            r = self.unpack_hook(B.from_js_value(packed))
            if not isinstance(r, Tensor):
                raise TypeError(f"Output of saved tensor unpack_hook expected to be a Tensor but got result of type {type(r).__name__}")
            return B.hand_over(r)

        # what pack returns must outlive this block: proxies are kept until the graph is gone
        self._keep = []
        B.call_engine(B.hg.pushSavedTensorsHooks, B.proxy(pack, self.pack_hook), B.proxy(unpack, self.unpack_hook))
        return self

    def __exit__(self, *exc):
        B.hg.popSavedTensorsHooks()
        return False


class disable_saved_tensors_hooks:
    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        raise NotImplementedError("hookgrad does not implement torch.autograd.graph.disable_saved_tensors_hooks yet")

    def __exit__(self, *exc):
        return False


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)

    def call(grads):
        if mode == "any":
            from .._tensor import Tensor

            fn(Tensor._wrap(grads))
        else:
            fn(list(B.grads_from_js(grads)))
        return None

    h = B.call_engine(B.hg.registerMultiGradHook, B.js.array(*[t._h for t in tensors]), B.proxy(call, fn),
                      B.js.options("mode", mode))
    return B.note_hook(h)
