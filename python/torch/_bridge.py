"""The one door between the Python `torch` package and hookgrad's engine.

Everything here only moves values across: Python objects to the engine's JS
API (through Pyodide's FFI) and back. No gradient is computed in Python; the
engine decides hook order, node names and errors, as it does for JS programs.

`_hookgrad` is registered by crate/js/python.js before `import torch`: it holds
`hg` (the initialised engine module) and a few helpers written in JS because
they are cheaper there (flattening values, building arrays, kinds of values).
"""

import sys
import weakref
from sys import getrefcount
from array import array

import _hookgrad  # noqa: F401  (registered by loadPython)
from pyodide.ffi import JsException, create_proxy, jsnull  # noqa: F401 (JsException: for callers)

from .utils.hooks import RemovableHandle

hg = _hookgrad.hg
js = _hookgrad.helpers

# Tensors the engine may hand back where PyTorch gives the very same object
# (a module's args inside forward and hooks, AccumulateGrad's `variable`):
# engine tensor id -> the Python Tensor that owns a handle of it.
_by_id = weakref.WeakValueDictionary()

# A Python exception raised inside a hook (or a module forward) the engine
# called: the engine aborts with its own Error, and the caller re-raises this
# one, so the user sees their own exception and traceback, as in PyTorch.
_pending = []

_SHIM_DIR = __file__.rsplit("/", 1)[0]


def user_frame(skip=1):
    """The innermost frame of the user's program (not the shim's, not a
    library's): where a hook was registered or an error happened."""
    f = sys._getframe(skip)
    while f is not None:
        name = f.f_code.co_filename
        if not name.startswith(_SHIM_DIR) and not name.startswith("/lib/") and not name.startswith("<frozen"):
            return f
        f = f.f_back
    return None


def user_line(skip=2):
    f = user_frame(skip)
    return f.f_lineno if f is not None else None


# ----- hook sources: where the Python program registered each hook ----------
# The engine reads registration places from the JS stack, which inside Pyodide
# is Pyodide's own; the run() driver replaces them with these (handle id ->
# line), so the playground points at the Python line.
hook_lines = {}


# Whether a trace records (set by the runner): hook rows then need the
# program's line, which costs a frame walk and a crossing per registration.
tracing = [False]


def note_key_hook(n):
    """As note_hook, for a tensor hook's handle number `n` (slot · 2^32 +
    the engine's handle id: crate/wasm/src/key_hook.rs)."""
    if tracing[0]:
        line = user_line(3)
        if line is not None:
            hook_lines[n & 0xFFFFFFFF] = line
    return RemovableHandle._of_number(n)


def note_hook(h, hooks_dict=None, hook=None, extra_dict=None):
    """Records where the program registered engine hook handle `h`; returns
    the torch.utils.hooks.RemovableHandle the program gets (listing `hook` in
    `hooks_dict` under the handle's id, as PyTorch's module dicts do)."""
    if tracing[0]:
        line = user_line(3)
        if line is not None:
            hook_lines[int(h.id)] = line
    handle = RemovableHandle(h, hooks_dict, extra_dict=extra_dict)
    if hooks_dict is not None:
        hooks_dict[handle.id] = hook
    if extra_dict is not None:
        extra_dict[handle.id] = True
    return handle


# ----- errors ----------------------------------------------------------------

_ERROR_TYPES = {
    "TypeError": TypeError,
    "IndexError": IndexError,
    "ValueError": ValueError,
    "RuntimeError": RuntimeError,
}


def translate(e):
    """The Python exception for an engine error: the user's own exception when
    a Python hook or forward raised it, else PyTorch's type for the message."""
    if _pending:
        exc = _pending.pop()
        _pending.clear()
        return exc
    name = str(getattr(e.js_error, "name", "") or "") if hasattr(e, "js_error") else ""
    msg = str(getattr(e.js_error, "message", "") or "") if hasattr(e, "js_error") else str(e)
    cls = _ERROR_TYPES.get(name, RuntimeError)
    return cls(msg)


def call_engine(f, *args):
    """Calls an engine function, turning its JS Error into the Python one."""
    try:
        return f(*args)
    except JsException as e:
        raise translate(e) from None


# Python callables the engine may call, by key. One proxy (`_dispatch`) serves
# them all: a Pyodide proxy per hook costs more than the hook call itself. A
# key is forgotten when JS has collected its function (helpers.callable).
_callables = {}
_keys = [0]


def _dispatch(key, *args):
    try:
        return _callables[key](*args)
    except BaseException as exc:
        _pending.append(exc)
        # Returned, not raised: an exception crossing into JS is printed by
        # Pyodide. The JS function (helpers.callable) throws an Error for the
        # engine, and the caller re-raises `exc` itself.
        return js.threw(type(exc).__name__, str(exc))


js.setDispatch(create_proxy(_dispatch))

# The registers the hot calls take their operands from (python-helpers.js):
# writing a number here and calling with no argument is ~2 µs cheaper per call.
R = array("i", [0, 0, 0, 0])
F = array("d", [0.0, 0.0])
D = array("i", [0] * 65)  # handle indices to release, in batches of 64 (drain)
js.setRegisters(create_proxy(R), create_proxy(F), create_proxy(D))


def drain(indices, f):
    """Empties `indices` through `f`, a JS function reading D: 64 per call."""
    while indices:
        batch = indices[:64]
        del indices[:64]
        D[0] = len(batch)
        for k, i in enumerate(batch, 1):
            D[k] = i
        f()


from .utils import hooks as _hooks_module  # noqa: E402

_hooks_module._js = js

_name_ids = {}


def name_id(name):
    """The JS side's index of a hook name (interned once per name)."""
    i = _name_ids.get(name)
    if i is None:
        i = _name_ids[name] = int(js.internName(name))
    return i


def _hook_name(named):
    name = getattr(named, "__name__", None) if named is not None else None
    if not isinstance(name, str):
        name = type(named).__name__ if named is not None else "forward"
    return name


def _new_key():
    k = _keys[0] = _keys[0] + 1
    if not k & 255:
        for key in js.takeCollected():
            _callables.pop(key, None)
    return k


def callable_key(fn, named=None):
    """(key, name) under which JS calls `fn` (helpers.callable): the name is
    the user's callable's (`named`), as the engine shows hooks by name."""
    name = _hook_name(named)
    k = _new_key()
    _callables[k] = fn
    return k, name


# ----- tensor hooks: one key per Python callable -----------------------------
# A loop registers the same hook on tensor after tensor (W3: 2,000 a step):
# the callable gets one key for all its registrations, under which the
# engine calls it (crate/wasm/src/key_hook.rs), so a registration allocates
# nothing here but its handle. Key -> (hook, dtype); id(hook) -> (key,
# dtype, name index) of its latest key (the first dict keeps the hook alive,
# so the id stays its own until the engine says no hook holds the key).
_tensor_hooks = {}
_tensor_hook_keys = {}
# Tensor-hook keys are numbered apart and reused once the engine says no
# hook holds them (its per-key counts stay as small as the live keys).
_free_keys = []
_tensor_keys = [0, 0]  # the highest key made, keys made since the last look


def _new_tensor_key():
    n = _tensor_keys[1] = _tensor_keys[1] + 1
    if n >= 256:
        _tensor_keys[1] = 0
        for key in js.takeDeadHookKeys():
            e = _tensor_hooks.pop(key, None)
            if e is not None:
                if _tensor_hook_keys.get(id(e[0]), (0,))[0] == key:
                    del _tensor_hook_keys[id(e[0])]
                _free_keys.append(key)
    if _free_keys:
        return _free_keys.pop()
    k = _tensor_keys[0] = _tensor_keys[0] + 1
    return k


def tensor_hook_key(hook, dtype):
    """(key, dtype, name index): the key JS calls `hook` under, for gradients
    of dtype `dtype`."""
    e = _tensor_hook_keys.get(id(hook))
    if e is not None and e[1] is dtype:
        return e
    k = _new_tensor_key()
    _tensor_hooks[k] = (hook, dtype)
    e = _tensor_hook_keys[id(hook)] = (k, dtype, name_id(_hook_name(hook)))
    return e


def _probe_refcount():
    g = object()
    return getrefcount(g)


# What sys.getrefcount says of an object only a local variable holds (the
# interpreter may borrow the reference it passes: 1 on CPython 3.14).
_ALONE = _probe_refcount()


# A gradient Tensor no one kept after its hook returned, reused by the next
# hook call: saves its allocation, its __del__ call and its deallocation.
_spare = [None]


def _tensor_hook_call(key, i):
    """What the engine calls for a tensor hook (python-helpers.js `keyHook`,
    crate/wasm/src/key_hook.rs): the gradient arrives as a handle-table
    index. Answers 4 · (the returned Tensor's index, or 0) + 2 when the
    gradient's Tensor was freed as the hook returned: JS then releases its
    handle itself, saving a crossing."""
    try:
        hook, dtype = _tensor_hooks[key]
        g = _spare[0]
        if g is None:
            g = _new(_Tensor)
            g._hc = None
        else:
            _spare[0] = None
        g._i = i
        g._dtype = dtype
        r = hook(g)
        if r is None:
            ri = 0
        elif isinstance(r, _Tensor):
            returned.append(r)  # alive until the engine has read it (hand_over)
            ri = r._i or r._id()
        else:
            raise TypeError(f"expected Variable, but hook returned '{type(r).__name__}'")  # PyTorch's python_hook.cpp
        if getrefcount(g) != _ALONE:
            return ri * 4
        # Nothing but this frame holds it: as far as the program can tell,
        # CPython frees it as we return, exactly when PyTorch's would be.
        g._i = 0
        g._hc = None
        if g.__weakref__ is None and not g.__dict__:
            _spare[0] = g  # nothing of this call can show through it
        return ri * 4 + 2
    except BaseException as exc:
        _pending.append(exc)
        return js.threw(type(exc).__name__, str(exc))


_new = object.__new__
_Tensor = None  # torch.Tensor, set by _tensor.py (which imports this module)
js.setHookDispatch(create_proxy(_tensor_hook_call))


def proxy(fn, named=None):
    """A JS function calling `fn`, valid until JS lets go of it."""
    return js.callable(*callable_key(fn, named))


# ----- values across the boundary ---------------------------------------------

KIND_TENSOR, KIND_ARRAY, KIND_OBJECT, KIND_OTHER, KIND_NODE, KIND_PYREF = 0, 1, 2, 3, 4, 5


def tensor_cls():
    from ._tensor import Tensor

    return Tensor


def wrap_tensor(h, dtype=None):
    """A Python Tensor for engine handle `h`: the Python object that already
    owns this tensor when there is one (PyTorch hands back the same object)."""
    if h is None or h is jsnull:
        return None
    live = _by_id.get(h.id) if _by_id else None
    if live is not None:
        if not js.same(h, live._h):
            h.dispose()
        return live
    return tensor_cls()._wrap(h, dtype)


def remember(t):
    """Lets `wrap_tensor` find `t` again by the engine's id."""
    _by_id[t._h.id] = t
    return t


def to_js_value(v, temps):
    """A Python value as the engine's module calls see it: Tensor -> handle,
    tuple -> array, None -> null; anything else stays a Python object (a
    proxy the engine never looks into; freed after the call via `temps`)."""
    T = tensor_cls()
    if isinstance(v, T):
        remember(v)
        temps.append(v)  # alive until the engine has taken its handle
        return v._h
    if isinstance(v, tuple):
        return js.array(*[to_js_value(x, temps) for x in v])
    if v is None:
        return None
    # Any other Python object crosses as a token the engine treats as opaque
    # (numbers too: a JS number would come back an int where it was a float).
    _refs.append(v)
    temps.append(_REF_MARK)
    return js.pyref(len(_refs) - 1)


def to_js_dict(d, temps):
    obj = js.object()
    for k, v in d.items():
        js.set(obj, k, to_js_value(v, temps))
    return obj


def from_js_value(v):
    """Back from the engine: handle -> Tensor, array -> tuple, plain object ->
    dict; a proxied Python object arrives as itself."""
    if v is None or v is jsnull:
        return None
    if isinstance(v, (int, float, str, bool)):
        return v
    if not hasattr(v, "typeof"):
        return v  # a Python object that went through as a proxy
    k = js.kind(v)
    if k == KIND_TENSOR:
        return wrap_tensor(v)
    if k == KIND_ARRAY:
        return tuple(from_js_value(x) for x in v)
    if k == KIND_OBJECT:
        return {str(key): from_js_value(js.get(v, key)) for key in js.keys(v)}
    if k == KIND_NODE:
        from .autograd.graph import Node

        return Node._wrap(v)
    if k >= KIND_PYREF:
        return _refs[k - KIND_PYREF]
    return v


def grads_from_js(arr):
    """An engine list of gradients (handle or null) as a tuple."""
    T = tensor_cls()
    return tuple(None if g is None or g is jsnull else T._wrap(g) for g in arr)


def grads_to_js(r, hook, expected=None):
    """A gradient hook's result for the engine, checked in PyTorch's order
    and words. `expected`: a node hook's (grad_fn.register_hook/prehook, the
    legacy module hook) count, which PyTorch's C++ checks after the type;
    None for the full module hooks, whose Python code takes `len()` first
    (an int fails there) and leaves the count to the engine."""
    T = tensor_cls()
    if expected is None:
        len(r)
    else:
        if not isinstance(r, tuple):
            raise TypeError(f"expected tuple, but hook returned '{type(r).__name__}'")
        if len(r) != expected:
            name = getattr(hook, "__name__", "<unknown>")
            raise RuntimeError(f"hook '{name}' has returned an incorrect number of values "
                               f"(got {len(r)}, but expected {expected})")
    out = []
    for g in r:
        if g is None:
            out.append(None)
        elif isinstance(g, T):
            out.append(hand_over(g))
        else:
            raise TypeError(f"expected Variable, but hook returned '{type(g).__name__}'")
    return js.array(*out)


# Python objects passed through a module call as tokens (helpers.pyref), by
# index; cleared with the call's temps when the outermost call returns.
_refs = []
_REF_MARK = object()


def free_temps(temps):
    if _REF_MARK in temps:
        _refs.clear()
    temps.clear()


# Tensors a Python hook returned: kept alive until the engine has read their
# handles (the end of the backward pass), else CPython would free the handle
# as the hook's frame ends, before the engine sees it.
returned = []


def hand_over(t):
    returned.append(t)
    return t._h


# While `release_returned` clears `returned`, Tensor.__del__ lists the handle
# indices it would release one crossing each; they go 64 per crossing.
collecting = [False]
released = []


def release_returned():
    """Ends a backward pass: frees the Tensors hooks returned (W3 → g * 1:
    2,000 of them), their handles released in batches."""
    if not returned:
        return
    collecting[0] = True
    try:
        returned.clear()
    finally:
        collecting[0] = False
        drain(released, js.trelease_many_r)
