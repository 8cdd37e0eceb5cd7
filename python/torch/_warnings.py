"""PyTorch's warnings through Python's `warnings`, so filters, `-W` and
`catch_warnings` work and each is shown where PyTorch shows it: at the user's
line for what PyTorch's C++ core warns (once per line, Python's default), or
inside torch for what its Python code warns (once per process)."""

import linecache
import sys
import warnings

from . import _bridge as B

# Texts PyTorch warns from its own code (placed inside torch: shown once per
# process), with their categories and the place torch 2.15 names (file, line
# and the source line Python prints under it); every other engine warning
# is a UserWarning at the program's line, as PyTorch's C++ TORCH_WARN gives.
_LIBRARY = {
    "Using a non-full backward hook": (
        FutureWarning, "torch/nn/modules/module.py", 1878,
        "        self._maybe_warn_non_full_backward_hook(args, result, grad_fn)"),
    "Using backward() with create_graph=True": (
        UserWarning, "torch/autograd/graph.py", 1113,
        "    return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass"),
}
# What PyTorch's C++ warnings end with in the PyPI wheels of 2.15 (the build's
# source paths): part of the text a reader sees and searches for.
_TRIGGERED = {
    "The .grad attribute of a Tensor that is not a leaf Tensor":
        " (Triggered internally at /__w/pytorch/pytorch/build/aten/src/ATen/core/TensorBody.h:488.)",
    "Using backward() with create_graph=True":
        " (Triggered internally at /__w/pytorch/pytorch/torch/csrc/autograd/engine.cpp:1445.)",
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
    for prefix, suffix in _TRIGGERED.items():
        if message.startswith(prefix) and not message.endswith(suffix):
            message += suffix
    for prefix, (category, where, line, source) in _LIBRARY.items():
        if message.startswith(prefix):
            # Python prints the line under the warning from linecache: give
            # it torch's line, not the shim's file of the same name.
            linecache.cache[where] = (0, None, [""] * (line - 1) + [source + "\n"], where)
            warnings.warn_explicit(message, category, where, line, module="torch", registry=_registry)
            return
    warnings.warn(message, UserWarning, stacklevel=_stacklevel())


def copy_construct():
    warn(
        "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
        "sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor)."
    )
