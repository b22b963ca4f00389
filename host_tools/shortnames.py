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
- not a word anywhere in host_tools/ (which also emulates machine, network, espnow...),
  tests/, boards/, the README or the host-only firmware modules: the host talks to a
  board's REPL and runs code there with these names, and people use what the README names,
- not a word inside a string of the firmware (other than a docstring): names looked up
  by string (getattr, cold.call("report", "save"), a checkpoint's _FIELDS) stay.
Private names (a leading underscore) get private short names (a module's private
constants stay compiled away), the others start with "Z". The plan is made the same
way every time from the same files. A traceback from a board shows the short names:
`python -m host_tools.shortnames NAME...` prints the firmware's names for them.
"""

import ast
import builtins
import io
import keyword
import os
import re
import tokenize

from . import BOARDS_DIR, FIRMWARE_DIR, ROOT

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
MICROPYTHON_NAMES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "micropython_names.txt")
HOST_ONLY = ("manifest.py", "config_edit.py", "referee.py", "reasons.py", "ht16k33_text.py")  # = build.HOST_ONLY


def _words(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return set(_WORD.findall(f.read()))


def _tree_words(top, suffixes):
    words = set()
    if not os.path.isdir(top):
        return words
    for here, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if d not in ("__pycache__", ".git", "node_modules")]
        for name in files:
            if name.endswith(suffixes):
                words |= _words(os.path.join(here, name))
    return words


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


def protected(firmware_dir=FIRMWARE_DIR):
    """The names that are never shortened (see the module's docstring), except the firmware's
    data strings (plan() adds them)."""
    keep = set(keyword.kwlist) | set(dir(builtins)) | micropython_names() | {"const", "self"}
    keep |= _tree_words(os.path.join(ROOT, "host_tools"), (".py", ".js", ".html", ".css"))
    keep |= _tree_words(os.path.join(ROOT, "tests"), (".py", ".json", ".txt"))
    keep |= _tree_words(BOARDS_DIR, (".json",))
    readme = os.path.join(ROOT, "README.md")
    if os.path.exists(readme):
        keep |= _words(readme)
    for name in os.listdir(firmware_dir):
        if name.endswith(".py"):
            keep.add(name[:-3])  # module names: imports
            if name in HOST_ONLY:
                keep |= _words(os.path.join(firmware_dir, name))
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
    """{short name: firmware name} for the short names given (a traceback's)."""
    back = {v: k for k, v in (names if names is not None else plan()).items()}
    return {s: back.get(s) for s in shorts}


def main(argv=None):
    import sys

    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] in ("-h", "--help"):
        print("usage: python -m host_tools.shortnames SHORT_NAME...  (the firmware's names for a board's short ones)")
        return 0
    for short, name in original_names(args).items():
        print("%s %s" % (short, name or "(not a short name)"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
