"""hookgrad's `torch`: PyTorch's Python API over hookgrad's engine.

A thin layer: every tensor is an engine tensor, every op and backward pass is
the engine's, every hook is called by the engine; this package maps names,
arguments, dtypes, printing, warnings and exceptions to PyTorch's. What it
does not implement raises NotImplementedError naming the call.
"""

import builtins as _builtins

from . import _bridge
from . import _missing
from . import _dtype
from . import _random
from . import _tensor_str
from ._creation import (arange, empty, empty_like, eye, full, full_like, linspace, ones, ones_like,  # noqa: F401
                        rand, rand_like, randint, randn, randn_like, tensor, zeros, zeros_like)
from ._dtype import (Size, bfloat16, device, dtype, float16, float32, float64, int8, int16, int32,  # noqa: F401
                     int64, uint8)
from ._tensor import Tensor  # noqa: F401
from ._tensor_logic import logical_and, logical_not, logical_or, logical_xor  # noqa: F401
from . import _functional
from ._functional import *  # noqa: F401,F403
from . import autograd  # noqa: F401
from .autograd.grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,  # noqa: F401
                                 no_grad, set_grad_enabled)
from . import return_types  # noqa: F401
from . import utils  # noqa: F401
from . import nn  # noqa: F401
from . import optim  # noqa: F401

__version__ = "2.15.0+hookgrad"

bool = _dtype.bool_  # noqa: A001
float = float32  # noqa: A001
double = float64
half = float16
long = int64
int = int32  # noqa: A001
short = int16

set_printoptions = _tensor_str.set_printoptions
get_printoptions = _tensor_str.get_printoptions
Generator = _random.Generator
default_generator = _random.default_generator


def manual_seed(seed):
    return _random.default_generator.manual_seed(_builtins.int(seed))


def seed():
    return _random.default_generator.seed()


def initial_seed():
    return _random.default_generator.initial_seed()


def get_default_dtype():
    return float32


def is_tensor(obj):
    return isinstance(obj, Tensor)


def numel(t):
    return t.numel()


def typename(obj):
    from .nn.modules.module import _typename

    return _typename(obj)


class _Legacy:
    """`torch.FloatTensor(...)` and friends: the legacy constructor of a dtype."""

    def __init__(self, name, dtype):
        self.__name__ = name
        self._dtype = dtype

    def __call__(self, *args):
        from ._creation import legacy_new

        t = legacy_new(*args)
        return t if self._dtype is float32 else t.to(self._dtype)

    def __instancecheck__(self, obj):
        return isinstance(obj, Tensor) and obj.dtype is self._dtype


FloatTensor = _Legacy("FloatTensor", float32)
DoubleTensor = _Legacy("DoubleTensor", float64)
LongTensor = _Legacy("LongTensor", int64)
IntTensor = _Legacy("IntTensor", int32)
BoolTensor = _Legacy("BoolTensor", _dtype.bool_)


class _Cuda:
    @staticmethod
    def is_available():
        return False

    @staticmethod
    def device_count():
        return 0

    def __getattr__(self, name):
        raise AssertionError("Torch not compiled with CUDA enabled")


cuda = _Cuda()


def __getattr__(name):
    return _missing.missing("torch", name)


def set_num_threads(n):
    """hookgrad runs on one thread (the page's worker); kept for scripts that set it."""


def get_num_threads():
    return 1
