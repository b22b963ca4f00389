"""Short names for the firmware's own identifiers in the .mpy files a board runs.

Every identifier a loaded module uses is interned by MicroPython for good (a qstr: its
characters, plus an entry in the pool), also those of the modules that run only at the
start and leave RAM. The build therefore gives the firmware's own names two or three
characters in the code it compiles (`build.build`; `carom deploy --source` keeps the
source as it is, for debugging):

    plan = shortnames.plan()          # {"_draw_sets": "_bq", "safe_button_held": "Zbc", ...}
    text = shortnames.shorten(source, plan)

A name is shortened only when the firmware defines it (a function, class, argument,
assigned name or attribute) and nothing else may know it:
- not a Python keyword or builtin, nor a name of MicroPython's own modules and types
  (micropython_names.txt: what they list on the unix port; tests check it is complete),
- not a module's name (imports), nor a name the board's main.py and boot.py use (they stay
  source), nor one the host-only firmware modules use,
- not a name in board_names.txt: the firmware's names that code from outside it runs on a
  board with (the host tools at the REPL, e.g. startup.identify; the virtual board's
  fixtures and benchmarks; a test checks the list is complete),
- not a word inside a string of the firmware (other than a docstring): names looked up
  by string (getattr, a checkpoint's _FIELDS) stay.
Prose (the README, the tests, comments, docstrings) never counts: editing it does not change
the bytes a board runs (a test checks). Private names (a leading underscore) get private
short names (a module's private constants stay compiled away), the others start with "Z".
The plan is made the same way every time from the same files.

`carom deploy` writes the plan into the manifest it leaves on the board (/deploy.json,
"names": {short: name}), so a traceback from any board reads back without the checkout it
came from:

    python -m host_tools.shortnames --device /dev/ttyUSB0 < traceback.txt  # the board's plan
    python -m host_tools.shortnames --manifest deploy.json Zbc _bq         # a copy of it
    python -m host_tools.shortnames Zbc _bq                                 # this checkout's plan
"""

import ast
import builtins
import io
import keyword
import os
import re
import tokenize

from . import FIRMWARE_DIR

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
MICROPYTHON_NAMES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "micropython_names.txt")
BOARD_NAMES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "board_names.txt")
KEEP_SOURCE = ("main.py", "boot.py")  # = build.KEEP_SOURCE: the board runs them as source
HOST_ONLY = ("manifest.py", "config_edit.py", "referee.py", "reasons.py", "ht16k33_text.py")  # = build.HOST_ONLY


def code_names(source):
    """The identifiers the code uses (its NAME tokens: never its comments or strings)."""
    return {tok.string for tok in tokenize.generate_tokens(io.StringIO(source).readline) if tok.type == tokenize.NAME}


def _read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def _docstring_ids(tree):
    """ids of the string constants that are docstrings or bare string statements."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            out.add(id(node.value))
    return out


def _defined_and_data(source):
    """(names the module defines, words in its data strings)."""
    tree = ast.parse(source)
    docs = _docstring_ids(tree)
    defined, data = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, ast.arg):
            defined.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            defined.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            defined.add(node.attr)
        elif isinstance(node, ast.Global):
            defined.update(node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)) and id(node) not in docs:
            text = node.value if isinstance(node.value, str) else node.value.decode("latin-1")
            data.update(_WORD.findall(text))
    return defined, data


def micropython_names():
    with open(MICROPYTHON_NAMES) as f:
        return set(f.read().split())


def board_names():
    """The names of board_names.txt (a line each; "#" starts a comment)."""
    with open(BOARD_NAMES) as f:
        return {w for line in f for w in line.split("#", 1)[0].split()}


def protected(firmware_dir=FIRMWARE_DIR):
    """The names that are never shortened (see the module's docstring), except the firmware's
    data strings (plan() adds them)."""
    keep = set(keyword.kwlist) | set(dir(builtins)) | micropython_names() | {"const", "self"}
    keep |= board_names()
    for name in os.listdir(firmware_dir):
        if name.endswith(".py"):
            keep.add(name[:-3])  # module names: imports
            if name in HOST_ONLY or name in KEEP_SOURCE:
                keep |= code_names(_read(os.path.join(firmware_dir, name)))
    return keep


def plan(firmware_dir=FIRMWARE_DIR):
    """{firmware name: short name} for the board's modules."""
    defined, used = set(), set()
    keep = protected(firmware_dir)
    for name in sorted(os.listdir(firmware_dir)):
        if not name.endswith(".py") or name in HOST_ONLY:
            continue
        with open(os.path.join(firmware_dir, name), encoding="utf-8") as f:
            source = f.read()
        d, data = _defined_and_data(source)
        defined |= d
        keep |= data
        used |= set(_WORD.findall(source))
    taken = used | keep
    out = {}
    k = 0
    for name in sorted(n for n in defined if n not in keep and not n.startswith("__")):
        private = name.startswith("_")
        while True:
            short = _short(k, private)
            k += 1
            if short not in taken:
                break
        if len(short) < len(name):
            out[name] = short
    return out


def _short(k, private):
    s = ""
    k += 1
    while k:
        s = _LETTERS[k % len(_LETTERS)] + s
        k //= len(_LETTERS)
    return ("_" if private else "Z") + s


def shorten(source, names):
    """The source with every identifier in `names` replaced (its tokens only: strings,
    comments and the layout stay)."""
    lines = source.splitlines(keepends=True)
    edits = {}  # line number -> [(start col, end col, text)]
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.NAME and tok.string in names:
            (row, col), (_, end) = tok.start, tok.end
            edits.setdefault(row, []).append((col, end, names[tok.string]))
    for row, spans in edits.items():
        line = lines[row - 1]
        for col, end, text in sorted(spans, reverse=True):
            line = line[:col] + text + line[end:]
        lines[row - 1] = line
    return "".join(lines)


def original_names(shorts, names=None):
    """{short name: firmware name} for the short names given (a traceback's); `names` is a
    plan ({firmware name: short name}; None: this checkout's)."""
    back = {v: k for k, v in (names if names is not None else plan()).items()}
    return {s: back.get(s) for s in shorts}


def manifest_plan(manifest):
    """The plan a deploy's manifest (/deploy.json) keeps, as plan() gives it ({firmware name:
    short name}); None when it has none (a deploy with --source, or an older carom)."""
    names = (manifest or {}).get("names")
    if not isinstance(names, dict):
        return None
    return {name: short for short, name in names.items()}


def decode(text, names):
    """`text` (a traceback) with every short name of plan `names` replaced by the firmware's."""
    back = {v: k for k, v in names.items()}
    return _WORD.sub(lambda m: back.get(m.group(0), m.group(0)), text)


def main(argv=None):
    import argparse
    import json
    import sys

    p = argparse.ArgumentParser(
        prog="python -m host_tools.shortnames",
        description="The firmware's names for a board's short ones: the names given, or "
        "a traceback read from the standard input.",
    )
    p.add_argument("short", nargs="*", help="short names (none: decode the standard input)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--manifest", help="the plan of this deploy manifest (a copy of the board's /deploy.json)")
    where.add_argument("--device", help="the plan of the manifest on the board at this serial port")
    args = p.parse_args(sys.argv[1:] if argv is None else argv)
    names = None
    if args.manifest or args.device:
        if args.manifest:
            with open(args.manifest, encoding="utf-8") as f:
                manifest = json.load(f)
        else:
            from .commands.deploy import read_manifest
            from .link.boardio import BoardIO

            board = BoardIO(args.device)
            board.connect()
            try:
                manifest = read_manifest(board)
            finally:
                board.close()
        names = manifest_plan(manifest)
        if names is None:
            print("no rename plan in that manifest (deployed with --source, or by an older carom)", file=sys.stderr)
            return 1
    if not args.short:
        sys.stdout.write(decode(sys.stdin.read(), names if names is not None else plan()))
        return 0
    for short, name in original_names(args.short, names).items():
        print("%s %s" % (short, name or "(not a short name)"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
