"""Tensor hooks: the user's Python callable becomes a JS function the engine
calls like any JS hook (the engine decides order and what it sees)."""

import weakref

from pyodide.ffi import JsException

from .. import _bridge as B
from .._tensor import Tensor
from ..utils.hooks import RemovableHandle

R = B.R
register_r = B.js.registerTensorHook_r  # operands in registers: see _bridge.R
_keys, _key_of = B._tensor_hook_keys, B.tensor_hook_key
_handle = RemovableHandle._of_number
_tracing = B.tracing


def tensor_hook(t, hook):
    # One crossing of numbers: the engine checks requires_grad and registers
    # the hook by its key; it calls B._tensor_hook_call with the key and the
    # gradient's engine id. The handle comes back as a number.
    dtype = t._dtype
    e = _keys.get(id(hook))
    if e is None or e[1] is not dtype:
        e = _key_of(hook, dtype)
    R[0] = t._i or t._id()
    R[1] = e[0]
    R[2] = e[2]
    try:
        n = register_r()
    except JsException as e:
        raise B.translate(e) from None
    if _tracing[0]:
        return B.note_key_hook(n)
    return _handle(n)


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
