#!/usr/bin/env python3
"""Record what real PyTorch draws, for test_random.py to replay without it.

    /work/torchenv/bin/python tests/python/gen_random_fixtures.py

Writes tests/python/random_fixtures.json.  Each case is a sequence of ops on
one generator (the default one after torch.manual_seed, a torch.Generator
after manual_seed, a torch.Generator never seeded, or the default generator
of a fresh process never seeded), so the mt19937 position and the cached
Box-Muller sample carry from op to op exactly as in a script.  Floats are
stored as float.hex; outputs above SMALL elements as a SHA-256 of their
packed bytes plus their first values, which is just as exact.

The numbers depend on the CPU kernels torch picks: record on x86-64 with
AVX2 (the float32 normal_ path of 16+ elements differs elsewhere).
"""

import hashlib
import json
import math
import os
import struct
import subprocess
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "random_fixtures.json")
SMALL = 128
SEEDS = [0, 1, 42, 2 ** 40 + 7]
DTYPES = {"float32": torch.float32, "float64": torch.float64}


def encode(values, dtype):
    """Full values for small outputs, else a digest of the packed bytes."""
    if dtype == "int64":
        shown = [int(v) for v in values]
        packed = struct.pack("<%dq" % len(values), *shown)
    else:
        shown = [float(v).hex() for v in values]
        code = "f" if dtype == "float32" else "d"
        packed = struct.pack("<%d%s" % (len(values), code), *values)
    if len(values) <= SMALL:
        return {"values": shown}
    return {"numel": len(values), "sha256": hashlib.sha256(packed).hexdigest(),
            "head": shown[:8]}


def flat(t):
    return t.detach().flatten().tolist()


def run_op(op, gen, saved):
    """Run one op with real torch; gen is None for the default generator."""
    kw = {} if gen is None else {"generator": gen}
    kind = op["op"]
    shape = op.get("shape")
    dtype = op.get("dtype", "float32")
    tdt = DTYPES.get(dtype)
    if kind == "rand":
        return encode(flat(torch.rand(*shape, dtype=tdt, **kw)), dtype)
    if kind == "randn":
        return encode(flat(torch.randn(*shape, dtype=tdt, **kw)), dtype)
    if kind == "uniform":
        t = torch.empty(*shape, dtype=tdt).uniform_(op["low"], op["high"], **kw)
        return encode(flat(t), dtype)
    if kind == "normal":
        t = torch.empty(*shape, dtype=tdt).normal_(op["mean"], op["std"], **kw)
        return encode(flat(t), dtype)
    if kind == "randint":
        return encode(flat(torch.randint(op["low"], op["high"], tuple(shape), **kw)), "int64")
    if kind == "randperm":
        return encode(flat(torch.randperm(op["n"], **kw)), "int64")
    if kind == "kaiming":
        t = torch.empty(op["fan_out"], op["fan_in"], dtype=tdt)
        torch.nn.init.kaiming_uniform_(t, a=op["a"], **kw)
        return encode(flat(t), dtype)
    if kind == "linear":
        old = torch.get_default_dtype()
        torch.set_default_dtype(tdt)
        try:
            if gen is None:
                layer = torch.nn.Linear(op["in"], op["out"], bias=op["bias"])
                w, b = layer.weight, layer.bias
            else:
                # nn.Linear takes no generator: its reset_parameters by hand.
                w = torch.empty(op["out"], op["in"])
                torch.nn.init.kaiming_uniform_(w, a=math.sqrt(5), generator=gen)
                b = None
                if op["bias"]:
                    b = torch.empty(op["out"])
                    bound = 1 / math.sqrt(op["in"]) if op["in"] > 0 else 0
                    torch.nn.init.uniform_(b, -bound, bound, generator=gen)
        finally:
            torch.set_default_dtype(old)
        return {"weight": encode(flat(w), dtype),
                "bias": None if b is None else encode(flat(b), dtype)}
    if kind == "state":
        state = (torch.get_rng_state() if gen is None else gen.get_state()).numpy().tobytes()
        saved.append(state)
        if op.get("full"):
            return {"hex": state.hex()}
        return {"sha256": hashlib.sha256(state).hexdigest()}
    if kind == "load_state":
        state = torch.tensor(list(saved[op["index"]]), dtype=torch.uint8)
        if gen is None:
            torch.set_rng_state(state)
        else:
            gen.set_state(state)
        return {}
    if kind == "initial_seed":
        return {"seed": (torch.initial_seed() if gen is None else gen.initial_seed())}
    raise ValueError(kind)


def run_case(case):
    kind = case["generator"]
    if kind == "default":
        torch.manual_seed(case["seed"])
        gen = None
    elif kind == "generator":
        gen = torch.Generator().manual_seed(case["seed"])
    elif kind == "fresh_generator":
        gen = torch.Generator()
    else:
        raise ValueError(kind)
    saved = []
    results = [run_op(op, gen, saved) for op in case["ops"]]
    return dict(case, results=results)


def fresh_process_case(ops):
    """The default generator of a process that never seeds: its seed comes
    from /dev/urandom, so record it (replay seeds with it) and the draws."""
    code = ("import json, sys; sys.path.insert(0, %r); import torch; "
            "import gen_random_fixtures as g; seed = torch.initial_seed(); "
            "ops = json.loads(sys.stdin.read()); saved = []; "
            "print(json.dumps({'seed': seed, 'results': [g.run_op(op, None, saved) for op in ops]}))"
            % HERE)
    out = subprocess.run([sys.executable, "-c", code], input=json.dumps(ops),
                         capture_output=True, text=True, check=True).stdout
    rec = json.loads(out)
    return {"name": "unseeded default generator, fresh process", "generator": "unseeded",
            "seed": rec["seed"], "ops": ops, "results": rec["results"]}


def shapes_ops():
    """rand/randn of every size around the 16-element switch, both dtypes."""
    ops = []
    for dtype in DTYPES:
        for shape in [[1], [3], [7], [15], [16], [17], [31], [32], [33], [100], [2, 3],
                      [4, 4], [3, 11], [1000], [4097]]:
            ops.append({"op": "rand", "shape": shape, "dtype": dtype})
            ops.append({"op": "randn", "shape": shape, "dtype": dtype})
    return ops


CACHE_OPS = [
    # randn(3) leaves r*sin cached; randn(5) starts from it; randn(20) (the
    # 16+ path) neither reads nor clears it; rand(2) advances mt19937 only.
    {"op": "randn", "shape": [3]}, {"op": "randn", "shape": [5]},
    {"op": "randn", "shape": [20]}, {"op": "rand", "shape": [2]},
    {"op": "randn", "shape": [1]}, {"op": "randn", "shape": [1], "dtype": "float64"},
    {"op": "normal", "shape": [3], "mean": 2.0, "std": 0.5, "dtype": "float64"},
    {"op": "normal", "shape": [2], "mean": -1.0, "std": 3.0},
    {"op": "randn", "shape": [16], "dtype": "float64"}, {"op": "randn", "shape": [1]},
    {"op": "state"},
]

DIST_OPS = [
    {"op": "uniform", "shape": [5], "low": -0.3, "high": 0.7},
    {"op": "uniform", "shape": [2, 3], "low": -2.5, "high": 1e-3, "dtype": "float64"},
    {"op": "uniform", "shape": [50], "low": 3, "high": 1e6},
    {"op": "uniform", "shape": [10000], "low": -0.123, "high": 4.56},
    {"op": "uniform", "shape": [3000], "low": -0.123, "high": 4.56, "dtype": "float64"},
    {"op": "uniform", "shape": [4], "low": 1.5, "high": 1.5},
    {"op": "normal", "shape": [7], "mean": 0.5, "std": 2.0},
    {"op": "normal", "shape": [40], "mean": -3.0, "std": 0.1},
    {"op": "normal", "shape": [40], "mean": 1.0, "std": 3.7, "dtype": "float64"},
    {"op": "normal", "shape": [5000], "mean": 0.25, "std": 1.75},
    {"op": "normal", "shape": [20], "mean": 5.0, "std": 0.0},
    {"op": "randint", "shape": [20], "low": 0, "high": 10},
    {"op": "randint", "shape": [2, 3], "low": -5, "high": 5},
    {"op": "randint", "shape": [9], "low": -100, "high": 3},
    {"op": "randint", "shape": [6], "low": 0, "high": 2 ** 28 - 1},
    {"op": "randint", "shape": [6], "low": 0, "high": 2 ** 28},
    {"op": "randint", "shape": [6], "low": 0, "high": 2 ** 32},
    {"op": "randint", "shape": [5], "low": -2 ** 40, "high": 2 ** 40},
    {"op": "randint", "shape": [3], "low": -2 ** 63, "high": 2 ** 63 - 1},
    {"op": "randperm", "n": 1}, {"op": "randperm", "n": 2}, {"op": "randperm", "n": 10},
    {"op": "randperm", "n": 1000},
    {"op": "kaiming", "fan_in": 6, "fan_out": 4, "a": 0.0},
    {"op": "kaiming", "fan_in": 30, "fan_out": 3, "a": 0.2, "dtype": "float64"},
    {"op": "state"},
]

LINEAR_OPS = [
    {"op": "linear", "in": 3, "out": 2, "bias": True},
    {"op": "linear", "in": 5, "out": 4, "bias": False},
    {"op": "linear", "in": 784, "out": 10, "bias": True},
    {"op": "linear", "in": 100, "out": 100, "bias": True},
    {"op": "linear", "in": 4, "out": 3, "bias": True, "dtype": "float64"},
    {"op": "randn", "shape": [2, 3]},
    {"op": "state"},
]

STATE_OPS = [
    {"op": "randn", "shape": [3], "dtype": "float64"},  # leaves a cached sample
    {"op": "rand", "shape": [700]},                      # crosses a 624-word block
    {"op": "state", "full": True},
    {"op": "randn", "shape": [9]}, {"op": "rand", "shape": [5]},
    {"op": "load_state", "index": 0},
    {"op": "randn", "shape": [9]}, {"op": "rand", "shape": [5]},
    {"op": "state"},
]


def build_cases():
    cases = []
    for seed in SEEDS:
        cases.append({"name": "sizes, seed %d" % seed, "generator": "default", "seed": seed,
                      "ops": [{"op": "initial_seed"}] + shapes_ops()})
        cases.append({"name": "cached normal, seed %d" % seed, "generator": "default",
                      "seed": seed, "ops": CACHE_OPS})
        cases.append({"name": "distributions, seed %d" % seed, "generator": "default",
                      "seed": seed, "ops": DIST_OPS})
        cases.append({"name": "nn.Linear, seed %d" % seed, "generator": "default",
                      "seed": seed, "ops": LINEAR_OPS})
    for seed in [7, 2 ** 64 - 1, -1, 2 ** 63]:
        cases.append({"name": "torch.Generator, seed %d" % seed, "generator": "generator",
                      "seed": seed, "ops": [{"op": "initial_seed"}] + CACHE_OPS + LINEAR_OPS})
    cases.append({"name": "torch.Generator() never seeded", "generator": "fresh_generator",
                  "seed": None, "ops": [{"op": "initial_seed"}] + CACHE_OPS + DIST_OPS})
    cases.append({"name": "get_state / set_state", "generator": "generator", "seed": 99,
                  "ops": STATE_OPS})
    cases.append({"name": "get_state / set_rng_state, default", "generator": "default",
                  "seed": 5, "ops": STATE_OPS})
    recorded = [run_case(c) for c in cases]
    recorded.append(fresh_process_case([{"op": "initial_seed"}] + CACHE_OPS + LINEAR_OPS))
    return recorded


def main():
    cases = build_cases()
    data = {"torch_version": torch.__version__,
            "cpu_capability": torch.backends.cpu.get_cpu_capability(),
            "cases": cases}
    with open(OUT, "w") as f:
        json.dump(data, f, indent=0, sort_keys=True)
        f.write("\n")
    nops = sum(len(c["ops"]) for c in cases)
    print("wrote %s: %d cases, %d ops" % (OUT, len(cases), nops))


if __name__ == "__main__":
    main()
