"""`torch.no_grad`, `enable_grad`, `set_grad_enabled`: the engine's grad mode,
switched on enter and restored on exit (also as decorators)."""

import functools

from .._bridge import hg


class _GradMode:
    _mode = None

    def __init__(self):
        self._prev = []

    def __enter__(self):
        self._prev.append(hg.setGradEnabled(self._mode))
        return None

    def __exit__(self, *exc):
        hg.setGradEnabled(self._prev.pop())
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)

        return wrapper

    def clone(self):
        return self.__class__()


class _Decorating(_GradMode):
    """`@torch.no_grad` without parentheses: called with the function itself."""

    def __new__(cls, orig_func=None):
        if orig_func is not None and callable(orig_func):
            return cls()(orig_func)
        return super().__new__(cls)

    def __init__(self, orig_func=None):
        super().__init__()


class no_grad(_Decorating):
    _mode = False


class enable_grad(_Decorating):
    _mode = True


class inference_mode(_GradMode):
    """No graph, like no_grad (hookgrad has no separate inference tensors);
    `torch.is_inference_mode_enabled()` tells whether one is active."""

    _mode = False
    _depth = []

    def __init__(self, mode=True):
        super().__init__()
        self._mode = not mode
        self._on = bool(mode)

    def __enter__(self):
        inference_mode._depth.append(self._on)
        return super().__enter__()

    def __exit__(self, *exc):
        inference_mode._depth.pop()
        return super().__exit__(*exc)


def is_inference_mode_enabled():
    return bool(inference_mode._depth and inference_mode._depth[-1])


class set_grad_enabled(_GradMode):
    """Takes effect at once (a plain call), and restores on exit when used
    with `with`, as PyTorch's does."""

    def __init__(self, mode):
        self._prev = [hg.setGradEnabled(bool(mode))]
        self._mode = bool(mode)

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        hg.setGradEnabled(self._prev.pop())
        return False


def is_grad_enabled():
    return bool(hg.isGradEnabled())
