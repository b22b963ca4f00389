"""The real firmware on a virtual board, driven by its buttons and read from its displays.

What is tried: a three-cushion match to an equalizing inning and a draw, undo
by a long press, a stuck button, a display unplugged mid-match, a driver that
hangs (watchdog resets, then safe boot after three), the safe-boot button,
and the headless CLI on the mini board.  Everything read here was decoded
from the bytes the firmware wrote to the emulated HT16K33 chips.
"""

import json
import os
import subprocess
import sys

import pytest

from host_tools import ROOT
from host_tools.simulator.scripted_board import ScriptedBoard
from host_tools.simulator.vboard import WDT_RESET

CONFIG = {"board": "wall", "match": {"game": "three_cushion", "target": 3}}


@pytest.fixture
def wall(tmp_path):
    sb = ScriptedBoard("wall", str(tmp_path / "flash"), config=CONFIG)
    yield sb
    sb.close()


def step(sb, line):
    assert sb.line(line) is None, line
    return sb.state()


def test_three_cushion_match_to_equalizing_inning_and_draw(wall):
    s = wall.state()
    assert s["fields"]["message"] == "LAG "
    s = step(wall, "press A.point")  # in the lag: A breaks
    assert s["leds"]["A.turn"] == 1 and s["leds"]["A.spot"] == 1
    assert s["fields"]["countdown"] == "   3" and s["blink"]["1:0x75"] == "1Hz"  # a target of 3: from the start
    for left in (2, 1):
        s = step(wall, "press A.point")
        assert s["fields"]["countdown"] == "   %d" % left
        assert s["sound"] == ["count"] * left  # one beep per point left
    s = step(wall, "press A.point")  # A reaches 3: B's equalizing inning
    assert s["fields"]["A.score"] == "   3" and s["fields"]["A.run"] == "  "
    assert s["leds"]["equalizing"] == 1 and s["leds"]["B.turn"] == 1 and s["leds"]["A.turn"] == 0
    assert s["sound"] == ["equalizing"]
    assert s["fields"]["countdown"] == "   3"
    for _ in range(3):
        s = step(wall, "press B.point")
    assert s["fields"]["A.score"] == "   3" and s["fields"]["B.score"] == "   3"
    assert s["fields"]["A.innings"] == " 1" and s["fields"]["B.innings"] == " 1"
    assert s["blink"]["0x70"] == "0.5Hz" and s["blink"]["1:0x70"] == "0.5Hz"  # a draw: both blink
    assert s["fields"]["message"] == "DRAW" and s["sound"] == ["end"]
    assert s["leds"]["equalizing"] == 0 and s["leds"]["A.turn"] == 0 and s["leds"]["B.turn"] == 0
    # A long press on B's point button takes back the last point.
    s = step(wall, "hold B.point 1.5")
    assert s["fields"]["B.score"] == "   2" and s["leds"]["equalizing"] == 1
    assert "1:0x70" not in s["blink"]
    assert s["fields"]["B.run"] == " 2"


def test_stuck_button_ignored_and_reported(wall):
    step(wall, "press A.point")
    step(wall, "press A.point")
    s = step(wall, "hold A.end 8")  # held 8 s: one end of inning, then reported stuck
    assert s["fields"]["B.innings"] == " 1" and s["leds"]["B.turn"] == 1
    assert "error" in s["sound"]
    vb = wall.vb
    vb.press("B.point")  # B's point works while nothing is stuck
    vb.advance(0.1)
    vb.release("B.point")
    vb.advance(0.5)
    vb.press("B.end")  # now B.end sticks down for good
    vb.advance(7)
    s = wall.state()
    assert s["fields"]["message"] == "E 12"  # E 1x: button x (B.end is button 2) is stuck
    assert s["fields"]["B.score"] == "   1" and s["leds"]["A.turn"] == 1  # its press ended B's inning once
    assert s["fields"]["A.innings"] == " 2"
    vb.release("B.end")
    vb.advance(0.5)
    assert wall.state()["fields"]["message"] != "E 12"


def test_display_unplugged_mid_match(wall):
    step(wall, "press A.point")
    s = step(wall, "unplug 0x71")  # A's innings/run chip
    s = step(wall, "press A.point")
    assert s["displays"]["0x71"] is None  # not there
    assert s["fields"]["A.score"] == "   1"  # the others keep working
    s = step(wall, "wait 1")
    assert s["fields"]["message"] == "E 71"
    s = step(wall, "press A.point")
    assert s["fields"]["A.score"] == "   2"
    s = step(wall, "plug 0x71")
    s = step(wall, "wait 3")  # retried, re-initialised, up to date
    assert s["fields"]["A.innings"] == " 1" and s["fields"]["A.run"] == " 2"
    assert s["fields"]["message"] != "E 71"


HANG = """
# Test only: a driver that hangs once /hang exists on the flash.
_real_poll = ButtonGroup.poll
def _poll(self, now):
    import os, time
    try:
        os.stat("/hang")
    except OSError:
        return _real_poll(self, now)
    time.sleep_ms(20000)
ButtonGroup.poll = _poll
"""


def test_watchdog_resets_a_hung_board_then_safe_boot(wall):
    vb = wall.vb
    with open(wall.flash_dir + "/buttons.py", "a") as f:
        f.write(HANG)
    vb.hard_reset()
    vb.advance(0.5)
    step(wall, "press A.point")
    boots = len(vb.boots)
    vb.write_file("/hang", b"")
    vb.advance(6)
    assert len(vb.boots) == boots + 1 and vb.reset_cause == WDT_RESET
    vb.advance(20)  # it hangs again after each reset: the third crash in a row is a safe boot
    s = wall.state()
    assert vb.boots[-1].cause == WDT_RESET
    assert all(text == "E 31" for text in s["displays"].values()), s["displays"]
    assert any("safe boot" in line for line in s["printed"] + vb.lines())
    n = len(vb.boots)
    vb.advance(30)
    assert len(vb.boots) == n  # no app, no watchdog: it stays up
    os.remove(vb.flash_path("/hang"))
    vb.hard_reset()  # the reset button: a normal boot again, the match where it was
    vb.advance(1)
    s = wall.state()
    assert s["leds"]["A.turn"] == 1 and s["fields"]["A.score"] == "   0" and s["fields"]["countdown"] == "   3"


def test_safe_boot_button_at_power_on(wall):
    vb = wall.vb
    vb.power_off()
    armed = len(vb.wdt_starts)
    vb.press("new")  # held while the power comes on
    vb.power_on()
    vb.advance(1)
    vb.release("new")
    vb.advance(10)
    s = wall.state()
    assert all(text == "E 30" for text in s["displays"].values()), s["displays"]
    assert len(vb.wdt_starts) == armed  # no watchdog in safe boot
    assert vb.cpu_hz == 160_000_000  # nor the app's clock: the image's


def test_the_wall_board_runs_its_cpu_at_240_mhz(wall):
    """A stock image starts at 160 MHz (a safe boot stays there: above); the running wall
    board sets 240 (machine.freq), at every start."""
    assert wall.vb.cpu_hz == 240_000_000
    wall.vb.power_off()
    wall.vb.power_on()
    wall.vb.advance(2)
    assert wall.vb.cpu_hz == 240_000_000


def test_power_cut_and_back(wall):
    """The match comes back after a power cut, and undo still works."""
    step(wall, "press A.point")  # A breaks
    step(wall, "press A.point")
    step(wall, "press A.end")
    s = step(wall, "press B.point")
    before = {k: s["fields"][k] for k in ("A.score", "B.score", "A.innings", "B.innings", "B.run", "countdown")}
    s = step(wall, "power off")
    assert s["powered"] is False and all(v is None or v == "    " for v in s["displays"].values())
    s = step(wall, "power on")
    assert s["powered"] and {k: s["fields"][k] for k in before} == before
    assert s["leds"]["B.turn"] == 1
    assert any("match restored" in line for line in s["printed"])
    s = step(wall, "hold B.point 1.5")  # undo after the reboot: B's point goes
    assert s["fields"]["B.score"] == "   0" and s["fields"]["B.run"] == " 0"
    s = step(wall, "hold B.point 1.5")  # and A's end of inning
    assert s["leds"]["A.turn"] == 1 and s["fields"]["A.run"] == " 1"


def test_headless_cli_on_the_mini_board():
    script = "press point\npress point\npress point\npress end\nbogus\nwait 1\n"
    out = subprocess.run(
        [sys.executable, "-m", "host_tools", "sim", "--headless", "--board", "mini"],
        input=script,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    docs = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(docs) == 7  # the state at power-on, then one per line
    assert docs[3]["displays"] == {"0x70": "   2.", "0x71": "   0"}  # the point shows whose turn it is
    assert docs[4]["displays"] == {"0x70": "   2", "0x71": "   0."}
    assert docs[5]["refused"].startswith("unknown or malformed line")
    out = subprocess.run(
        [sys.executable, "-m", "host_tools", "sim", "--headless", "--board", "nope"],
        input="",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert out.returncode == 1 and out.stderr.startswith("carom: no board 'nope'")


def test_configuration_brightness_volume_and_a_bad_file(tmp_path):
    good = {
        "board": "wall",
        "display": {"brightness": 3},
        "sound": {"volume": 0},
        "players": {"A": {"name": "Anna"}},
        "match": {"game": "one_cushion", "target": 4},
    }
    with ScriptedBoard("wall", str(tmp_path / "flash"), config=good) as sb:
        s = step(sb, "press A.point")
        assert all(sb.vb.chip(a, b).brightness == 3 for (b, a) in sb.vb.chips())
        assert s["fields"]["A.target"] == "   4" and s["fields"]["A.name"] == "ANNA"
        assert s["sound"] == []  # volume 0: silent
        # A bad value: the last good configuration keeps running, E 20 shows why.
        with open(sb.flash_dir + "/config.json", "w") as f:
            json.dump(dict(good, match={"game": "one_cushion", "target": 0}), f)
        sb.vb.hard_reset()
        s = step(sb, "wait 1")
        assert s["fields"]["message"] == "E 20" and s["fields"]["A.target"] == "   4"
        assert any("match.target" in line for line in s["printed"])
        # Not JSON at all: the same.
        with open(sb.flash_dir + "/config.json", "w") as f:
            f.write('{"board": "wall", "match": {')
        sb.vb.hard_reset()
        s = step(sb, "wait 1")
        assert s["fields"]["message"] == "E 20" and s["fields"]["A.target"] == "   4"


def test_finished_match_goes_to_the_history(tmp_path):
    config = {
        "board": "wall",
        "name": "Table 3",
        "players": {"A": {"name": "Anna", "club": "BC"}},
        "match": {"game": "three_cushion", "target": 2},
    }
    with ScriptedBoard("wall", str(tmp_path / "flash"), config=config) as sb:
        for line in ("press A.point", "press A.point", "press A.end", "press B.point", "press B.point"):
            assert sb.line(line) is None
        history = tmp_path / "flash" / "data" / "history"
        assert sb.state()["blink"]["1:0x70"] == "1Hz"  # B's score blinks: the winner
        files = sorted(os.listdir(history))
        assert len(files) == 1
        rep = json.loads((history / files[0]).read_text())
        assert rep["result"] == "B" and rep["players"]["A"]["name"] == "Anna"
        assert rep["report"]["table"] == "Table 3" and rep["report"]["board"] == "wall"
        assert [(i["player"], i["run"]) for i in rep["report"]["innings"]] == [("A", 1), ("B", 2)]
        # Undo and finish again: the same match's report is replaced, not added.
        assert sb.line("hold B.point 1.5") is None
        assert sb.line("press B.point") is None
        assert sorted(os.listdir(history)) == files
        # A new match: the next one gets its own report.
        assert sb.line("hold new 3.5") is None
        for line in ("press A.point", "press A.point", "press A.point", "press B.end"):
            assert sb.line(line) is None  # A breaks, reaches 2; B misses his equalizing inning
        files = sorted(os.listdir(history))
        assert len(files) == 2
        assert json.loads((history / files[1]).read_text())["result"] == "A"


def test_new_names_apply_to_a_match_nothing_happened_in(tmp_path):
    """A restored match with no events takes the configuration's options and names at boot."""
    with ScriptedBoard("wall", str(tmp_path / "flash"), config=CONFIG) as sb:
        cfg = dict(CONFIG, players={"A": {"name": "Kim"}}, match={"game": "one_cushion", "target": 7})
        with open(sb.flash_dir + "/config.json", "w") as f:
            json.dump(cfg, f)
        sb.vb.hard_reset()
        s = step(sb, "wait 0.5")
        assert s["fields"]["A.name"] == "KIM " and s["fields"]["A.target"] == "   7"
        step(sb, "press A.point")  # A breaks: now the match has an entry and is kept
        with open(sb.flash_dir + "/config.json", "w") as f:
            json.dump(dict(cfg, players={"A": {"name": "Bo"}}), f)
        sb.vb.hard_reset()
        s = step(sb, "wait 0.5")
        assert s["fields"]["A.name"] == "KIM " and s["leds"]["A.turn"] == 1
