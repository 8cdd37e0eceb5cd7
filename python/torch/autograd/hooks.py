"""Tensor hooks: the user's Python callable becomes a JS function the engine
calls like any JS hook (the engine decides order and what it sees)."""

import weakref

from .. import _bridge as B
from .._tensor import Tensor

R = B.R
register_r = B.js.registerTensorHook_r  # operands in registers: see _bridge.R

def _check_grad(t):
    if not t.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")


def tensor_hook(t, hook):
    dtype = t._dtype  # not `t`: the engine holds this closure, and t holds the engine's tensor
    new = object.__new__

    returned = B.returned

    def call(i):  # the gradient arrives as a handle-table index (cheapest across the FFI)
        gt = new(Tensor)
        gt._i = i
        gt._hc = None
        gt._dtype = dtype
        r = hook(gt)
        if r is None:
            return None
        if not isinstance(r, Tensor):
            raise TypeError(f"expected Tensor or None as the hook's result (got {type(r).__name__})")
        returned.append(r)  # alive until the engine has read it (B.hand_over)
        return r._i or r._id()

    # One crossing of numbers: the JS side checks requires_grad, makes the
    # function and registers it (the most frequent registration of all).
    key, name = B.callable_key(call, hook)
    ti = t._i or t._id()
    ni = B.name_id(name)
    R[0] = ti
    R[1] = key
    R[2] = ni
    hi = B.call_engine(register_r)
    return B.note_hook_index(hi)


def post_accumulate_hook(t, hook):
    if not t.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if not t.is_leaf:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")

    ref = weakref.ref(t)  # the engine holds this closure; a strong `t` would be a cycle through it

    def call(x):
        r = hook(_same(ref(), x))
        if r is not None:
            raise RuntimeError("hooks registered with register_post_accumulate_grad_hook are expected to return None")
        return None

    h = B.call_engine(t._h.registerPostAccumulateGradHook, B.proxy(call, hook))
    return B.note_hook(h)


def _same(t, x):
    """The hook gets the very tensor it was registered on, as in PyTorch."""
    if t is None:
            return Tensor._wrap(x)
    x.dispose()
    return t


Tensor.register_hook = tensor_hook
Tensor.register_post_accumulate_grad_hook = post_accumulate_hook
