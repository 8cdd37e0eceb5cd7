"""A Python module's engine side: the engine module each `nn.Module` owns,
`module(*args, **kwargs)` as the engine's call (which runs PyTorch's hook
protocol), and Python hooks adapted to the engine's hook signatures.

Values cross as the engine's module calls see them (tensors as handles,
tuples as arrays, anything else as an opaque Python object); the engine
hands the module object to hooks, here always the Python module itself."""

import weakref
from collections import OrderedDict

from ... import _bridge as B

_by_engine_id = weakref.WeakValueDictionary()
# The global hooks (torch.nn.modules.module._global_*), listed as PyTorch lists them.
_GLOBAL = {k: OrderedDict() for k in (
    "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_forward_hooks", "_forward_hooks_with_kwargs",
    "_forward_hooks_always_called", "_backward_hooks", "_backward_pre_hooks")}
# Per module call in progress: the ids of always_call forward hooks that ran.
_ran_always = []
# Proxies made for one module call's non-tensor values: freed when the
# outermost call returns (the engine keeps none of them after it).
_temps = []
_depth = [0]


def engine_module(mod):
    ref = weakref.ref(mod)

    def forward(*jsargs):
        m = ref()
        kwargs = B.from_js_value(jsargs[-1]) if jsargs else {}
        args = tuple(B.from_js_value(a) for a in jsargs[:-1])
        out = m.forward(*args, **kwargs)
        return B.to_js_value(out, _temps)

    h = B.hg.Module.new(type(mod).__name__, B.proxy(forward, type(mod).forward))
    _by_engine_id[int(h.id)] = mod
    return h


def call(mod, args, kwargs):
    if "_hg" not in mod.__dict__:
        raise AttributeError(f"'{type(mod).__name__}' object has no attribute '_hg' (did you forget super().__init__()?)")
    _depth[0] += 1
    _ran_always.append(set())
    try:
        jsargs = B.js.array(*[B.to_js_value(a, _temps) for a in args])
        out = B.call_engine(mod._hg.callWithKwargs, jsargs, B.to_js_dict(kwargs, _temps))
        return B.from_js_value(out)
    except Exception:
        _call_always_hooks(mod, args, kwargs, _ran_always[-1])
        raise
    finally:
        _ran_always.pop()
        _depth[0] -= 1
        if _depth[0] == 0:
            B.free_temps(_temps)


def _call_always_hooks(mod, args, kwargs, ran):
    """PyTorch's `always_call=True`: forward hooks that run (with output None)
    even when the call raised; what they raise is silenced with a warning."""
    from ... import _warnings

    for where, src in (("global ", _GLOBAL), ("", mod.__dict__)):
        for hid in list(src["_forward_hooks_always_called"]):
            hook = src["_forward_hooks"].get(hid)
            if hook is None or hid in ran:
                continue
            try:
                if hid in src["_forward_hooks_with_kwargs"]:
                    hook(mod, args, kwargs, None)
                else:
                    hook(mod, args, None)
            except Exception as e:
                _warnings.warn(f"{where}module forward hook with ``always_call=True`` raised an exception that was "
                               f"silenced as another error was raised in forward: {str(e)}")


def add_child(mod, name, child):
    try:
        mod._hg.addModule(name, child._hg)
    except Exception:
        pass  # the Python side's _modules is what counts; the engine's names are for the figure


def add_parameter(mod, name, param):
    try:
        mod._hg.registerParameter(name, param._h)
    except Exception:
        pass


def _module_of(m):
    """The Python module for an engine module handle the engine passed in."""
    mid = int(m.id)
    m.dispose()
    return _by_engine_id.get(mid)


def _opts(prepend=False, with_kwargs=False):
    o = B.js.object()
    if prepend:
        B.js.set(o, "prepend", True)
    if with_kwargs:
        B.js.set(o, "withKwargs", True)
    return o


def _handle(h, hooks_dict, hook, prepend=False, extra_dict=None):
    handle = B.note_hook(h, hooks_dict, hook, extra_dict)
    if prepend and hooks_dict is not None:
        hooks_dict.move_to_end(handle.id, last=False)
    return handle


def _dicts(mod, own, kw):
    """The module's (or, for mod None, the global) hook dict and its
    with_kwargs companion, as PyTorch keeps them."""
    src = mod.__dict__ if mod is not None else _GLOBAL
    return src[own], (src[kw] if kw else None)


def forward_pre_hook(mod, hook, prepend, with_kwargs, target=None):
    if with_kwargs:
        def call_(m, args, kwargs):
            r = hook(_module_of(m), B.from_js_value(args), B.from_js_value(kwargs))
            if r is None:
                return None
            if not (isinstance(r, tuple) and len(r) == 2):
                raise RuntimeError(f"forward pre-hook must return None or a tuple of (new_args, new_kwargs), but got {r}.")
            new_args = r[0] if isinstance(r[0], tuple) else (r[0],)
            return B.js.array(B.to_js_value(new_args, _temps), B.to_js_dict(r[1], _temps))
    else:
        def call_(m, args):
            r = hook(_module_of(m), B.from_js_value(args))
            return None if r is None else B.to_js_value(r, _temps)

    reg = mod._hg.registerForwardPreHook if target is None else target
    d, kw = _dicts(mod, "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs")
    return _handle(B.call_engine(reg, B.proxy(call_, hook), _opts(prepend, with_kwargs)), d, hook, prepend,
                   kw if with_kwargs else None)


def forward_hook(mod, hook, prepend, with_kwargs, always_call=False, target=None):
    key = []  # the handle's id, known once registered (always_call bookkeeping)

    def ran():
        if always_call and _ran_always:
            _ran_always[-1].add(key[0])

    if with_kwargs:
        def call_(m, args, kwargs, output):
            ran()
            r = hook(_module_of(m), B.from_js_value(args), B.from_js_value(kwargs), B.from_js_value(output))
            return None if r is None else B.to_js_value(r, _temps)
    else:
        def call_(m, args, output):
            ran()
            r = hook(_module_of(m), B.from_js_value(args), B.from_js_value(output))
            return None if r is None else B.to_js_value(r, _temps)

    reg = mod._hg.registerForwardHook if target is None else target
    d, kw = _dicts(mod, "_forward_hooks", "_forward_hooks_with_kwargs")
    handle = _handle(B.call_engine(reg, B.proxy(call_, hook), _opts(prepend, with_kwargs)), d, hook, prepend,
                     kw if with_kwargs else None)
    key.append(handle.id)
    if always_call:
        src = mod.__dict__ if mod is not None else _GLOBAL
        src["_forward_hooks_always_called"][handle.id] = True
        handle._dicts.append(src["_forward_hooks_always_called"])
    return handle


def backward_hook(mod, hook, kind, prepend=False, target=None):
    if kind == "pre":
        def call_(m, grad_output):
            r = hook(_module_of(m), B.grads_from_js(grad_output))
            return None if r is None else B.grads_to_js(r, hook)

        reg = mod._hg.registerFullBackwardPreHook if target is None else target
        d, _ = _dicts(mod, "_backward_pre_hooks", None)
        return _handle(B.call_engine(reg, B.proxy(call_, hook), _opts(prepend)), d, hook, prepend)

    def call_(m, grad_input, grad_output):
        gi = B.grads_from_js(grad_input)
        r = hook(_module_of(m), gi, B.grads_from_js(grad_output))
        # The legacy hook is a hook on the output's grad_fn: PyTorch's C++ checks.
        return None if r is None else B.grads_to_js(r, hook, len(gi) if kind == "legacy" else None)

    d, _ = _dicts(mod, "_backward_hooks", None)
    if kind == "legacy":
        return _handle(B.call_engine(mod._hg.registerBackwardHook, B.proxy(call_, hook)), d, hook)
    reg = mod._hg.registerFullBackwardHook if target is None else target
    return _handle(B.call_engine(reg, B.proxy(call_, hook), _opts(prepend)), d, hook, prepend)


# ----- torch.nn.modules.module.register_module_*: the engine's global hooks ----------
def register_module_forward_pre_hook(hook):
    return forward_pre_hook(None, hook, False, False, target=B.hg.registerModuleForwardPreHook)


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    return forward_hook(None, hook, False, with_kwargs, always_call, target=B.hg.registerModuleForwardHook)


def register_module_full_backward_hook(hook):
    return backward_hook(None, hook, "full", target=B.hg.registerModuleFullBackwardHook)


def register_module_full_backward_pre_hook(hook):
    return backward_hook(None, hook, "pre", target=B.hg.registerModuleFullBackwardPreHook)
