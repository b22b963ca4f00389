"""The wall firmware says on its console which press it refused, and why.

One line each, `carom: refused <action>: <reason>`: the rules' reason number (firmware/reasons.py
has its words) or "locked out" (a press in the lock-out after the turn passed). An accepted
press prints nothing. The real firmware on a virtual board, its buttons pressed.
"""

import pytest

from host_tools import firmware_path
from host_tools.simulator.scripted_board import ScriptedBoard

CONFIG = {"board": "wall", "match": {"game": "three_cushion", "target": 3}}


def code(name):
    firmware_path()
    import reasons

    return reasons.code(name)


@pytest.fixture
def wall(tmp_path):
    sb = ScriptedBoard("wall", str(tmp_path / "flash"), config=CONFIG)
    yield sb
    sb.close()


def refusals(vb):
    return [line for line in vb.lines() if line.startswith("carom: refused")]


def test_each_refused_press_says_its_action_and_reason(wall):
    vb = wall.vb
    vb.tap("A.point", 0.1, 0.6)  # the lag: A breaks
    assert refusals(vb) == []
    vb.tap("A.point", 0.1, 0.6)  # a point: accepted
    vb.tap("B.point", 0.1, 0.6)  # B is not at the table
    vb.tap("break", 0.1, 0.6)  # no break during a run (A has just scored)
    vb.tap("new", 0.1, 0.6)  # a short tap on NEW: next_set, and this match has no sets
    assert refusals(vb) == [
        "carom: refused B.point: %d" % code("NOT_AT_TABLE"),
        "carom: refused break: %d" % code("BREAK_IN_RUN"),
        "carom: refused next_set: %d" % code("NO_FORMATS"),
    ]
    assert wall.state()["fields"]["A.score"] == "   1"


def test_a_press_in_the_lock_out_says_locked_out(wall):
    vb = wall.vb
    vb.tap("A.point", 0.1, 0.6)  # the lag: A breaks
    vb.tap("A.end", 0.1, 0.05)  # A misses: B's turn, the lock-out (400 ms) begins
    vb.tap("B.point", 0.1, 0.6)  # pressed inside it: ignored whole
    assert refusals(vb) == ["carom: refused B.point: locked out"]
    vb.tap("B.point", 0.1, 0.6)  # after it: B's point
    assert refusals(vb) == ["carom: refused B.point: locked out"]
    assert wall.state()["fields"]["B.score"] == "   1"
