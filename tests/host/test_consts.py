"""The build compiles the constants a module takes from another into its .mpy (host_tools/consts.py):
the source names each constant from its one home, the board's code holds the number."""

import ast
import os
import subprocess
import sys

import pytest

from host_tools import FIRMWARE_DIR, consts, venv_exe
from host_tools.build import KEEP_SOURCE, build, firmware_modules

TABLE = {"home": {"A": 0, "B": 1, "NOBODY": -1, "LAG": 0}, "names": {"E_POINT": 5, "E_MISS": 6}}


def test_a_constant_imported_by_name_is_compiled_in_and_the_import_goes():
    source = (
        '"""A module."""\n'
        "\n"
        "from home import A, B, Match  # noqa: F401\n"
        "from names import (E_POINT,\n"
        "                   E_MISS as MISS)\n"
        "\n"
        "\n"
        "def f(x, b=B):\n"
        "    return x + A + b + E_POINT + MISS + NOBODY.bit_length()\n"
    )
    out = consts.inline(source.replace("NOBODY.bit_length()", "0"), TABLE, "m.py")
    assert out == (
        '"""A module."""; _A_FROM_home = const(0); _B_FROM_home = const(1); _E_MISS_FROM_names = const(6);'
        " _E_POINT_FROM_names = const(5)\n"
        "\n"
        "from home import Match  # noqa: F401\n"
        "pass\n"
        "\n"
        "\n"
        "\n"
        "def f(x, b=_B_FROM_home):\n"
        "    return x + _A_FROM_home + b + _E_POINT_FROM_names + _E_MISS_FROM_names + 0\n"
    )
    assert out.count("\n") == source.count("\n")  # a traceback's line numbers stay the source's


def test_only_the_reads_the_import_binds_are_renamed():
    """A keyword argument, an attribute's name, a string, a comment, a parameter or a local of
    the same name, a class attribute: none is the constant."""
    source = (
        "from home import A, NOBODY\n"
        "\n"
        "\n"
        "def f(A):\n"
        "    return A\n"
        "\n"
        "\n"
        "def g(o):\n"
        "    d = dict(A=1)  # A\n"
        "    return o.A + d['A'] + [A for A in range(2)][0] + [A for x in range(2)][0] + NOBODY\n"
        "\n"
        "\n"
        "class K:\n"
        "    NOBODY = 5\n"
        "    y = A\n"
        "\n"
        "    def h(self):\n"
        "        return self.NOBODY + NOBODY\n"
    )
    out = consts.inline(source, TABLE, "m.py")
    assert out.splitlines()[1:] == [
        "",
        "",
        "def f(A):",
        "    return A",
        "",
        "",
        "def g(o):",
        "    d = dict(A=1)  # A",
        "    return o.A + d['A'] + [A for A in range(2)][0] + [_A_FROM_home for x in range(2)][0] + _NOBODY_FROM_home",
        "",
        "",
        "class K:",
        "    NOBODY = 5",
        "    y = _A_FROM_home",
        "",
        "    def h(self):",
        "        return self.NOBODY + _NOBODY_FROM_home",
    ]
    assert out.splitlines()[0] == "pass; _A_FROM_home = const(0); _NOBODY_FROM_home = const(-1)"


def test_an_import_in_a_function_and_a_module_read_for_its_constants_only():
    source = (
        '"""Doc."""\n'
        "import home\n"
        "import names\n"
        "\n"
        "\n"
        "def f(m):\n"
        "    from names import E_POINT\n"
        "    import home as h\n"
        "    return m.phase == home.LAG and E_POINT + h.B + names.E_MISS + names.other()\n"
    )
    out = consts.inline(source, TABLE, "m.py").splitlines()
    assert out[0] == (
        '"""Doc."""; _B_FROM_home = const(1); _E_MISS_FROM_names = const(6); _E_POINT_FROM_names = const(5);'
        " _LAG_FROM_home = const(0)"
    )
    assert out[1:] == [
        "pass",  # only its constants were read: not loaded for them
        "import names",  # names.other() is not a constant
        "",
        "",
        "def f(m):",
        "    pass",
        "    pass",
        "    return m.phase == _LAG_FROM_home and _E_POINT_FROM_names + _B_FROM_home + _E_MISS_FROM_names"
        " + names.other()",
    ]


def test_a_constant_imported_and_not_read_stays_the_modules_name():
    """matchnames.py imports MAX_TARGET from matchwords.py to have the name (rules.MAX_TARGET
    finds it there): the import stays, on the board too."""
    source = "from home import A, LAG  # noqa: F401\n\n\ndef f():\n    return A\n"
    assert consts.inline(source, TABLE, "m.py") == (
        "from home import LAG; _A_FROM_home = const(0)  # noqa: F401\n\n\ndef f():\n    return _A_FROM_home\n"
    )
    untouched = "import home  # noqa: F401  (kept loaded)\nfrom names import other\n"
    assert consts.inline(untouched, TABLE, "m.py") == untouched


def test_a_constant_bound_again_stops_the_build():
    for source in (
        "from home import A\nA = 2\n",
        "from home import A\n\n\ndef A():\n    pass\n",
        "from home import A\nfrom names import E_POINT as A\n",
    ):
        with pytest.raises(consts.ConstError, match="'A' is imported"):
            consts.inline(source, TABLE, "m.py")
    # a module bound again: its X.NAME are left as they are
    source = "import home\n\n\ndef f():\n    return home.A\n\n\nhome = None\n"
    assert consts.inline(source, TABLE, "m.py") == source


def test_collect_reads_each_modules_public_int_constants(tmp_path):
    (tmp_path / "base.py").write_text(
        "from micropython import const\n\nA = const(2)\n_P = const(3)\nB = const(A * _P + 1)\n"
        "S = const('text')\nT = const((1, 2))\nL = [1]\nC = const(4)\nC = 5\nN = const(-S)\n"
    )
    (tmp_path / "user.py").write_text(
        "import base\nfrom base import A, B as BB\n\nD = const(base.B << 1)\n_E = const(BB + 3)\nE = const(_E)\n"
    )
    table = consts.collect(str(tmp_path))
    assert table == {"base": {"A": 2, "B": 7, "S": "text"}, "user": {"A": 2, "BB": 7, "D": 14, "E": 10}}


@pytest.fixture(scope="module")
def firmware_table():
    return consts.collect(FIRMWARE_DIR)


def test_the_firmwares_constants_have_their_homes(firmware_table):
    assert firmware_table["rules"]["EQUALIZING"] == 3 and firmware_table["buttons"]["LONG"] == 2
    assert firmware_table["matchnames"]["MAX_TARGET"] == firmware_table["matchwords"]["MAX_TARGET"] == 9999


# Modules of names only: whoever imports from them takes constants, compiled in by the build, so
# that a board never loads them (every name a loaded module holds is interned for good).
NAMES_ONLY = (
    "matchnames",
    "viewnames",
    "errorcodes",
    "confignames",
    "storenames",
    "radionames",
    "ht16k33names",
    "voicenames",
)


def test_no_board_module_loads_a_module_of_names(firmware_table):
    loads = []
    for name in firmware_modules():
        if name in KEEP_SOURCE:
            continue
        with open(os.path.join(FIRMWARE_DIR, name), encoding="utf-8") as f:
            tree = ast.parse(consts.inline(f.read(), firmware_table, name))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in NAMES_ONLY:
                loads.append(
                    "%s:%d: from %s import %s" % (name, node.lineno, node.module, ", ".join(a.name for a in node.names))
                )
            elif isinstance(node, ast.Import):
                loads += ["%s:%d: import %s" % (name, node.lineno, a.name) for a in node.names if a.name in NAMES_ONLY]
    assert not loads, loads


def _run(exe, folder, main):
    out = subprocess.run([exe, main], cwd=str(folder), capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_the_rewritten_module_runs_on_micropython_and_holds_the_numbers(tmp_path):
    """A module and its constants' home, built as the build does (inline, then mpy-cross), on the
    unix port: the same output as the source on CPython, the importer's .mpy holds no name of
    the constants, and the home is not loaded for them."""
    micropython, mpy_cross = venv_exe("micropython"), venv_exe("mpy-cross")
    if not (micropython and mpy_cross):
        pytest.skip("no MicroPython unix port or mpy-cross")
    src, built = tmp_path / "src", tmp_path / "built"
    src.mkdir()
    built.mkdir()
    files = {
        "phases.py": (
            "try:\n    from micropython import const\nexcept ImportError:\n    def const(x):\n        return x\n\n\n"
            "SETTLED = const(4)\nLEFT_OVER = const(SETTLED + 3)\nWORD = const('over')\nprint('phases loaded')\n"
        ),
        "user.py": (
            '"""Uses them."""\nimport sys\n\nimport phases\nfrom phases import SETTLED\n\n\n'
            "def show(SETTLED_TOO=SETTLED):\n"
            "    return (SETTLED, phases.LEFT_OVER, SETTLED_TOO, dict(SETTLED=1), 'SETTLED', -SETTLED ** 2, phases.WORD)\n\n\n"
            "print(show(), 'phases' in sys.modules)\n"
        ),
    }
    for name, text in files.items():
        (src / name).write_text(text)
    table = consts.collect(str(src))
    for name, text in files.items():
        (built / name).write_text(consts.inline(text, table, name))
        subprocess.run(
            [mpy_cross, "-O3", "-o", str(built / (name[:-3] + ".mpy")), "-s", name, str(built / name)], check=True
        )
        os.remove(built / name)
    (built / "main.py").write_text("import user\n")
    (src / "main.py").write_text("import user\n")
    on_board = _run(micropython, built, "main.py")
    assert on_board == "(4, 7, 4, {'SETTLED': 1}, 'SETTLED', -16, 'over') False\n"
    assert _run(sys.executable, src, "main.py") == (
        "phases loaded\n(4, 7, 4, {'SETTLED': 1}, 'SETTLED', -16, 'over') True\n"
    )
    code = (built / "user.mpy").read_bytes()
    assert b"LEFT_OVER" not in code and b"FROM" not in code


def test_the_build_is_the_same_every_time(tmp_path):
    """Two builds, one in another process with another hash seed: the same bytes."""
    a, b = tmp_path / "a", tmp_path / "b"
    build(str(a))
    env = dict(os.environ, PYTHONHASHSEED="12345")
    subprocess.run(
        [sys.executable, "-c", "import sys; from host_tools.build import build; build(sys.argv[1])", str(b)],
        check=True,
        env=env,
        cwd=os.path.dirname(FIRMWARE_DIR),
        timeout=300,
    )
    names = sorted(os.listdir(a))
    assert names == sorted(os.listdir(b))
    for name in names:
        if name.endswith(".mpy"):
            assert (a / name).read_bytes() == (b / name).read_bytes(), name
