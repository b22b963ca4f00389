"""`carom doctor --identify` against a virtual wall board on a serial pty, in real time: the command
runs the identify mode through mpremote's raw REPL while the test presses the board's buttons.

What is tried: each press is printed by the command as the board reports it (its name and GPIO),
a long press on the board ends the command with exit status 0 and the app runs again; Ctrl-C ends
it with 130, the mode stopped on the board and the app back; a firmware without the mode is said so.
Each step waits for the line or the state it expects.
"""

import os
import sys

import pytest

from helpers import RUNNING, LineProcess, lay_out_flash, needs_mpremote, start_running

pytestmark = needs_mpremote


@pytest.fixture
def wall(tmp_path, firmware):
    vb = start_running(lay_out_flash(tmp_path / "flash", {"board": "wall"}, firmware), "wall", serial=True)
    yield vb
    vb.close()


def identify(vb, *options):
    p = LineProcess([sys.executable, "-m", "host_tools", "doctor", "--device", vb.serial_path, "--identify", *options])
    p.name = "carom doctor --identify"
    return p


def test_buttons_pressed_on_the_board_are_printed_until_a_long_press(wall):
    runs = wall.stdout.count(RUNNING % "wall")
    p = identify(wall)
    try:
        p.wait_line(r"press a button: its name shows on 0\.77; hold one 1 s to leave")
        for name, pin in (("foul", 25), ("B.point", 36)):
            wall.press(name)
            p.wait_line(r"^  button %s \(GPIO%d\)$" % (name.replace(".", r"\."), pin))
            wall.release(name)
        wall.press("A.end")  # held: the mode ends
        p.wait_line(r"^  done \(A\.end held\)$")
        wall.release("A.end")
        assert p.finish() == 0, "\n".join(p.lines)
    finally:
        p.kill()
    assert p.lines[-1] == "carom doctor: the identify mode was left on the board; its app starts again"
    assert "  button A.end (GPIO35)" in p.lines  # the long press began as a press
    wall.wait_for(lambda b: b.stdout.count(RUNNING % "wall") > runs, timeout=30)  # reset: the app again


def test_ctrl_c_stops_the_mode(wall):
    runs = wall.stdout.count(RUNNING % "wall")
    p = identify(wall)
    try:
        p.wait_line("press a button")
        assert p.stop() == 130, "\n".join(p.lines)
    finally:
        p.kill()
    assert p.lines[-1] == "carom doctor: stopped (Ctrl-C); the identify mode ended on the board"
    wall.wait_for(lambda b: b.stdout.count(RUNNING % "wall") > runs, timeout=30)


def test_a_firmware_without_the_mode(wall):
    with open(wall.flash_path("/startup.py"), "w") as f:  # shadows startup.mpy: an older firmware's
        f.write("machine = None\n")
    p = identify(wall, "--no-reset")
    try:
        assert p.finish() == 1
    finally:
        p.kill()
    assert p.lines[-1] == (
        "carom: the firmware on %s has no identify mode: carom deploy puts this version's on it" % wall.serial_path
    ), p.lines
    os.remove(wall.flash_path("/startup.py"))
