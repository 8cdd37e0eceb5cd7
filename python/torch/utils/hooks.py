"""`torch.utils.hooks.RemovableHandle` over the engine's hook handles."""


class RemovableHandle:
    next_id = 0

    def __init__(self, engine_handle=None, on_remove=None):
        self._h = engine_handle
        self._on_remove = on_remove
        if engine_handle is not None:
            self.id = int(engine_handle.id)
        else:
            self.id = RemovableHandle.next_id
            RemovableHandle.next_id += 1

    def remove(self):
        if self._h is not None:
            self._h.remove()
        if self._on_remove is not None:
            self._on_remove()
            self._on_remove = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()

    def __repr__(self):
        return f"<torch.utils.hooks.RemovableHandle object at {hex(id(self))}>"
