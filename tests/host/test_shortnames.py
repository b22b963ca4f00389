"""The build's short names (host_tools/shortnames.py): which names it shortens, which it must not,
and that the firmware it builds still runs with them."""

import os
import re
import subprocess
import sys

import pytest

from host_tools import FIRMWARE_DIR, ROOT, micropython32_exe, shortnames, venv_exe
from host_tools.build import build

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope="module")
def plan():
    return shortnames.plan()


def interpreters():
    return [exe for exe in (venv_exe("micropython"), micropython32_exe()) if exe]


@pytest.mark.parametrize("exe", interpreters())
def test_the_list_of_micropythons_own_names_is_complete(exe):
    """Names of MicroPython's builtins, types and modules are never shortened: the committed list
    holds every one the unix ports list (a newer MicroPython with more names fails this test:
    run tests/host/mp_names_dump.py on it and add its names)."""
    out = subprocess.run([exe, os.path.join(HERE, "mp_names_dump.py")], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    listed = set(out.stdout.split())
    assert {"ticks_ms", "mem_alloc", "heap_lock", "const", "bytearray", "decode"} <= listed | {"const"}
    missing = listed - shortnames.micropython_names()
    assert not missing, sorted(missing)


def test_names_the_host_or_a_string_knows_are_kept(plan):
    assert plan, "nothing shortened"
    host = set()
    for top in ("host_tools", "tests"):
        for here, dirs, files in os.walk(os.path.join(ROOT, top)):
            for name in files:
                if name.endswith((".py", ".js", ".html")):
                    with open(os.path.join(here, name), errors="replace") as f:
                        host |= set(re.findall(r"\w+", f.read()))
    with open(os.path.join(ROOT, "README.md")) as f:
        host |= set(re.findall(r"\w+", f.read()))  # what people are told to use
    assert not host & set(plan), sorted(host & set(plan))[:20]
    # Looked up by string in the firmware: a checkpoint's fields, cold.call's function names.
    for name in ("phase", "shooter", "load", "save", "init", "peers_table", "ilistdir"):
        assert name not in plan
    for name in ("self", "const", "print", "len", "if", "rules", "view", "asyncio", "machine"):
        assert name not in plan


def test_short_names_keep_privacy_and_are_unique(plan):
    shorts = list(plan.values())
    assert len(shorts) == len(set(shorts))
    for name, short in plan.items():
        assert name.startswith("_") == short.startswith("_"), (name, short)
        assert not short.startswith("__") and len(short) < len(name)
    assert plan == shortnames.plan()  # the same files, the same plan


def test_shorten_changes_names_only():
    source = ('def _draw_sets(self, s):\n    """_draw_sets in a docstring"""\n'
              '    return self._draw_sets + "_draw_sets"  # _draw_sets\n')
    out = shortnames.shorten(source, {"_draw_sets": "_a"})
    assert out == ('def _a(self, s):\n    """_draw_sets in a docstring"""\n'
                   '    return self._a + "_draw_sets"  # _draw_sets\n')


def test_original_names_reads_a_traceback_back(plan):
    name, short = sorted(plan.items())[0]
    out = subprocess.run([sys.executable, "-m", "host_tools.shortnames", short, "nope"], capture_output=True,
                         text=True, cwd=ROOT)
    assert out.returncode == 0
    assert "%s %s" % (short, name) in out.stdout and "nope (not a short name)" in out.stdout


@pytest.mark.parametrize("exe", interpreters())
def test_the_built_firmware_runs_with_short_names(exe, tmp_path, plan):
    """A match played on the .mpy modules the build makes: the rules, the controller and the view's
    cold half load and score, and the names in their code are the short ones."""
    build(str(tmp_path))
    script = tmp_path / "play.py"
    script.write_text(
        "import sys\nsys.path.insert(0, %r)\n"
        "import rules\n"
        "m = rules.Match()\n"
        "assert m.new(0, game='straight_rail', target=3) is None\n"
        "assert m.lag(0, 1000) is None and m.choose(0, False, 1500) is None\n"
        "for k in range(3):\n"
        "    assert m.point(0, 2000 + k) is None, k\n"
        "print('phase', m.phase, 'score', m.score[0], m.score[1])\n"
        "print('names', ' '.join(sorted(n for n in dir(rules) if not n.startswith('__'))))\n" % str(tmp_path))
    out = subprocess.run([exe, "-X", "heapsize=4M", str(script)], capture_output=True, text=True, timeout=60,
                         cwd=str(tmp_path))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "phase 3 score 3 0" in out.stdout  # rules.EQUALIZING: B's equalizing inning
    shown = set(out.stdout.split("names ", 1)[1].split())
    with open(os.path.join(FIRMWARE_DIR, "rules.py")) as f:
        text = f.read()
    # Module-level functions, classes and names (not const(): those are compiled in, not kept).
    module_level = set(re.findall(r"^(?:def|class) (\w+)", text, re.M)) | set(re.findall(r"^(\w+) = (?!const\()", text, re.M))
    renamed = {n for n in module_level if n in plan}
    assert renamed, "rules.py has no shortened module-level name"
    for name in renamed:
        assert name not in shown and plan[name] in shown, name
