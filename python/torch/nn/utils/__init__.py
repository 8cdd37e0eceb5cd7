"""`torch.nn.utils`: gradient clipping (what training loops call between
`backward()` and `optimizer.step()`); any other name is a clear
NotImplementedError."""

from .clip_grad import (clip_grad_norm, clip_grad_norm_, clip_grad_value_,  # noqa: F401
                        clip_grads_with_norm_, get_total_norm)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(f"module 'torch.nn.utils' has no attribute '{name}'")
    raise NotImplementedError(f"hookgrad does not implement torch.nn.utils.{name} yet")
