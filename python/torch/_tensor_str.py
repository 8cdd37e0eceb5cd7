"""Tensor printing, PyTorch's rules over plain Python values.

Logic ported from PyTorch's torch/_tensor_str.py (BSD-3-Clause, (c) PyTorch
contributors).

A tensor reaches this module as a flat row-major list of Python numbers plus
a shape and a dtype name ('float32', 'int64', 'bool', ...).  Everything is
stdlib-only and imports nothing from the ``torch`` package: the shim calls it
from Tensor.__repr__, and the tests load this file by path without a package.

Float values must already be the exact numbers of their dtype (a float32
element is the Python float of that float32, as Float32Array gives it).
PyTorch decides int mode, sci mode and column widths from ``.item()`` values
and from min/max cast to float64 on CPU, so plain Python float arithmetic
reproduces its decisions bit for bit; no float32 re-rounding is needed.
"""

import contextlib
import math

__all__ = [
    "set_printoptions", "get_printoptions", "printoptions", "tensor_str",
    "tensor_repr", "parameter_repr", "size_repr", "dtype_repr",
]

_FLOAT_DTYPES = frozenset(("float32", "float64", "float16", "bfloat16"))
_INT_DTYPES = frozenset(("int64", "int32", "int16", "int8", "uint8"))
_ALL_DTYPES = _FLOAT_DTYPES | _INT_DTYPES | {"bool"}

# The engine's default dtype is float32 (torch.get_default_dtype()).  A
# nonempty tensor hides its dtype when it is this one, int64 or bool: those
# are what torch.tensor() infers from Python floats, ints and bools.
_DEFAULT_DTYPE = "float32"
_IMPLIED_DTYPES = frozenset((_DEFAULT_DTYPE, "int64", "bool"))


class _PrintOptions:
    # Field order is get_printoptions()'s key order (a dataclass in PyTorch).
    __slots__ = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")

    def __init__(self):
        self.precision = 4
        self.threshold = 1000
        self.edgeitems = 3
        self.linewidth = 80
        self.sci_mode = None


PRINT_OPTS = _PrintOptions()

_PROFILES = {
    # name: (precision, threshold, edgeitems, linewidth)
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, math.inf, 3, 80),
}


def set_printoptions(precision=None, threshold=None, edgeitems=None,
                     linewidth=None, profile=None, sci_mode=None):
    """torch.set_printoptions: a profile first, then explicit overrides.

    As in PyTorch, an unknown profile name is ignored and ``sci_mode`` is
    always assigned, so any call without it returns to automatic sci mode.
    """
    opts = PRINT_OPTS
    if profile is not None and profile in _PROFILES:
        opts.precision, opts.threshold, opts.edgeitems, opts.linewidth = _PROFILES[profile]
    if precision is not None:
        opts.precision = precision
    if threshold is not None:
        opts.threshold = threshold
    if edgeitems is not None:
        opts.edgeitems = edgeitems
    if linewidth is not None:
        opts.linewidth = linewidth
    opts.sci_mode = sci_mode


def get_printoptions():
    """The current options, as keyword arguments for set_printoptions()."""
    return {name: getattr(PRINT_OPTS, name) for name in _PrintOptions.__slots__}


@contextlib.contextmanager
def printoptions(**kwargs):
    """torch.printoptions: set options for the duration of a with block."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**old)


def _check_dtype(dtype):
    if dtype not in _ALL_DTYPES:
        raise ValueError(f"unknown dtype name {dtype!r}")


class _Formatter:
    """Chooses one layout for every element of a tensor and pads to it.

    ``values`` are the elements PyTorch looks at: the whole tensor, or only
    the printed edges when the tensor is summarized.
    """

    __slots__ = ("floating", "int_mode", "sci_mode", "max_width", "_int_str",
                 "_sci_spec", "_fixed_spec")

    def __init__(self, values, dtype):
        self.floating = dtype in _FLOAT_DTYPES
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        precision = PRINT_OPTS.precision
        self._fixed_spec = f".{precision}f"
        self._sci_spec = f".{precision}e"
        # Values may arrive as floats for an integer dtype (JS numbers); print
        # them as the integers they stand for.
        self._int_str = _bool_str if dtype == "bool" else _int_str

        if not self.floating:
            to_str = self._int_str
            width = 1
            for v in values:
                n = len(to_str(v))
                if n > width:
                    width = n
            self.max_width = width
            self._sci_spec = None
            return

        isfinite = math.isfinite
        nonzero_finite = [v for v in values if v and isfinite(v)]
        if not nonzero_finite:
            # Only zeros, nans and infs: PyTorch keeps every default, even
            # under set_printoptions(sci_mode=True).
            return

        abs_vals = [abs(v) for v in nonzero_finite]
        vmin = min(abs_vals)
        vmax = max(abs_vals)
        ceil = math.ceil
        for v in nonzero_finite:
            if v != ceil(v):
                self.int_mode = False
                break

        if PRINT_OPTS.sci_mode is None:
            self.sci_mode = vmax / vmin > 1000.0 or vmax > 1.0e8 or vmin < 1.0e-4
        else:
            self.sci_mode = PRINT_OPTS.sci_mode

        # Widths come from the nonzero finite values only; a zero, nan or inf
        # that prints wider simply goes unpadded.
        if self.sci_mode:
            spec, extra = self._sci_spec, 0
        elif self.int_mode:
            # The trailing '.' that marks an integral float.
            spec, extra = ".0f", 1
        else:
            spec, extra = self._fixed_spec, 0
        width = 1
        for v in nonzero_finite:
            n = len(format(v, spec)) + extra
            if n > width:
                width = n
        self.max_width = width
        self._sci_spec = f"{width}{self._sci_spec}"

    def format(self, value):
        if not self.floating:
            ret = self._int_str(value)
        elif self.sci_mode:
            ret = format(value, self._sci_spec)
        elif self.int_mode:
            ret = format(value, ".0f")
            if math.isfinite(value):
                ret += "."
        else:
            ret = format(value, self._fixed_spec)
        pad = self.max_width - len(ret)
        return " " * pad + ret if pad > 0 else ret


def _int_str(v):
    return str(v) if type(v) is int else str(int(v))


def _bool_str(v):
    return "True" if v else "False"


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _row_sizes(shape):
    """Elements per index of each dimension (the row-major strides)."""
    sizes = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        sizes[d] = sizes[d + 1] * shape[d + 1]
    return sizes


def _summarized_values(values, shape, sizes, d, offset, out):
    """Append the elements a summarized print shows (PyTorch's
    get_summarized_data) to ``out``; the formatter sees only these."""
    edge = PRINT_OPTS.edgeitems
    n = shape[d]
    if d == len(shape) - 1:
        row = values[offset:offset + n]
        # Python slicing matches tensor slicing here, including edge == 0,
        # where row[-0:] is the whole row again.
        out.extend(row[:edge] + row[-edge:] if n > 2 * edge else row)
        return
    if not edge:
        # PyTorch returns an empty tensor for two or more dims: nothing to
        # measure, so the formatter keeps its defaults.
        return
    if n > 2 * edge:
        indices = list(range(edge)) + list(range(n - edge, n))
    else:
        indices = range(n)
    step = sizes[d]
    for i in indices:
        _summarized_values(values, shape, sizes, d + 1, offset + i * step, out)


def _vector_str(values, offset, n, indent, summarize, formatter):
    fmt = formatter.format
    element_length = formatter.max_width + 2  # ", " between elements
    opts = PRINT_OPTS
    per_line = max(1, math.floor((opts.linewidth - indent) / element_length))
    edge = opts.edgeitems
    if summarize and not edge:
        data = ["..."]
    elif summarize and n > 2 * edge:
        row = values[offset:offset + n]
        data = [fmt(v) for v in row[:edge]] + [" ..."] + [fmt(v) for v in row[-edge:]]
    else:
        data = [fmt(v) for v in values[offset:offset + n]]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested_str(values, shape, sizes, d, offset, indent, summarize, formatter):
    """One dimension's bracketed text; its children go one column right."""
    ndim = len(shape) - d
    n = shape[d]
    if ndim == 1:
        return _vector_str(values, offset, n, indent, summarize, formatter)
    edge = PRINT_OPTS.edgeitems
    step = sizes[d]

    def child(i):
        return _nested_str(values, shape, sizes, d + 1, offset + i * step,
                           indent + 1, summarize, formatter)

    if summarize and n > 2 * edge:
        slices = ([child(i) for i in range(edge)] + ["..."]
                  + [child(i) for i in range(n - edge, n)])
    else:
        slices = [child(i) for i in range(n)]
    # A blank line between slices for each dimension below the rows.
    return "[" + ("," + "\n" * (ndim - 1) + " " * (indent + 1)).join(slices) + "]"


def tensor_str(values, shape, dtype, indent=0):
    """The bracketed body of a repr (PyTorch's _tensor_str).

    ``indent`` is the column the body starts at (len('tensor(') in a repr);
    wrapped lines and nested rows are aligned to it.
    """
    _check_dtype(dtype)
    shape = tuple(shape)
    numel = _numel(shape)
    if numel == 0:
        return "[]"
    summarize = numel > PRINT_OPTS.threshold
    if not shape:
        return _Formatter(values[:1], dtype).format(values[0])
    sizes = _row_sizes(shape)
    if summarize:
        seen = []
        _summarized_values(values, shape, sizes, 0, 0, seen)
    else:
        seen = values if len(values) == numel else values[:numel]
    formatter = _Formatter(seen, dtype)
    return _nested_str(values, shape, sizes, 0, 0, indent, summarize, formatter)


def _add_suffixes(text, suffixes, indent, force_newline):
    """Append ', size=...'-style suffixes, wrapping before one that would
    pass the line width."""
    parts = [text]
    # PyTorch's own measure: one more than the last line's length (two more
    # when there is no newline, as rfind gives -1); kept for identical wraps.
    last_line_len = len(text) - text.rfind("\n") + 1
    linewidth = PRINT_OPTS.linewidth
    for suffix in suffixes:
        suffix_len = len(suffix)
        if force_newline or last_line_len + suffix_len + 2 > linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + suffix_len
            force_newline = False
        else:
            parts.append(", " + suffix)
            last_line_len += suffix_len + 2
    parts.append(")")
    return "".join(parts)


def tensor_repr(values, shape, dtype, *, requires_grad=False, grad_fn=None,
                prefix="tensor(", tensor_contents=None):
    """repr() of a dense CPU tensor, suffixes included.

    ``grad_fn`` is the backward node's class name ('MulBackward0') or None;
    ``tensor_contents`` replaces the printed body, as Tensor.__repr__'s
    keyword of that name does.
    """
    _check_dtype(dtype)
    shape = tuple(shape)
    indent = len(prefix)
    suffixes = []
    if _numel(shape) == 0:
        # NumPy's convention: the size is shown unless it is (0,), and the
        # dtype whenever it is not the default, since no element implies it.
        if len(shape) != 1:
            suffixes.append("size=" + str(shape))
        if dtype != _DEFAULT_DTYPE:
            suffixes.append("dtype=torch." + dtype)
        body = "[]" if tensor_contents is None else tensor_contents
    else:
        if not PRINT_OPTS.edgeitems:
            # With no edge items everything is '...': the size says what is hidden.
            suffixes.append("size=" + str(shape))
        if dtype not in _IMPLIED_DTYPES:
            suffixes.append("dtype=torch." + dtype)
        if tensor_contents is None:
            body = tensor_str(values, shape, dtype, indent)
        else:
            body = tensor_contents
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent, False)


def parameter_repr(values, shape, dtype, *, requires_grad=True):
    """repr() of an nn.Parameter: a header line, then the plain tensor repr
    (a parameter is a leaf, so it never shows a grad_fn)."""
    return "Parameter containing:\n" + tensor_repr(
        values, shape, dtype, requires_grad=requires_grad)


def size_repr(shape):
    """repr() of torch.Size: 'torch.Size([2, 3])'."""
    return "torch.Size([" + ", ".join(str(int(s)) for s in shape) + "])"


def dtype_repr(dtype):
    """repr() of a dtype: 'torch.float32'."""
    _check_dtype(dtype)
    return "torch." + dtype
