#!/usr/bin/env python3
"""Record what real PyTorch prints for every program of the Python corpus.

    /work/torchenv/bin/python tests/python/gen_expected.py            # all programs
    /work/torchenv/bin/python tests/python/gen_expected.py NAME ...   # some (NAME or NAME.py)

For each ``tests/python/corpus/NAME.py`` this runs ``python NAME.py`` (the
interpreter running this script, so the one whose ``torch`` is the oracle) in
a subprocess with cwd = ``tests/python/corpus`` and writes
``tests/python/expected/NAME.json``:

    {"torch": "2.15.0+cu132",           # torch.__version__ of the oracle
     "stdout": "...",                    # raw (object addresses kept as printed)
     "stderr": "...",                    # warnings and the traceback; paths as the reader sees them
     "exit_code": 0,                     # 1 after an uncaught exception
     "exception": "RuntimeError: msg",   # the traceback's exception text, or null
     "exception_line": 12,               # line of the traceback's last frame in NAME.py, or null
     "traceback_lines": [30, 12],        # every NAME.py frame of the traceback, outermost first
     "warnings": [{"category": "FutureWarning", "message": "...",
                   "file": "NAME.py" or "<torch>", "line": 7 or null}]}

Python 3.9+ makes the script's path absolute (``File "/abs/.../corpus/NAME.py"``):
stderr is recorded with the corpus directory taken out (``NAME.py``, as the
program's reader and ``hookgrad run`` show it) and the torch package's
directory written as ``<torch>``.

``exception`` is the text after the last traceback's frames: ``Type: message``
(more than one line when the message has newlines).  ``warnings`` are parsed
from stderr, where Python writes each as ``path:LINE: Category: message``
followed by the indented source line (the message may span lines); ``file``
is ``NAME.py`` when the warning is attributed to the program itself, else
``<torch>`` (a line inside the torch package; its line number is then null,
as it depends on the torch version).

Environment of the child: PYTHONHASHSEED=0, PYTHONWARNINGS unset,
PYTHONDONTWRITEBYTECODE=1, OMP_NUM_THREADS=1, CUDA_VISIBLE_DEVICES="" (CPU
only); timeout 60 s (a timeout is an error of this script, not a record).

Deterministic: the programs seed every random number.  The only thing that
differs between two runs is object addresses (``<MulBackward0 object at
0x7f...>``); when a program's new record equals the file already there after
replacing ``0x[0-9a-fA-F]+`` by ``0xADDR`` everywhere, the old file is kept, so
re-running leaves the directory byte-for-byte unchanged.  The Node test
(corpus.test.mjs) normalises addresses on both sides the same way.
"""

import json
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
EXPECTED = os.path.join(HERE, "expected")
TIMEOUT = 60

ADDR = re.compile(r"0x[0-9a-fA-F]+")
# `path:LINE: Category: message` -- the category is a Warning class name
# (possibly dotted, e.g. torch.jit.TracerWarning).
WARNING_HEAD = re.compile(r"^(.+?):(\d+): ((?:[A-Za-z_][\w]*\.)*[A-Za-z_]\w*Warning): (.*)$")
FRAME = re.compile(r'^  File "(.*)", line (\d+)')
TRACEBACK_HEAD = "Traceback (most recent call last):"


def parse_warnings(stderr, script):
    """The warnings Python wrote to stderr, in order.

    A warning is a header line (WARNING_HEAD), the message's continuation lines,
    then the source line indented by two spaces (absent when Python could not
    read the source).  The message ends before the first line that starts
    with two spaces, or a new warning, or a traceback.  Same rule as
    parseWarnings() in corpus.test.mjs.
    """
    out = []
    lines = stderr.split("\n")
    i = 0
    while i < len(lines):
        m = WARNING_HEAD.match(lines[i])
        if not m:
            i += 1
            continue
        path, line, category, message = m.group(1), int(m.group(2)), m.group(3), m.group(4)
        i += 1
        while (
            i < len(lines)
            and not lines[i].startswith("  ")
            and not WARNING_HEAD.match(lines[i])
            and lines[i] != TRACEBACK_HEAD
            and not (i == len(lines) - 1 and lines[i] == "")
        ):
            message += "\n" + lines[i]
            i += 1
        mine = path == script
        out.append({
            "category": category,
            "message": message,
            "file": script if mine else "<torch>",
            "line": line if mine else None,
        })
    return out


def parse_exception(stderr, script):
    """(exception text, line of its last frame in the script, all script frames).

    Uses the last 'Traceback (most recent call last):' block of stderr: its
    frames are the lines indented by two or more spaces; the exception text is
    what follows them (to the end, minus trailing newlines).
    """
    lines = stderr.split("\n")
    starts = [k for k, l in enumerate(lines) if l == TRACEBACK_HEAD]
    if not starts:
        return None, None, []
    k = starts[-1] + 1
    user_lines = []
    while k < len(lines) and lines[k].startswith("  "):
        m = FRAME.match(lines[k])
        if m and m.group(1) == script:
            user_lines.append(int(m.group(2)))
        k += 1
    text = "\n".join(lines[k:]).rstrip("\n")
    return (text or None), (user_lines[-1] if user_lines else None), user_lines


def child_env():
    env = dict(os.environ)
    env.pop("PYTHONWARNINGS", None)
    env["PYTHONHASHSEED"] = "0"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["OMP_NUM_THREADS"] = "1"
    env["CUDA_VISIBLE_DEVICES"] = ""
    return env


def torch_info():
    """(torch.__version__, the torch package's directory) of the oracle."""
    out = subprocess.run(
        [sys.executable, "-c", "import os, torch; print(torch.__version__); print(os.path.dirname(torch.__file__))"],
        capture_output=True, text=True, env=child_env(), check=True,
    )
    version, torch_dir = out.stdout.strip().split("\n")
    return version, torch_dir


def local_paths(stderr, torch_dir):
    """stderr with the machine's paths taken out.

    Python 3.9+ makes the main script's path absolute, so tracebacks and
    warnings name /abs/path/tests/python/corpus/NAME.py: written back as
    NAME.py (what the program's reader sees).  The torch package's directory
    becomes <torch> (e.g. <torch>/nn/modules/module.py), so the record does not
    depend on where the venv lives.
    """
    stderr = stderr.replace(CORPUS + os.sep, "")
    return stderr.replace(torch_dir, "<torch>")


def record(name, version, torch_dir):
    script = name + ".py"
    proc = subprocess.run(
        [sys.executable, script], cwd=CORPUS, env=child_env(),
        capture_output=True, text=True, timeout=TIMEOUT,
    )
    stderr = local_paths(proc.stderr, torch_dir)
    exception, exception_line, traceback_lines = parse_exception(stderr, script)
    return {
        "torch": version,
        "stdout": proc.stdout,
        "stderr": stderr,
        "exit_code": proc.returncode,
        "exception": exception,
        "exception_line": exception_line,
        "traceback_lines": traceback_lines,
        "warnings": parse_warnings(stderr, script),
    }


def dump(rec):
    return json.dumps(rec, indent=1, ensure_ascii=False) + "\n"


def main(argv):
    names = [a[:-3] if a.endswith(".py") else a for a in argv]
    if not names:
        names = sorted(f[:-3] for f in os.listdir(CORPUS) if f.endswith(".py"))
    missing = [n for n in names if not os.path.isfile(os.path.join(CORPUS, n + ".py"))]
    if missing:
        sys.exit("no such program: " + ", ".join(missing))
    os.makedirs(EXPECTED, exist_ok=True)
    version, torch_dir = torch_info()
    failed = 0
    for name in names:
        try:
            rec = record(name, version, torch_dir)
        except subprocess.TimeoutExpired:
            print(f"TIMEOUT {name} (> {TIMEOUT} s)", file=sys.stderr)
            failed += 1
            continue
        text = dump(rec)
        path = os.path.join(EXPECTED, name + ".json")
        old = None
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as f:
                old = f.read()
        if old is not None and ADDR.sub("0xADDR", old) == ADDR.sub("0xADDR", text):
            state = "same"
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            state = "new" if old is None else "CHANGED"
        if rec["exit_code"] not in (0, 1):
            print(f"warning: {name} exited {rec['exit_code']}", file=sys.stderr)
        exc = f"  {rec['exception'].splitlines()[0]}" if rec["exception"] else ""
        print(f"{state:8} {name}  exit {rec['exit_code']}  {len(rec['warnings'])} warning(s){exc}")
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main(sys.argv[1:])
