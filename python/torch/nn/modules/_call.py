"""A Python module's engine side: the engine module each `nn.Module` owns,
`module(*args, **kwargs)` as the engine's call (which runs PyTorch's hook
protocol), and Python hooks adapted to the engine's hook signatures.

Values cross as the engine's module calls see them (tensors as handles,
tuples as arrays, anything else as an opaque Python object); the engine
hands the module object to hooks, here always the Python module itself."""

import weakref

from ... import _bridge as B
from ...utils.hooks import RemovableHandle

_by_engine_id = weakref.WeakValueDictionary()
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
    try:
        jsargs = B.js.array(*[B.to_js_value(a, _temps) for a in args])
        out = B.call_engine(mod._hg.callWithKwargs, jsargs, B.to_js_dict(kwargs, _temps))
        return B.from_js_value(out)
    finally:
        _depth[0] -= 1
        if _depth[0] == 0:
            B.free_temps(_temps)


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


def _handle(h):
    B.note_hook(h.id)
    return RemovableHandle(h)


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
    return _handle(B.call_engine(reg, B.proxy(call_, hook), _opts(prepend, with_kwargs)))


def forward_hook(mod, hook, prepend, with_kwargs, always_call=False, target=None):
    if with_kwargs:
        def call_(m, args, kwargs, output):
            r = hook(_module_of(m), B.from_js_value(args), B.from_js_value(kwargs), B.from_js_value(output))
            return None if r is None else B.to_js_value(r, _temps)
    else:
        def call_(m, args, output):
            r = hook(_module_of(m), B.from_js_value(args), B.from_js_value(output))
            return None if r is None else B.to_js_value(r, _temps)

    reg = mod._hg.registerForwardHook if target is None else target
    return _handle(B.call_engine(reg, B.proxy(call_, hook), _opts(prepend, with_kwargs)))


def backward_hook(mod, hook, kind, prepend=False, target=None):
    if kind == "pre":
        def call_(m, grad_output):
            r = hook(_module_of(m), B.grads_from_js(grad_output))
            return None if r is None else B.grads_to_js(_tuple(r), "backward pre hook")

        reg = mod._hg.registerFullBackwardPreHook if target is None else target
        return _handle(B.call_engine(reg, B.proxy(call_, hook), _opts(prepend)))

    def call_(m, grad_input, grad_output):
        r = hook(_module_of(m), B.grads_from_js(grad_input), B.grads_from_js(grad_output))
        return None if r is None else B.grads_to_js(_tuple(r), "backward hook")

    if kind == "legacy":
        return _handle(B.call_engine(mod._hg.registerBackwardHook, B.proxy(call_, hook)))
    reg = mod._hg.registerFullBackwardHook if target is None else target
    return _handle(B.call_engine(reg, B.proxy(call_, hook), _opts(prepend)))


def _tuple(r):
    return tuple(r) if isinstance(r, (tuple, list)) else (r,)


# ----- torch.nn.modules.module.register_module_*: the engine's global hooks ----------
def register_module_forward_pre_hook(hook):
    return forward_pre_hook(None, hook, False, False, target=B.hg.registerModuleForwardPreHook)


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    return forward_hook(None, hook, False, with_kwargs, always_call, target=B.hg.registerModuleForwardHook)


def register_module_full_backward_hook(hook):
    return backward_hook(None, hook, "full", target=B.hg.registerModuleFullBackwardHook)


def register_module_full_backward_pre_hook(hook):
    return backward_hook(None, hook, "pre", target=B.hg.registerModuleFullBackwardPreHook)
