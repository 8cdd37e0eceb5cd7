"""`torch.autograd`: backward and grad over the engine's one backward pass."""

from .. import _bridge as B
from ..utils.hooks import RemovableHandle  # noqa: F401
from . import function, graph, hooks  # noqa: F401
from .function import Function  # noqa: F401
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,  # noqa: F401
                        no_grad, set_grad_enabled)


def _seq(x):
    from .._tensor import Tensor

    if x is None:
        return None
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x)


def _grad_arg(g):
    from .._creation import tensor
    from .._tensor import Tensor

    if g is None or isinstance(g, Tensor):
        return None if g is None else g._h
    return B.hand_over(tensor(g))


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None):
    tensors = _seq(tensors)
    grads = _seq(grad_tensors) if grad_tensors is not None else (None,) * len(tensors)
    if len(grads) != len(tensors):
        raise RuntimeError(f"grad can be implicitly created only for scalar outputs")
    opts = B.js.object()
    if retain_graph is not None:
        B.js.set(opts, "retainGraph", bool(retain_graph))
    if create_graph:
        B.js.set(opts, "createGraph", True)
    if inputs is not None:
        inputs = _seq(inputs)
        if not inputs:
            raise RuntimeError("'inputs' argument to backward() cannot be empty.")
        B.js.set(opts, "inputs", B.js.array(*[t._h for t in inputs]))
    try:
        if len(tensors) == 1:
            B.call_engine(tensors[0]._h.backward, _grad_arg(grads[0]), opts)
        else:
            B.call_engine(B.js.backwardMany, B.js.array(*[t._h for t in tensors]),
                          B.js.array(*[_grad_arg(g) for g in grads]), opts)
    finally:
        B.release_returned()


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    from .._tensor import Tensor

    single_out = isinstance(outputs, Tensor)
    outputs = _seq(outputs)
    inputs_t = _seq(inputs)
    opts = B.js.object()
    if grad_outputs is not None:
        gos = _seq(grad_outputs)
        B.js.set(opts, "gradOutputs", B.js.array(*[_grad_arg(g) for g in gos]))
    if retain_graph is not None:
        B.js.set(opts, "retainGraph", bool(retain_graph))
    if create_graph:
        B.js.set(opts, "createGraph", True)
    if allow_unused or materialize_grads:
        B.js.set(opts, "allowUnused", True)
    try:
        res = B.call_engine(B.hg.grad, B.js.array(*[t._h for t in outputs]), B.js.array(*[t._h for t in inputs_t]), opts)
    finally:
        B.release_returned()
    out = B.grads_from_js(res)
    if materialize_grads:
        from .._creation import zeros_like

        out = tuple(zeros_like(i) if g is None else g for g, i in zip(out, inputs_t))
    _ = single_out
    return out


class _VariableMeta(type):
    def __instancecheck__(cls, other):
        from .._tensor import Tensor

        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """The legacy `Variable(t, requires_grad=...)`: since PyTorch 0.4 it makes
    a tensor (here `data` itself, with requires_grad set as asked), and every
    tensor is an instance of it."""

    def __new__(cls, data, requires_grad=False, volatile=False):
        if requires_grad:
            data.requires_grad_(True)
        return data


variable = Variable


def _tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    backward(self, gradient, retain_graph, create_graph, inputs=inputs)


def _install():
    from .._tensor import Tensor

    Tensor.backward = _tensor_backward


_install()


def __getattr__(name):
    from .. import _missing

    return _missing.missing("torch.autograd", name)
