"""torch.nn.modules.module's global registration hooks: called when any module
registers a submodule, parameter or buffer; a hook's non-None result is
registered instead. Pure Python bookkeeping, as in PyTorch."""

from collections import OrderedDict

from ...utils.hooks import RemovableHandle

modules = OrderedDict()
parameters = OrderedDict()
buffers = OrderedDict()


def _add(d, hook):
    h = RemovableHandle(None, d)
    d[h.id] = hook
    return h


def register_module_module_registration_hook(hook):
    return _add(modules, hook)


def register_module_parameter_registration_hook(hook):
    return _add(parameters, hook)


def register_module_buffer_registration_hook(hook):
    return _add(buffers, hook)


def run(hooks, module, name, value):
    for hook in list(hooks.values()):
        out = hook(module, name, value)
        if out is not None:
            value = out
    return value
