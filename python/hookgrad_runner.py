"""Runs a user's PyTorch program as `python FILE` would, inside Pyodide:
stdout and stderr to the caller's sinks (stdout lines also as the trace's
`log` events, in their place), warnings through Python's `warnings`, an
uncaught exception printed as Python's traceback (the user's frames only:
hookgrad's shim is not what the reader wrote) and returned as
{type, message, line}."""

import builtins
import linecache
import sys
import traceback
import warnings

import _hookgrad

_SHIM_PREFIX = "/lib/"


class _Out:
    """sys.stdout: text to the sink; each finished line also a `log` event."""

    def __init__(self, sink, log):
        self._sink, self._log, self._line = sink, log, ""
        self.encoding = "utf-8"
        self.errors = "strict"

    def write(self, s):
        s = str(s)
        self._sink(s)
        if self._log is not None:
            self._line += s
            while "\n" in self._line:
                line, self._line = self._line.split("\n", 1)
                self._log(line)
        return len(s)

    def flush(self):
        if self._log is not None and self._line:
            self._log(self._line)
            self._line = ""

    def isatty(self):
        return False

    def writable(self):
        return True


def hook_lines():
    from torch import _bridge

    return dict(_bridge.hook_lines)


def engine_warning(message, at_caller):
    from torch import _warnings

    _warnings.engine_warning(message, at_caller)


def _user_tb(tb, filename):
    """The traceback's frames in the user's program (not hookgrad's)."""
    frames = traceback.extract_tb(tb)
    return [f for f in frames if not f.filename.startswith(_SHIM_PREFIX) and not f.filename.startswith("<frozen")]


_program_globals = []


def _name_tensors(g):
    """The program's tensors named after their variables, for the figure
    (JS programs name them with {name}); a name given already is kept. A
    module's parameters get PyTorch's qualified names from
    named_parameters() ('encoder.weight', 'layers.0.A'); a list of modules
    numbers them as a ModuleList would."""
    from torch import Tensor
    from torch.nn import Module

    def name(t, n):
        try:
            if t.name is None:
                t._h.name = n
        except Exception:
            pass

    items = [(k, v) for k, v in list(g.items()) if not k.startswith("_")]
    for k, v in items:
        if isinstance(v, Tensor):
            name(v, k)
    for k, v in items:
        mods = [("", v)] if isinstance(v, Module) else [(f"{k}.{i}.", m) for i, m in enumerate(v)] if isinstance(v, (list, tuple)) and v and all(isinstance(m, Module) for m in v) else []
        for prefix, m in mods:
            try:
                for pn, p in m.named_parameters():
                    name(p, prefix + pn)
            except Exception:
                pass


def finish():
    """Frees the last program's objects (its tensors release their handles)."""
    for g in _program_globals:
        g.clear()
    _program_globals.clear()


def run(source, filename, out, err, traced=True):
    import torch  # noqa: F401  (imported before the program: its time is not the program's)
    from torch import _bridge

    _bridge.hook_lines.clear()
    _bridge.tracing[0] = bool(traced)
    from torch import _warnings

    _warnings._registry.clear()  # "once per process" warnings: once per program
    from torch.utils.hooks import RemovableHandle

    RemovableHandle.next_id = 0  # as in a fresh `python` process
    _bridge._pending.clear()
    stdout = _Out(out, _hookgrad.log)
    stderr = _Out(err, None)
    old = sys.stdout, sys.stderr, sys.argv
    sys.stdout, sys.stderr, sys.argv = stdout, stderr, [filename]
    # The program's lines for tracebacks and warnings, as if read from disk.
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    try:
        with warnings.catch_warnings():
            warnings.resetwarnings()
            warnings.simplefilter("default")
            warnings.filterwarnings("ignore", category=DeprecationWarning)
            warnings.filterwarnings("default", category=DeprecationWarning, module="__main__")
            try:
                code = compile(source, filename, "exec")
            except SyntaxError as e:
                stdout.flush()
                print("".join(traceback.format_exception_only(type(e), e)), end="", file=stderr)
                return {"type": "SyntaxError", "message": str(e.msg), "line": e.lineno}
            g = {"__name__": "__main__", "__file__": filename, "__builtins__": builtins}
            try:
                exec(code, g)
            except SystemExit as e:
                if e.code in (None, 0):
                    return None
                return {"type": "SystemExit", "message": str(e.code), "line": None}
            except BaseException as e:  # noqa: B036 (the program's every exception is reported)
                stdout.flush()
                frames = _user_tb(e.__traceback__, filename)
                text = "Traceback (most recent call last):\n" + "".join(traceback.format_list(frames))
                text += "".join(traceback.format_exception_only(type(e), e))
                print(text, end="", file=stderr)
                line = next((f.lineno for f in reversed(frames) if f.filename == filename), None)
                msg = str(e)
                return {"type": type(e).__name__, "message": msg, "line": line}
            finally:
                stdout.flush()
                if traced:
                    _name_tensors(g)
                # kept until finish(): the trace's graph is read after the program returns
                _program_globals.append(g)
    finally:
        sys.stdout, sys.stderr, sys.argv = old
    return None
