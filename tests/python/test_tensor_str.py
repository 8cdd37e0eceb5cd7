#!/usr/bin/env python3
"""Replay tests/python/print_fixtures.json against python/torch/_tensor_str.py.

    python3 tests/python/test_tensor_str.py

Stdlib only; PyTorch is not needed (the fixtures hold what it printed; see
gen_print_fixtures.py).  The module is loaded by file path rather than with
``import torch``, so a real torch on the path cannot stand in for it.
"""

import math
import os
import sys
import timeit
import unittest

sys.dont_write_bytecode = True

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from shim_files import load_fixture, load_shim_module  # noqa: E402

ts = load_shim_module("_tensor_str.py", "hookgrad_tensor_str")
FIXTURE_DATA = load_fixture("print_fixtures.json")
CASES = FIXTURE_DATA["cases"]


def dec_options(opts):
    return {k: (math.inf if v == "inf" else v) for k, v in opts.items()}


def dec_values(values):
    # Non-finite floats are stored as strings ("nan", "inf", "-inf").
    return [float(v) if isinstance(v, str) else v for v in values]


def render(case):
    """What our module prints for a fixture case."""
    ts.set_printoptions(profile="default")
    for opts in case["options"]:
        ts.set_printoptions(**dec_options(opts))
    kind = case["kind"]
    if kind == "size":
        return ts.size_repr(case["shape"])
    if kind == "dtype":
        return ts.dtype_repr(case["dtype"])
    if kind == "options":
        got = ts.get_printoptions()
        return {k: ("inf" if v == math.inf else v) for k, v in got.items()}
    values = dec_values(case["values"])
    if kind == "str":
        return ts.tensor_str(values, case["shape"], case["dtype"], case["indent"])
    if kind == "param":
        return ts.parameter_repr(values, case["shape"], case["dtype"],
                                 requires_grad=case["requires_grad"])
    kwargs = {"requires_grad": case["requires_grad"], "grad_fn": case["grad_fn"]}
    if "prefix" in case:
        kwargs["prefix"] = case["prefix"]
    if "tensor_contents" in case:
        kwargs["tensor_contents"] = case["tensor_contents"]
    return ts.tensor_repr(values, case["shape"], case["dtype"], **kwargs)


class FixtureTests(unittest.TestCase):
    def tearDown(self):
        ts.set_printoptions(profile="default")

    def test_fixtures(self):
        self.assertGreater(len(CASES), 300)
        for case in CASES:
            with self.subTest(case["name"]):
                self.assertEqual(render(case), case["expected"])

    def test_defaults_restored(self):
        # The reset every case relies on: profile 'default' also clears sci_mode.
        ts.set_printoptions(precision=9, sci_mode=True, threshold=2, edgeitems=1, linewidth=9)
        ts.set_printoptions(profile="default")
        self.assertEqual(ts.get_printoptions(), {"precision": 4, "threshold": 1000,
                                                 "edgeitems": 3, "linewidth": 80,
                                                 "sci_mode": None})

    def test_printoptions_context(self):
        with ts.printoptions(precision=1):
            self.assertEqual(ts.tensor_repr([0.25], [1], "float32"), "tensor([0.2])")
        self.assertEqual(ts.tensor_repr([0.25], [1], "float32"), "tensor([0.2500])")

    def test_integral_values_given_as_other_types(self):
        # Pyodide hands integral JS numbers over as ints and int tensors' values
        # may come as floats: the text must not depend on which.
        self.assertEqual(ts.tensor_repr([1, 2], [2], "float32"), "tensor([1., 2.])")
        self.assertEqual(ts.tensor_repr([1.0, -2.0], [2], "int64"), "tensor([ 1, -2])")
        self.assertEqual(ts.tensor_repr([1, 0], [2], "bool"), "tensor([ True, False])")

    def test_unknown_dtype(self):
        with self.assertRaises(ValueError):
            ts.tensor_repr([1.0], [1], "complex64")

    def test_scalar_repr_is_fast(self):
        # Printing happens in loops; a 0-d repr must stay far below 50 us.
        number = 2000
        best = min(timeit.repeat(lambda: ts.tensor_repr([0.5], (), "float32"),
                                 number=number, repeat=5)) / number
        self.assertLess(best, 50e-6, f"scalar repr took {best * 1e6:.1f} us")


if __name__ == "__main__":
    unittest.main()
