#!/usr/bin/env python3
"""Generate tests/python/print_fixtures.json: real PyTorch's tensor printing.

    /work/torchenv/bin/python tests/python/gen_print_fixtures.py

PyTorch is the oracle for python/torch/_tensor_str.py.  Every input is written
out here or drawn from a local random.Random with a fixed seed (never torch's
RNG), so rerunning gives the same file for a given PyTorch version.

Each case in the JSON:
    name      unique label
    kind      "repr" (repr of a tensor), "str" (torch._tensor_str._tensor_str
              body at some indent), "param" (repr of an nn.Parameter),
              "size" (repr of a torch.Size), "dtype" (str of a dtype),
              "options" (get_printoptions() after the option calls)
    options   list of keyword dicts for set_printoptions, applied in order
              after a reset to profile 'default'
    dtype, shape, values
              the tensor: values flat row-major; floats as JSON numbers (the
              repr of the float64 holding the element, which round-trips
              exactly) or "nan"/"inf"/"-inf"; ints and bools as themselves
    requires_grad, grad_fn, prefix, tensor_contents, indent
              only where a case uses them
    expected  PyTorch's string (a dict for "options")
A threshold of infinity is written as the string "inf".
"""

import json
import math
import os
import random
import sys

sys.dont_write_bytecode = True

import torch  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "print_fixtures.json")

DTYPES = {
    "float32": torch.float32, "float64": torch.float64,
    "float16": torch.float16, "bfloat16": torch.bfloat16,
    "int64": torch.int64, "int32": torch.int32, "int16": torch.int16,
    "int8": torch.int8, "uint8": torch.uint8, "bool": torch.bool,
}
NAMES = {v: k for k, v in DTYPES.items()}

CASES = []


def enc_options(opts):
    return {k: ("inf" if v == math.inf else v) for k, v in opts.items()}


def dec_options(opts):
    return {k: (math.inf if v == "inf" else v) for k, v in opts.items()}


def enc_values(t):
    flat = t.detach().reshape(-1).tolist()
    if t.dtype.is_floating_point:
        return [v if math.isfinite(v) else repr(v) for v in flat]
    return flat


def apply_options(options):
    torch.set_printoptions(profile="default")
    for o in options:
        torch.set_printoptions(**dec_options(o))


def add(name, t, kind="repr", options=(), indent=None, prefix=None, tensor_contents=None):
    """Record one case; ``t`` is the tensor (or Parameter) to print."""
    options = [enc_options(o) for o in options]
    apply_options(options)
    case = {"name": name, "kind": kind, "options": options,
            "dtype": NAMES[t.dtype], "shape": list(t.shape), "values": enc_values(t)}
    if kind == "str":
        case["indent"] = indent
        expected = torch._tensor_str._tensor_str(t, indent)
    elif kind == "param":
        case["requires_grad"] = t.requires_grad
        expected = repr(t)
    else:
        case["requires_grad"] = t.requires_grad
        case["grad_fn"] = type(t.grad_fn).__name__ if t.grad_fn is not None else None
        shown = t
        if prefix is not None:
            # A Tensor subclass prints its class name where 'tensor' goes.
            assert prefix.endswith("(")
            cls = type(prefix[:-1], (torch.Tensor,), {})
            shown = t.as_subclass(cls)
            case["prefix"] = prefix
        if tensor_contents is not None:
            case["tensor_contents"] = tensor_contents
            expected = shown.__repr__(tensor_contents=tensor_contents)
        else:
            expected = repr(shown)
    case["expected"] = expected
    torch.set_printoptions(profile="default")
    CASES.append(case)


def T(values, dtype="float32", shape=None, requires_grad=False):
    t = torch.tensor(values, dtype=DTYPES[dtype])
    if shape is not None:
        t = t.reshape(shape)
    if requires_grad:
        t.requires_grad_(True)
    return t


RNG = random.Random(20240607)


def randn(shape, scale=1.0, dtype="float32"):
    n = math.prod(shape)
    return T([RNG.gauss(0.0, 1.0) * scale for _ in range(n)], dtype, shape)


def randint(shape, lo, hi, dtype="int64"):
    n = math.prod(shape)
    return T([RNG.randint(lo, hi) for _ in range(n)], dtype, shape)


OPTION_SETS = {
    "p2": [{"precision": 2}],
    "p8": [{"precision": 8}],
    "sciT": [{"sci_mode": True}],
    "sciF": [{"sci_mode": False}],
    "lw40": [{"linewidth": 40}],
    "th5e2": [{"threshold": 5, "edgeitems": 2}],
    "short": [{"profile": "short"}],
    "full": [{"profile": "full"}],
}

NAN = float("nan")
INF = float("inf")


def scalars():
    floats = [0.0, -0.0, 1.0, -1.0, 3.5, -2.5, 0.1, 1 / 3, 2 / 3, 1e-5, 1e-4, 9.9999e-5,
              1e8, 1.5e8, 1e10, 123456.789, 99999.5, NAN, INF, -INF, 1e-40, 3.4e38,
              -7e-3, 12345678.0, 0.5, 2.675, 1.00005]
    for dt in ("float32", "float64", "float16", "bfloat16"):
        for i, v in enumerate(floats):
            if dt in ("float16", "bfloat16") and i % 3:
                continue
            add(f"scalar_{dt}_{i}", T(v, dt))
    for dt, vals in (("int64", [0, -7, 2 ** 40, -(2 ** 63)]), ("int32", [5, -2 ** 31]),
                     ("int16", [-300]), ("int8", [-128]), ("uint8", [255])):
        for i, v in enumerate(vals):
            add(f"scalar_{dt}_{i}", T(v, dt))
    add("scalar_bool_T", T(True, "bool"))
    add("scalar_bool_F", T(False, "bool"))
    for key in ("p2", "p8", "sciT", "sciF"):
        add(f"scalar_third_{key}", T(1 / 3), options=OPTION_SETS[key])
        add(f"scalar_big_{key}", T(1e10), options=OPTION_SETS[key])
        add(f"scalar_int_{key}", T(42.0), options=OPTION_SETS[key])
    add("scalar_threshold0", T(2.5), options=[{"threshold": 0}])
    add("scalar_edge0", T(2.5), options=[{"edgeitems": 0}])


def vectors():
    vecs = {
        "ints": [1.0, 2.0, 3.0],
        "halves": [1.5, 2.25, -3.125],
        "tenths": [0.1, 0.2, 0.3],
        "nan_inf": [1.0, NAN, INF, -INF],
        "nan_inf_frac": [1.5, NAN, -INF, 2.25],
        "negzero": [-0.0, 0.0, 1.0],
        "negzero_only": [-0.0, 0.0],
        "negzero_frac": [-0.0, 1.5, 0.0],
        "zeros": [0.0, 0.0, 0.0],
        "nonfinite_only": [NAN, INF, -INF],
        "ratio_1000": [1.0, 1000.0],
        "ratio_over": [1.0, 1000.0001],
        "ratio_frac": [0.5, 500.0],
        "ratio_frac_over": [0.5, 500.25],
        "min_1e-4": [1e-4, 1.0],
        "min_below": [9.99e-5, 0.5],
        # float32(1e-4) is just below 1e-4 (sci mode); float64's is not.
        "min_1e-4_ratio200": [1e-4, 0.02],
        "max_1e8": [1e8, 1e7],
        "max_over": [1.0000001e8, 2e8],
        "big_ints": [123456789.0, 2.0],
        "mixed_sign": [-1.5, 2.0, -300.25, 4.0],
        "large_neg": [-99999.0, 5.0, 17.0],
        "tiny": [1e-20, 2e-20],
        "denormal": [1e-40, 1.0],
        "huge": [3e38, -3e38],
        "round_half": [0.00005, 0.00015, 0.5],
        "precision_edge": [0.99999, 9.99995, 1.23456789],
        "one": [7.0],
        "one_frac": [7.25],
        "int_and_nan": [1.0, NAN],
        "neg_ints": [-1.0, -20.0, -300.0],
    }
    for name, v in vecs.items():
        for dt in ("float32", "float64", "float16", "bfloat16"):
            if dt in ("float16", "bfloat16") and name not in (
                    "halves", "tenths", "nan_inf", "min_below", "mixed_sign", "huge"):
                continue
            add(f"vec_{name}_{dt}", T(v, dt))
    for key, opts in OPTION_SETS.items():
        for name in ("halves", "tenths", "nan_inf", "ratio_over", "big_ints", "zeros",
                     "neg_ints", "tiny", "negzero_frac"):
            add(f"vec_{name}_{key}", T(vecs[name]), options=opts)
    add("vec_p10", T([0.1, 0.7]), options=[{"precision": 10}])
    add("vec_p12_f64", T([0.1, 0.7], "float64"), options=[{"precision": 12}])
    add("vec_p0", T([0.4, 1.6]), options=[{"precision": 0}])
    add("vec_p1_sci", T([1e-9, 1.0]), options=[{"precision": 1}])
    add("vec_lw10", T([1.5, 2.5, 3.5]), options=[{"linewidth": 10}])
    add("vec_lw1_2d", T([1.5, 2.5, 3.5, 4.5], shape=(2, 2)), options=[{"linewidth": 1}])

    ints = {
        "small": [1, 2, 3],
        "neg": [-5, 10, -200],
        "big": [2 ** 62, -1, 7],
        "zero": [0],
    }
    for name, v in ints.items():
        for dt in ("int64", "int32"):
            if dt == "int32" and name == "big":
                continue
            add(f"ivec_{name}_{dt}", T(v, dt))
    add("ivec_int16", T([-300, 300, 1], "int16"))
    add("ivec_int8", T([-128, 127, 0], "int8"))
    add("ivec_uint8", T([0, 255, 17], "uint8"))
    add("bvec", T([True, False], "bool"))
    add("bvec_true", T([True, True, True], "bool"))
    add("bvec_false", T([False], "bool"))
    for key in ("sciT", "p2", "lw40", "th5e2"):
        add(f"ivec_long_{key}", T(list(range(-10, 15))), options=OPTION_SETS[key])
        add(f"bvec_long_{key}", T([i % 3 == 0 for i in range(20)], "bool"),
            options=OPTION_SETS[key])


def random_tensors():
    scales = [1e-6, 1e-3, 1.0, 1e3, 1e6, 1e9]
    for scale in scales:
        for n in (1, 5, 13, 30, 100):
            add(f"rand_vec_s{scale:g}_n{n}", randn((n,), scale))
    for n in (7, 40):
        for dt in ("float64", "float16", "bfloat16"):
            add(f"rand_vec_{dt}_n{n}", randn((n,), 1.0, dt))
    shapes = [(2, 3), (1, 100), (100, 1), (3, 4, 5), (2, 3, 4, 5), (2, 1, 3), (1, 1, 1),
              (4, 7), (6, 20), (2, 2, 2, 2, 2), (3, 1), (1, 3)]
    for shape in shapes:
        tag = "x".join(map(str, shape))
        add(f"rand_{tag}", randn(shape))
        add(f"rand_{tag}_big", randn(shape, 1e5))
        add(f"randint_{tag}", randint(shape, -1000, 1000))
        n = math.prod(shape)
        add(f"intfloat_{tag}", T([float(RNG.randint(-50, 50)) for _ in range(n)], "float32", shape))
        add(f"bool_{tag}", T([RNG.random() < 0.5 for _ in range(n)], "bool", shape))
    for shape in [(2, 3), (3, 4, 5), (1, 100), (2, 3, 4, 5)]:
        tag = "x".join(map(str, shape))
        add(f"rand_{tag}_f64", randn(shape, 10.0, "float64"))
        for key in ("p2", "lw40", "th5e2", "sciT", "short"):
            add(f"rand_{tag}_{key}", randn(shape), options=OPTION_SETS[key])
    # Widths that straddle the 80 columns with nested indents.
    for shape in [(2, 11), (2, 12), (2, 2, 10), (2, 2, 11), (1, 1, 13)]:
        tag = "x".join(map(str, shape))
        add(f"wrap_{tag}", randn(shape))


def summarized():
    add("sum_arange_f", torch.arange(1200, dtype=torch.float32))
    add("sum_arange_i", torch.arange(1200))
    add("sum_arange_frac", torch.arange(1200, dtype=torch.float32) / 7)
    add("sum_1001", randn((1001,)))
    add("sum_35x35", randn((35, 35)))
    add("sum_11x12x10", randn((11, 12, 10)))
    add("sum_10x10x11", randn((10, 10, 11)))
    add("sum_bool_40x40", T([RNG.random() < 0.3 for _ in range(1600)], "bool", (40, 40)))
    add("sum_int_40x40", randint((40, 40), -99999, 99999))
    add("sum_2x600", randn((2, 600)))
    add("sum_600x2", randn((600, 2)))
    # The formatter sees only the edges: a huge middle value must not matter.
    mid = [1.0] * 1101
    mid[550] = 1e12
    add("sum_hidden_mid", T(mid))
    mid_frac = [float(i) for i in range(1101)]
    mid_frac[550] = 0.5
    add("sum_hidden_frac", T(mid_frac))
    small = {"v8": randn((8,)), "m4x5": randn((4, 5)), "t3x4x5": randn((3, 4, 5)),
             "i9": T(list(range(9))), "b3x6": T([i % 2 == 0 for i in range(18)], "bool", (3, 6)),
             "m5x2": randn((5, 2))}
    for name, t in small.items():
        for key in ("th5e2", "short", "full"):
            add(f"sum_{name}_{key}", t, options=OPTION_SETS[key])
        add(f"sum_{name}_edge0", t, options=[{"threshold": 5, "edgeitems": 0}])
        add(f"sum_{name}_edge1", t, options=[{"threshold": 5, "edgeitems": 1}])
        add(f"sum_{name}_edge0_nosum", t, options=[{"edgeitems": 0}])
        add(f"sum_{name}_edge5", t, options=[{"threshold": 3, "edgeitems": 5}])
    add("sum_full_1100", torch.arange(1100, dtype=torch.float32) / 3, options=OPTION_SETS["full"])
    add("sum_full_override", torch.arange(1200), options=[{"profile": "full", "threshold": 1100}])


def empties():
    for shape in [(0,), (0, 3), (2, 0, 4), (3, 0)]:
        tag = "x".join(map(str, shape))
        for dt in ("float32", "float64", "int64", "bool", "int32", "float16"):
            add(f"empty_{tag}_{dt}", torch.empty(shape, dtype=DTYPES[dt]))
        add(f"empty_{tag}_grad", torch.empty(shape).requires_grad_(True))
        add(f"empty_{tag}_edge0", torch.empty(shape), options=[{"edgeitems": 0}])
        add(f"empty_{tag}_str", torch.empty(shape), kind="str", indent=7)
    add("empty_contents", torch.empty((0, 2)), tensor_contents="<nothing>")
    add("empty_param", torch.nn.Parameter(torch.empty((0, 4))), kind="param")


def autograd():
    x = torch.tensor([1.5, -2.0, 3.25], requires_grad=True)
    w = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], requires_grad=True)
    add("grad_leaf", x)
    add("grad_leaf_2d", w)
    add("grad_mul", x * 2)
    add("grad_add", x + 1)
    add("grad_sum", x.sum())
    add("grad_mean", x.mean())
    add("grad_exp", x.exp())
    add("grad_pow", x.pow(2))
    add("grad_relu", torch.relu(x))
    add("grad_select", x[0])
    add("grad_unsqueeze", x.unsqueeze(0))
    add("grad_mm", x.unsqueeze(0) @ w)
    add("grad_t", w.t())
    add("grad_view", w.view(2, 3))
    add("grad_f64", torch.tensor([0.1, 0.2], dtype=torch.float64, requires_grad=True) * 3)
    add("grad_f64_leaf", torch.tensor([0.1, 0.2], dtype=torch.float64, requires_grad=True))
    add("grad_f16", torch.tensor([0.1, 0.2], dtype=torch.float16, requires_grad=True) * 3)
    add("grad_scalar_leaf", torch.tensor(2.0, requires_grad=True))
    add("grad_big", randn((20, 10)).requires_grad_(True) * 1)
    add("grad_summarized", (torch.arange(1500, dtype=torch.float32).requires_grad_(True) * 1))
    # Suffix wrapping: dtype plus grad_fn after rows of every length.
    for n in range(1, 26):
        v = torch.tensor([RNG.uniform(-10, 10) for _ in range(n)], dtype=torch.float64,
                         requires_grad=True)
        add(f"suffix_f64_mul_n{n}", v * 2)
        add(f"suffix_f64_leaf_n{n}", v)
    for n in (3, 5, 8):
        v = torch.tensor([RNG.uniform(-10, 10) for _ in range(n)], dtype=torch.float64,
                         requires_grad=True)
        add(f"suffix_lw40_n{n}", v * 2, options=[{"linewidth": 40}])
        add(f"suffix_lw20_n{n}", v, options=[{"linewidth": 20}])
        add(f"suffix_edge0_n{n}", v.exp(), options=[{"edgeitems": 0, "threshold": 2}])
    add("suffix_int32_long", torch.arange(30, dtype=torch.int32))
    add("suffix_int8_2d", torch.arange(24, dtype=torch.int8).reshape(2, 12))


def parameters():
    add("param_vec", torch.nn.Parameter(torch.tensor([1.0, 2.5])), kind="param")
    add("param_scalar", torch.nn.Parameter(torch.tensor(0.5)), kind="param")
    add("param_2d", torch.nn.Parameter(randn((3, 4))), kind="param")
    add("param_3d", torch.nn.Parameter(randn((2, 3, 4))), kind="param")
    add("param_nograd", torch.nn.Parameter(randn((2, 2)), requires_grad=False), kind="param")
    add("param_f64", torch.nn.Parameter(randn((4,), 1.0, "float64")), kind="param")
    add("param_int", torch.nn.Parameter(torch.arange(4), requires_grad=False), kind="param")
    add("param_big", torch.nn.Parameter(randn((33, 33))), kind="param")
    add("param_wide", torch.nn.Parameter(randn((1, 30))), kind="param")
    add("param_sciT", torch.nn.Parameter(randn((2, 2))), kind="param",
        options=OPTION_SETS["sciT"])


def bodies_and_prefixes():
    for indent in (0, 3, 7, 10, 60, 85):
        add(f"str_vec30_i{indent}", randn((30,)), kind="str", indent=indent)
        add(f"str_3x4x5_i{indent}", randn((3, 4, 5)), kind="str", indent=indent)
    add("str_scalar", T(1.25), kind="str", indent=0)
    add("str_int_2d", randint((3, 3), -9, 9), kind="str", indent=2)
    add("str_summarized", randn((33, 33)), kind="str", indent=4)
    add("contents_vec", T([1.0, 2.0]), tensor_contents="[a, b]")
    add("contents_grad", T([1.0, 2.0], requires_grad=True), tensor_contents="[x]")
    add("contents_f64", T([1.0, 2.0], "float64"), tensor_contents="...")
    add("contents_multiline", T([1.0], "float64"),
        tensor_contents="[first,\n second line that is long enough to wrap the dtype suffix]")
    for prefix in ("MyTensor(", "P(", "AVeryLongTensorSubclassName("):
        add(f"prefix_{prefix[:-1]}_vec", randn((30,)), prefix=prefix)
        add(f"prefix_{prefix[:-1]}_3d", randn((2, 3, 4), 1.0, "float64"), prefix=prefix)
        add(f"prefix_{prefix[:-1]}_empty", torch.empty((0, 2)), prefix=prefix)


def sizes_dtypes_options():
    for shape in [(), (0,), (2, 3), (1,), (4, 0, 2), (1, 2, 3, 4, 5)]:
        CASES.append({"name": f"size_{len(shape)}_{'x'.join(map(str, shape))}",
                      "kind": "size", "options": [], "shape": list(shape),
                      "expected": repr(torch.Size(shape))})
    for name, dt in DTYPES.items():
        CASES.append({"name": f"dtype_{name}", "kind": "dtype", "options": [], "dtype": name,
                      "expected": str(dt)})
    sequences = {
        "none": [],
        "precision": [{"precision": 2}],
        "short": [{"profile": "short"}],
        "full": [{"profile": "full"}],
        "full_then_p6": [{"profile": "full", "precision": 6}],
        "sci_then_reset": [{"sci_mode": True}, {"precision": 5}],
        "sci_kept": [{"sci_mode": False, "linewidth": 100}],
        "default_after": [{"threshold": 7, "edgeitems": 1}, {"profile": "default"}],
        "unknown_profile": [{"precision": 3}, {"profile": "nope"}],
    }
    for name, seq in sequences.items():
        apply_options(seq)
        got = enc_options(torch._tensor_str.get_printoptions())
        torch.set_printoptions(profile="default")
        CASES.append({"name": f"options_{name}", "kind": "options",
                      "options": [enc_options(o) for o in seq], "expected": got})


def main():
    scalars()
    vectors()
    random_tensors()
    summarized()
    empties()
    autograd()
    parameters()
    bodies_and_prefixes()
    sizes_dtypes_options()
    names = [c["name"] for c in CASES]
    assert len(names) == len(set(names)), "duplicate case names"
    meta = {"torch": torch.__version__, "count": len(CASES)}
    # One case per line: diffs between regenerations stay readable.
    with open(OUT, "w") as f:
        f.write('{"meta": ' + json.dumps(meta) + ',\n"cases": [\n')
        f.write(",\n".join(json.dumps(c) for c in CASES))
        f.write("\n]}\n")
    print(f"wrote {len(CASES)} cases to {OUT}")


if __name__ == "__main__":
    main()
