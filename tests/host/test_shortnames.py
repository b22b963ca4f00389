"""The build's short names (host_tools/shortnames.py): which names it shortens, which it must not,
and that the firmware it builds still runs with them."""

import glob
import json
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


def _firmware_defined():
    defined = set()
    for name in sorted(os.listdir(FIRMWARE_DIR)):
        if name.endswith(".py") and name not in shortnames.HOST_ONLY:
            with open(os.path.join(FIRMWARE_DIR, name)) as f:
                defined |= shortnames._defined_and_data(f.read())[0]
    return defined


def _on_board_code():
    """{where: source} of the code from outside the firmware that runs on a board with it: the
    host tools' code sent to the REPL, the virtual board's fixtures and emulation, the
    benchmarks' board scripts."""
    from host_tools.commands import deploy, doctor, pair
    from host_tools.link import boardio

    out = {
        "doctor.IDENTIFY_CODE": doctor.IDENTIFY_CODE,
        "doctor.I2C_SCAN": doctor.I2C_SCAN,
        "deploy.GUARD_CODE": deploy.GUARD_CODE,
        "boardio.RESET_CODE": boardio.RESET_CODE,
        "boardio._HASH_CODE": boardio._HASH_CODE,
        "pair.MAC_CODE": pair.MAC_CODE,
    }
    for pattern in (
        "tests/host/vboard_fixtures/*.py",
        "tests/bench/*_main.py",
        "tests/fw/reportboard.py",  # copied beside the long match's bench script
        "host_tools/simulator/vboard/mp/*.py",
    ):
        for path in sorted(glob.glob(os.path.join(ROOT, pattern))):
            with open(path) as f:
                out[os.path.relpath(path, ROOT)] = f.read()
    return out


def test_names_the_host_or_a_string_knows_are_kept(plan):
    """board_names.txt is complete: no firmware name that code from outside the firmware uses on
    a board (the REPL's, the virtual board's, the benchmarks') is shortened."""
    assert plan, "nothing shortened"
    assert "identify" in shortnames.board_names()  # startup.identify: carom doctor --identify, at the REPL
    defined = _firmware_defined()
    for where, source in _on_board_code().items():
        used = shortnames.code_names(source.replace("%r", "x"))  # (the REPL code's arguments)
        lost = sorted(used & defined & set(plan))
        assert not lost, (where, lost, "add them to host_tools/board_names.txt")
    # Looked up by string in the firmware: a checkpoint's fields, getattr's names.
    for name in ("phase", "shooter", "load", "init", "peers_table", "ilistdir"):
        assert name not in plan
    for name in ("self", "const", "print", "len", "if", "rules", "view", "asyncio", "machine"):
        assert name not in plan
    for name in ("start", "serve"):  # main.py's: kept as source
        assert name not in plan


def test_prose_does_not_change_the_built_firmware(tmp_path):
    """The build does not read the README, the tests or any comment: a README whose every word
    is a firmware name, and a test file full of them, leave the .mpy bytes as they were."""

    def built(where):
        out = {}
        for rel in build(str(where)):
            with open(os.path.join(str(where), rel), "rb") as f:
                out[rel] = f.read()
        return out

    before = built(tmp_path / "a")
    words = " ".join(sorted(_firmware_defined()))
    readme = os.path.join(ROOT, "README.md")
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    extra = os.path.join(ROOT, "tests", "host", "prose_words_tmp.py")
    try:
        with open(readme, "a", encoding="utf-8") as f:
            f.write("\n" + words + "\n")
        with open(extra, "w") as f:
            f.write('"""%s"""\n' % words)
        after = built(tmp_path / "b")
    finally:
        with open(readme, "w", encoding="utf-8") as f:
            f.write(text)
        os.remove(extra)
    assert after == before


def test_short_names_keep_privacy_and_are_unique(plan):
    shorts = list(plan.values())
    assert len(shorts) == len(set(shorts))
    for name, short in plan.items():
        assert name.startswith("_") == short.startswith("_"), (name, short)
        assert not short.startswith("__") and len(short) < len(name)
    assert plan == shortnames.plan()  # the same files, the same plan


def test_shorten_changes_names_only():
    source = (
        'def _draw_sets(self, s):\n    """_draw_sets in a docstring"""\n'
        '    return self._draw_sets + "_draw_sets"  # _draw_sets\n'
    )
    out = shortnames.shorten(source, {"_draw_sets": "_a"})
    assert out == (
        'def _a(self, s):\n    """_draw_sets in a docstring"""\n    return self._a + "_draw_sets"  # _draw_sets\n'
    )


def test_the_plan_in_a_deploys_manifest_decodes_a_traceback(tmp_path, plan):
    """carom deploy keeps the build's rename plan in the manifest it leaves on the board; a
    traceback from that board reads back from the manifest alone (another checkout's plan may
    differ)."""
    from host_tools.commands.deploy import build_local, make_manifest

    names = {}
    files = build_local(False, names)
    assert names == plan
    manifest = json.loads(json.dumps(make_manifest(files, False, names)))
    assert shortnames.manifest_plan(manifest) == plan
    assert shortnames.manifest_plan(make_manifest(files, True)) is None  # --source: nothing renamed
    long_name = max((n for n in plan if not n.startswith("_")), key=len)
    short = plan[long_name]
    traceback = (
        'Traceback (most recent call last):\n  File "rules.py", line 12, in %s\n'
        "AttributeError: 'Match' object has no attribute '%s'\n" % (short, short)
    )
    assert shortnames.decode(traceback, shortnames.manifest_plan(manifest)) == traceback.replace(short, long_name)
    path = tmp_path / "deploy.json"
    path.write_text(json.dumps(manifest))
    other = {n: s + "x" for n, s in plan.items()}  # a checkout whose plan differs: not asked
    assert shortnames.decode(traceback, other) == traceback
    out = subprocess.run(
        [sys.executable, "-m", "host_tools.shortnames", "--manifest", str(path)],
        input=traceback,
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout == traceback.replace(short, long_name)


def test_original_names_reads_a_traceback_back(plan):
    name, short = sorted(plan.items())[0]
    out = subprocess.run(
        [sys.executable, "-m", "host_tools.shortnames", short, "nope"], capture_output=True, text=True, cwd=ROOT
    )
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
        "print('names', ' '.join(sorted(n for n in dir(rules) if not n.startswith('__'))))\n" % str(tmp_path)
    )
    out = subprocess.run(
        [exe, "-X", "heapsize=4M", str(script)], capture_output=True, text=True, timeout=60, cwd=str(tmp_path)
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "phase 3 score 3 0" in out.stdout  # rules.EQUALIZING: B's equalizing inning
    shown = set(out.stdout.split("names ", 1)[1].split())
    with open(os.path.join(FIRMWARE_DIR, "rules.py")) as f:
        text = f.read()
    # Module-level functions, classes and names (not const(): those are compiled in, not kept).
    module_level = set(re.findall(r"^(?:def|class) (\w+)", text, re.M)) | set(
        re.findall(r"^(\w+) = (?!const\()", text, re.M)
    )
    renamed = {n for n in module_level if n in plan}
    assert renamed, "rules.py has no shortened module-level name"
    for name in renamed:
        assert name not in shown and plan[name] in shown, name
