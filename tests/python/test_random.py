#!/usr/bin/env python3
"""Replay tests/python/random_fixtures.json against python/torch/_random.py.

    python3 tests/python/test_random.py

Stdlib only; PyTorch is not needed (the fixtures hold what it drew; see
gen_random_fixtures.py).  The module is loaded by file path rather than with
``import torch``, so a real torch on the path cannot stand in for it.
Every comparison is bit for bit: float.hex strings, or SHA-256 digests of the
packed values for the large outputs.
"""

import hashlib
import math
import os
import struct
import sys
import time
import unittest

sys.dont_write_bytecode = True

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from shim_files import load_fixture, load_shim_module  # noqa: E402

R = load_shim_module("_random.py", "hookgrad_random")
FIXTURE_DATA = load_fixture("random_fixtures.json")
CASES = FIXTURE_DATA["cases"]
SMALL = 128


def encode(values, dtype):
    """Mirror of gen_random_fixtures.encode."""
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


def numel(shape):
    return math.prod(shape)


def run_op(op, gen, saved, expected):
    """Our counterpart of gen_random_fixtures.run_op; gen=None is the
    module's default generator, reached through generator=None."""
    g = R.default_generator if gen is None else gen
    kind = op["op"]
    dtype = op.get("dtype", "float32")
    if kind == "rand":
        return encode(R.rand(numel(op["shape"]), dtype, generator=gen), dtype)
    if kind == "randn":
        return encode(R.randn(numel(op["shape"]), dtype, generator=gen), dtype)
    if kind == "uniform":
        return encode(R.uniform(numel(op["shape"]), op["low"], op["high"], dtype, gen), dtype)
    if kind == "normal":
        return encode(R.normal(numel(op["shape"]), op["mean"], op["std"], dtype, gen), dtype)
    if kind == "randint":
        return encode(R.randint(op["low"], op["high"], numel(op["shape"]), gen), "int64")
    if kind == "randperm":
        return encode(R.randperm(op["n"], gen), "int64")
    if kind == "kaiming":
        vals = R.kaiming_uniform(op["fan_in"] * op["fan_out"], op["fan_in"], op["a"], gen, dtype)
        return encode(vals, dtype)
    if kind == "linear":
        w, b = R.linear_init(op["in"], op["out"], op["bias"], gen, dtype)
        return {"weight": encode(w, dtype), "bias": None if b is None else encode(b, dtype)}
    if kind == "state":
        state = g.get_state()
        saved.append(state)
        if op.get("full"):
            return {"hex": state.hex()}
        return {"sha256": hashlib.sha256(state).hexdigest()}
    if kind == "load_state":
        # Load PyTorch's own bytes where the fixture has them in full.
        rec = expected.get("hex")
        g.set_state(bytes.fromhex(rec) if rec else saved[op["index"]])
        return {}
    if kind == "initial_seed":
        return {"seed": g.initial_seed()}
    raise ValueError(kind)


def make_generator(case):
    kind = case["generator"]
    if kind in ("default", "unseeded"):
        # The unseeded case recorded the /dev/urandom seed torch picked.
        R.default_generator.manual_seed(case["seed"])
        return None
    if kind == "generator":
        return R.Generator().manual_seed(case["seed"])
    if kind == "fresh_generator":
        return R.Generator()
    raise ValueError(kind)


class FixtureReplay(unittest.TestCase):
    def test_cases(self):
        checked = 0
        for case in CASES:
            gen = make_generator(case)
            saved = []
            # load_state ops name the earlier state op whose bytes they load.
            full = {i: r for i, r in enumerate(case["results"]) if "hex" in r}
            for i, (op, want) in enumerate(zip(case["ops"], case["results"])):
                source = full.get(op.get("index"), {}) if op["op"] == "load_state" else {}
                got = run_op(op, gen, saved, source)
                with self.subTest(case=case["name"], op_index=i, op=op):
                    self.assertEqual(got, want)
                checked += 1
        self.assertGreater(checked, 500)


class Helpers(unittest.TestCase):
    def test_fma32_midpoint(self):
        # 3 * (1 + 2**-23) is exactly halfway between two float32s; a tiny c
        # decides the side, which a double sum loses and _fma32 must not.
        a, b = 3.0, 1.0 + 2.0 ** -23
        self.assertEqual(R._fma32([a], [b], [-2.0 ** -80]), [3.0 + 2.0 ** -22])
        self.assertEqual(R._fma32([a], [b], [2.0 ** -80]), [3.0 + 2.0 ** -21])
        self.assertEqual(R._fma32([a], [b], [0.0]), [3.0 + 2.0 ** -21])  # ties to even

    def test_fma64(self):
        a, b = 1.0 + 2.0 ** -52, 1.0 - 2.0 ** -53
        self.assertEqual(R._fma64(a, b, -1.0), 2.0 ** -52 - 2.0 ** -53 - 2.0 ** -105)
        self.assertEqual(R._fma64(0.25, 1.0, 0.0), 0.25)


class GeneratorApi(unittest.TestCase):
    def test_default_seed(self):
        self.assertEqual(R.Generator().initial_seed(), 67280421310721)
        self.assertEqual(R.DEFAULT_SEED, 67280421310721)

    def test_seed_is_random_and_reported(self):
        g = R.Generator()
        s1 = g.seed()
        self.assertEqual(g.initial_seed(), s1)
        self.assertNotEqual(s1, g.seed())
        self.assertTrue(0 <= s1 < 2 ** 64)

    def test_manual_seed_range(self):
        self.assertEqual(R.Generator().manual_seed(-1).initial_seed(), 2 ** 64 - 1)
        self.assertEqual(R.Generator().manual_seed(-2 ** 63).initial_seed(), 2 ** 63)
        for bad in (2 ** 64, -2 ** 63 - 1):
            with self.assertRaises(ValueError):
                R.Generator().manual_seed(bad)

    def test_raw_draws(self):
        # mt19937 seeded with 5489 (the reference generator's default).
        g = R.Generator(5489)
        self.assertEqual(g.random32(), 3499211612)
        self.assertEqual(g.random64(), (581869302 << 32) | 3890346734)

    def test_state_round_trip(self):
        g = R.Generator(3)
        R.randn(5, generator=g)
        state = g.get_state()
        self.assertEqual(len(state), 5056)
        first = R.randn(40, generator=g) + R.randn(3, generator=g)
        g.set_state(state)
        self.assertEqual(R.randn(40, generator=g) + R.randn(3, generator=g), first)

    def test_errors_match_torch(self):
        with self.assertRaisesRegex(RuntimeError, r"found from=1 > to=0"):
            R.uniform(3, 1, 0)
        with self.assertRaisesRegex(RuntimeError, "normal expects std >= 0.0"):
            R.normal(3, 0.0, -1.0)
        with self.assertRaisesRegex(RuntimeError, "from=3 >= to=3"):
            R.randint(3, 3, 2)

    def test_empty(self):
        self.assertEqual(R.randn(0), [])
        self.assertEqual(R.randperm(0), [])
        self.assertEqual(R.kaiming_uniform(0, 0), [])


class Speed(unittest.TestCase):
    """Loose bounds (a loaded CI machine is slow); the report prints the times."""

    def timed(self, fn, reps=5):
        best = float("inf")
        for _ in range(reps):
            t0 = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - t0)
        return best * 1e3

    def test_speed(self):
        g = R.Generator(0)
        times = {
            "randn(10, 10)": self.timed(lambda: R.randn(100, generator=g)),
            "nn.Linear(100, 100)": self.timed(lambda: R.linear_init(100, 100, generator=g)),
            "nn.Linear(784, 10)": self.timed(lambda: R.linear_init(784, 10, generator=g)),
        }
        sys.stderr.write("\n" + ", ".join("%s %.1f ms" % kv for kv in times.items()) + "\n")
        for name, ms in times.items():
            self.assertLess(ms, 200, name)


if __name__ == "__main__":
    unittest.main()
