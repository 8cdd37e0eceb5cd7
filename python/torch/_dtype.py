"""`torch.dtype`, `torch.Size` and `torch.device` as PyTorch prints them.

The engine stores every tensor as float32; a Python tensor also carries the
dtype PyTorch would give it (int64 for integer data, bool for comparisons),
which decides how it prints and what its results' dtypes are. Values of
integer tensors are exact in float32 up to 2**24, far beyond a lesson's.
"""


class dtype:
    __slots__ = ("name", "is_floating_point", "is_signed", "itemsize")

    def __init__(self, name, is_floating_point, itemsize, is_signed=True):
        self.name = name
        self.is_floating_point = is_floating_point
        self.is_signed = is_signed
        self.itemsize = itemsize

    @property
    def is_complex(self):
        return False

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        return self.name


float32 = dtype("float32", True, 4)
float64 = dtype("float64", True, 8)
float16 = dtype("float16", True, 2)
bfloat16 = dtype("bfloat16", True, 2)
int64 = dtype("int64", False, 8)
int32 = dtype("int32", False, 4)
int16 = dtype("int16", False, 2)
int8 = dtype("int8", False, 1)
uint8 = dtype("uint8", False, 1, is_signed=False)
bool_ = dtype("bool", False, 1, is_signed=False)

ALIASES = {
    "float": float32, "float32": float32, "double": float64, "float64": float64,
    "half": float16, "float16": float16, "bfloat16": bfloat16,
    "long": int64, "int64": int64, "int": int32, "int32": int32,
    "short": int16, "int16": int16, "int8": int8, "uint8": uint8, "bool": bool_,
}

# PyTorch's type promotion among the kinds a tensor can have here.
_RANK = {bool_: 0, uint8: 1, int8: 1, int16: 2, int32: 3, int64: 4, float16: 5, bfloat16: 5, float32: 6, float64: 7}


def promote(a, b):
    return a if _RANK[a] >= _RANK[b] else b


def result_type(t_dtype, other):
    """dtype of `t op other` where other is a Tensor dtype or a Python number
    (a number only raises the category: int tensor * 2.5 -> float32)."""
    if isinstance(other, dtype):
        return promote(t_dtype, other)
    if isinstance(other, bool):
        return t_dtype
    if isinstance(other, int):
        return int64 if t_dtype is bool_ else t_dtype
    if isinstance(other, float):
        return t_dtype if t_dtype.is_floating_point else float32
    return t_dtype


def is_int(d):
    return not d.is_floating_point and d is not bool_


class Size(tuple):
    """`torch.Size([2, 3])`: a tuple that prints as PyTorch's."""

    def __new__(cls, dims=()):
        return super().__new__(cls, (int(d) for d in dims))

    def __repr__(self):
        return "torch.Size([" + ", ".join(str(d) for d in self) + "])"

    __str__ = __repr__

    def numel(self):
        n = 1
        for d in self:
            n *= d
        return n

    def __getitem__(self, i):
        r = super().__getitem__(i)
        return Size(r) if isinstance(i, slice) else r

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))


class device:
    __slots__ = ("type", "index")

    def __init__(self, type="cpu", index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        if ":" in type:
            type, index = type.split(":")[0], int(type.split(":")[1])
        self.type = type
        self.index = index

    def __repr__(self):
        return f"device(type='{self.type}')" if self.index is None else f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))


def check_device(d):
    """PyTorch without CUDA: asking for a CUDA device fails as it does there."""
    if d is None:
        return
    name = str(d.type if isinstance(d, device) else d)
    if name.startswith("cuda"):
        raise AssertionError("Torch not compiled with CUDA enabled")
    if not name.startswith("cpu"):
        raise RuntimeError(f"Expected one of cpu, cuda, ... device type at start of device string: {name}")


# PyTorch's own: <class 'torch.dtype'>, <class 'torch.Size'>, <class 'torch.device'>.
dtype.__module__ = Size.__module__ = device.__module__ = "torch"
