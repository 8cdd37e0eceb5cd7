"""PyTorch's warnings through Python's `warnings`, so filters, `-W` and
`catch_warnings` work and each is shown where PyTorch shows it: at the user's
line for what PyTorch's C++ core warns (once per line, Python's default), or
inside torch for what its Python code warns (once per process)."""

import sys
import warnings

from . import _bridge as B

# Texts PyTorch warns from its own Python code (placed inside torch), with
# their categories; every other engine warning is a UserWarning at the
# caller's line, as TORCH_WARN gives.
_LIBRARY = {
    "Using a non-full backward hook": (FutureWarning, "torch/nn/modules/module.py"),
    "Full backward hook is firing when gradients are computed with respect to module outputs": (
        UserWarning, "torch/utils/hooks.py"),
    "Using backward() with create_graph=True": (UserWarning, "torch/_tensor.py"),
}
_registry = {}


def _stacklevel():
    """warnings.warn's stacklevel that lands on the user's frame."""
    f, level = sys._getframe(2), 2
    user = B.user_frame(2)
    while f is not None and f is not user:
        f, level = f.f_back, level + 1
    return level if f is not None else 1


def warn(message, category=UserWarning):
    warnings.warn(message, category, stacklevel=_stacklevel())


def engine_warning(message, at_caller):
    message = str(message)
    for prefix, (category, where) in _LIBRARY.items():
        if message.startswith(prefix):
            if category is UserWarning and "create_graph" in prefix:
                break
            warnings.warn_explicit(message, category, where, 1, module="torch", registry=_registry)
            return
    else:
        category = UserWarning
    warnings.warn(message, category, stacklevel=_stacklevel())


def copy_construct():
    warn(
        "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
        "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor)."
    )


def nonleaf_grad():
    """Reading `.grad` of a non-leaf: the engine warns (engine_warning)."""
