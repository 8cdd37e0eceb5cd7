"""What a program gets for a name hookgrad's torch lacks: for a name real
PyTorch has, NotImplementedError naming it (never a silent wrong result);
for any other name, PyTorch's own AttributeError (a typo stays a typo).
The list of PyTorch's names is _pytorch_names.py, generated from torch."""

from . import _pytorch_names as N


class Missing(NotImplementedError, AttributeError):
    """NotImplementedError, and an AttributeError too, so `hasattr()` is False."""


Missing.__name__ = Missing.__qualname__ = "NotImplementedError"
Missing.__module__ = "builtins"

_KNOWN = {"torch": N.TORCH, "torch.nn": N.NN, "torch.nn.functional": N.FUNCTIONAL, "torch.autograd": N.AUTOGRAD, "torch.optim": N.OPTIM}


def missing(module, name):
    """For a module's __getattr__: raises the right error for `module.name`."""
    if not name.startswith("__") and name in _KNOWN[module]:
        raise Missing(f"hookgrad does not implement {module}.{name} yet")
    raise AttributeError(f"module '{module}' has no attribute '{name}'")


def tensor_attr(obj, name):
    """For Tensor.__getattr__ (called only when the normal lookup failed)."""
    if not name.startswith("_") and name in N.TENSOR:
        raise Missing(f"hookgrad does not implement torch.Tensor.{name} yet")
    raise AttributeError(f"'{type(obj).__name__}' object has no attribute '{name}'")
