"""Named results PyTorch returns: `torch.return_types.max(values=..., indices=...)`."""

from collections import namedtuple


def _structseq(name):
    base = namedtuple(name, ["values", "indices"])

    class R(base):
        __slots__ = ()

        def __repr__(self):
            return f"torch.return_types.{name}(\nvalues={self.values!r},\nindices={self.indices!r})"

    R.__name__ = R.__qualname__ = name
    R.__module__ = "torch.return_types"
    return R


max = _structseq("max")  # noqa: A001
min = _structseq("min")  # noqa: A001


def minmax(which, values, indices):
    return (max if which == "max" else min)(values, indices)


class IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__
