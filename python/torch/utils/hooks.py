"""`torch.utils.hooks.RemovableHandle` over the engine's hook handles.

Its `id` is PyTorch's: one counter for every handle of the process (the
runner resets it per program, as a fresh `python` would), while the engine's
own handle id links the hook to its trace events. `hooks_dict` is the
Python-side dict the handle's hook is listed in (a module's
`_forward_hooks`, ...), which programs read as PyTorch's."""


# Set by torch._bridge once loaded (this module is imported before it): the
# engine helpers (python-helpers.js), for removing a tensor hook by number.
_js = None

# The next handle id. Not a class attribute written per handle: assigning to
# a class attribute invalidates CPython's type caches, which cost ~2 µs per
# registration here (more than the rest of a tensor hook's registration).
_next = [0]
_new = object.__new__


class _Counter(type):
    """`RemovableHandle.next_id`, read and set as PyTorch's class attribute."""

    @property
    def next_id(cls):
        return _next[0]

    @next_id.setter
    def next_id(cls, value):
        _next[0] = value


class RemovableHandle(metaclass=_Counter):
    __slots__ = ("_h", "_n", "_on_remove", "id", "_dicts", "__weakref__")

    def __init__(self, engine_handle=None, hooks_dict=None, *, extra_dict=None, on_remove=None):
        self._h = engine_handle
        # Or a tensor hook's engine handle as a number (slot · 2^32 + id:
        # crate/wasm/src/key_hook.rs), which owns nothing on the JS side.
        self._n = 0
        self._on_remove = on_remove
        i = self.id = _next[0]
        _next[0] = i + 1
        if hooks_dict is None and extra_dict is None:
            self._dicts = ()
        else:
            extra = extra_dict if isinstance(extra_dict, (list, tuple)) else [extra_dict]
            self._dicts = [d for d in (hooks_dict, *extra) if d is not None]

    def remove(self):
        if self._h is not None:
            self._h.remove()
        if self._n:
            _js.removeKeyHandle(self._n)
        for d in self._dicts:
            d.pop(self.id, None)
        if self._on_remove is not None:
            self._on_remove()
            self._on_remove = None

    @classmethod
    def _of_number(cls, n):
        """A tensor hook's handle (`__init__`'s work, inlined: W3 makes one per op)."""
        h = _new(cls)
        h._h = None
        h._n = n
        h._on_remove = None
        i = h.id = _next[0]
        _next[0] = i + 1
        h._dicts = ()
        return h

    @property
    def next_id(self):
        return _next[0]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()

    def __repr__(self):
        return f"<torch.utils.hooks.RemovableHandle object at {hex(id(self))}>"
