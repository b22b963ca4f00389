"""CPython-only checks of the board files and of boarddef/buttons robustness.

- The board files are strict JSON without duplicate keys: MicroPython's json
  accepts trailing commas and both interpreters keep only the last of two
  equal keys, so neither would notice on its own.
- boarddef.validate, fed random damage, only ever raises a one-line
  ValueError (never TypeError/KeyError).
- Button, fed random level sequences, keeps its per-press promises.
"""

import copy
import glob
import json
import os

import pytest

from hypothesis import given, settings, strategies as st

import boarddef
from buttons import Button, SHORT, LONG, STUCK, CLEARED

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BOARD_FILES = sorted(glob.glob(os.path.join(ROOT, "boards", "*.json")))


def _no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    dup = sorted({k for k in keys if keys.count(k) > 1})
    assert not dup, "duplicate keys %s" % dup
    return dict(pairs)


def test_board_files_are_strict_json_without_duplicate_keys():
    assert len(BOARD_FILES) >= 3
    for path in BOARD_FILES:
        with open(path) as f:
            json.load(f, object_pairs_hook=_no_duplicates)


def test_every_board_file_validates_without_warnings():
    for path in BOARD_FILES:
        b = boarddef.load(path)
        assert b["name"] == os.path.basename(path)[:-5]
        assert b["warnings"] == [], (path, b["warnings"])


# --- random damage ---------------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 200000)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["", "0x70", "0x80", "up", "A.score", "seg7", "point", "wall", "x"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["pin", "addr", "show", "zz"]), inner, max_size=3)
    ),
    max_leaves=6,
)


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, prefix + (i,))


@settings(max_examples=300, deadline=None)
@given(
    board=st.sampled_from(BOARD_FILES),
    pick=st.integers(0, 10**6),
    op=st.sampled_from(["replace", "delete", "add"]),
    value=json_values,
)
def test_validate_only_raises_one_line_value_errors(board, pick, op, value):
    with open(board) as f:
        d = json.load(f)
    paths = list(_paths(d))[1:]
    path = paths[pick % len(paths)]
    parent = d
    for k in path[:-1]:
        parent = parent[k]
    key = path[-1]
    if op == "replace":
        parent[key] = value
    elif op == "delete":
        del parent[key]
    elif isinstance(parent, dict):
        parent["zz_" + str(key)] = value
    else:
        parent.append(value)
    try:
        boarddef.validate(copy.deepcopy(d), board)
    except ValueError as e:
        msg = str(e)
        assert msg.startswith(board + ": ") and "\n" not in msg, msg


# --- button promises -----------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(
    has_long=st.booleans(),
    start=st.integers(0, 0x3FFFFFFF),
    steps=st.lists(st.tuples(st.integers(1, 700), st.booleans()), max_size=80),
)
def test_each_press_gives_at_most_one_short_or_long_then_stuck_cleared(has_long, start, steps):
    b = Button(None, active_low=False, has_long=has_long)
    t = start
    b.update(t, 0)
    press = None  # events of the current debounced press
    for dt, level in steps:
        t = (t + dt) & 0x3FFFFFFF
        was = b.down
        ev = b.update(t, 1 if level else 0)
        if b.down and not was:
            press = []
        if ev:
            assert press is not None, "event without a press"
            press.append(ev)
            assert press.count(SHORT) + press.count(LONG) <= 1, press
            assert press.count(STUCK) <= 1 and press.count(CLEARED) <= 1, press
            if ev == CLEARED:
                assert STUCK in press and not b.down, press
            if ev == LONG:
                assert has_long, press
            if ev == SHORT and has_long:
                assert not b.down, "a button with a long action reports SHORT on release"


def test_startup_reads_the_config_file_config_py_names():
    """startup.py names config.json without loading config.py (checked.py keeps its checked
    form): both name it from confignames.py."""
    from host_tools import firmware_path

    firmware_path()
    import config
    import confignames
    import startup

    assert config.FILE == confignames.FILE == "config.json" and startup.confignames is confignames


_OK_CHECK = """
import boarddef, checked
def again():
    raise AssertionError("checked again: the kept form was not taken")
for name in ("wall", "mini", "referee"):
    v = checked.load("boards/%s.json" % name, "boards/%s.ok" % name, again, "boarddef")
    assert v == boarddef.load("boards/%s.json" % name, False), name  # as startup.load_board loads it
print("kept forms taken")
"""


@pytest.mark.parametrize("source", [False, True])
def test_build_keeps_each_board_definitions_checked_form_as_the_board_would(tmp_path, source):
    """build() writes boards/*.ok so the first start need not load boarddef.py: MicroPython
    takes each as it is (without checking again) and it equals what boarddef.py gives there."""
    import subprocess

    from host_tools import micropython32_exe, venv_exe
    from host_tools.build import build

    written = build(str(tmp_path), source=source)
    assert "boards/wall.ok" in written
    for exe in (venv_exe("micropython"), micropython32_exe()):
        if exe is None:
            continue
        out = subprocess.run(
            [exe, "-c", _OK_CHECK],
            cwd=str(tmp_path),
            capture_output=True,
            text=True,
            env=dict(os.environ, MICROPYPATH="."),
            timeout=60,
        )
        assert out.returncode == 0 and "kept forms taken" in out.stdout, out.stderr
    # A definition changed after the build is checked again (its CRC no longer matches).
    with open(tmp_path / "boards" / "mini.json", "a") as f:
        f.write("\n")
    import checked

    here = os.getcwd()
    os.chdir(str(tmp_path))
    try:
        calls = []
        checked.load("boards/mini.json", "boards/mini.ok", lambda: calls.append(1) or ({}, False), "boarddef")
        assert calls == [1]
    finally:
        os.chdir(here)
