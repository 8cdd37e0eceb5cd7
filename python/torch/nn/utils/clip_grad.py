"""PyTorch's `torch/nn/utils/clip_grad.py`, step for step, on the engine's
ops: a norm per gradient, the norm of those norms, one clamped coefficient
multiplied into every `.grad` in place (all under no_grad, as PyTorch's
`@_no_grad`). The same float32 ops in the same order give PyTorch's numbers."""

import math
import types

from ... import _warnings
from ...autograd.grad_mode import no_grad


def _as_list(parameters):
    from ..._tensor import Tensor

    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def _norm(t, norm_type):
    # torch.linalg.vector_norm: the largest magnitude for inf, else the p-norm.
    if norm_type == math.inf:
        return t.abs().max()
    if norm_type == -math.inf:
        return t.abs().min()
    return t.norm(norm_type)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The norm of the tensors' norms (`torch.nn.utils.get_total_norm`)."""
    import torch

    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return torch.tensor(0.0)
    with no_grad():
        total_norm = _norm(torch.stack([_norm(g, norm_type) for g in tensors]), norm_type)
    if error_if_nonfinite and not math.isfinite(total_norm.item()):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from "
            "`parameters` is non-finite, so it cannot be clipped. To disable "
            "this error and scale the gradients by the non-finite norm anyway, "
            "set `error_if_nonfinite=False`")
    return total_norm


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Every `.grad` times min(max_norm / (total_norm + 1e-6), 1), in place."""
    import torch

    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    max_norm = float(max_norm)
    if len(grads) == 0:
        return
    with no_grad():
        clip_coef = max_norm / (total_norm + 1e-6)
        clip_coef_clamped = torch.clamp(clip_coef, max=1.0)
        for g in grads:
            g.mul_(clip_coef_clamped)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Scales the gradients so that their total norm is at most max_norm; returns that norm."""
    is_generator = isinstance(parameters, types.GeneratorType)
    parameters = _as_list(parameters)
    if is_generator and len(parameters) == 0:
        _warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.")
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The deprecated name: PyTorch's FutureWarning, then clip_grad_norm_."""
    _warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
        FutureWarning)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamps every `.grad` to [-clip_value, clip_value], in place."""
    clip_value = float(clip_value)
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    with no_grad():
        for g in grads:
            g.clamp_(min=-clip_value, max=clip_value)
