"""Tensor hooks: the user's Python callable becomes a JS function the engine
calls like any JS hook (the engine decides order and what it sees)."""

from .. import _bridge as B
from ..utils.hooks import RemovableHandle


def _check_grad(t):
    if not t.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")


def tensor_hook(t, hook):
    from .._tensor import Tensor

    _check_grad(t)

    def call(g):
        r = hook(Tensor._wrap(g, t._dtype))
        if r is None:
            return None
        if not isinstance(r, Tensor):
            raise TypeError(f"expected Tensor or None as the hook's result (got {type(r).__name__})")
        return B.hand_over(r)

    h = B.call_engine(t._h.registerHook, B.proxy(call, hook))
    B.note_hook(h.id)
    return RemovableHandle(h)


def post_accumulate_hook(t, hook):
    from .._tensor import Tensor

    if not t.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if not t.is_leaf:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")

    def call(x):
        r = hook(B.wrap_tensor(x) if False else _same(t, x))
        if r is not None:
            raise RuntimeError("hooks registered with register_post_accumulate_grad_hook are expected to return None")
        return None

    h = B.call_engine(t._h.registerPostAccumulateGradHook, B.proxy(call, hook))
    B.note_hook(h.id)
    return RemovableHandle(h)


def _same(t, x):
    """The hook gets the very tensor it was registered on, as in PyTorch."""
    x.dispose()
    return t
