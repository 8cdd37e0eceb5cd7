"""For the shim's unit tests: one stdlib-only module of python/torch loaded by
its path (never `import torch`: real PyTorch may be installed), and a
fixture file of this folder."""

import importlib.util
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def load_shim_module(filename, name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "python", "torch", filename))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_fixture(filename):
    with open(os.path.join(HERE, filename)) as f:
        return json.load(f)
