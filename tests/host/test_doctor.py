"""`carom doctor` on virtual boards: a healthy one, one with a display unplugged, one
with a broken config.json, one with a deploy cut short, a backpack with a pad bridged too, a
backpack on the other bus, a board that reports an older MicroPython, and no board at all."""

import io
import json
import os
import stat
import sys

import pytest

from helpers import board_def, carom, lay_out_flash, needs_mpremote
from host_tools import firmware_path
from host_tools.commands.deploy import Deployer, build_local
from host_tools.link.boardio import BoardIO
from host_tools.simulator.vboard import VirtualBoard

RUNNING = "carom: running on board wall"

pytestmark = needs_mpremote


@pytest.fixture
def wall(tmp_path):
    """A board deployed by carom deploy (so it has its manifest), running the app."""
    vb = VirtualBoard(tmp_path / "flash", board=board_def("wall"), serial=True)
    vb.power_on()
    vb.run_realtime()
    out = carom("deploy", "--device", vb.serial_path, "--board", "wall")
    assert out.returncode == 0, out.stderr
    vb.wait_for(lambda b: RUNNING in b.stdout)
    yield vb
    vb.close()


def checklist(stdout):
    """{mark: [lines]} of the checklist."""
    out = {"ok": [], "warn": [], "FAIL": []}
    for line in stdout.splitlines():
        parts = line.split(None, 1)
        if len(parts) == 2 and parts[0] in out:
            out[parts[0]].append(parts[1])
    return out


def test_healthy_board(wall):
    got = carom("doctor", "--device", wall.serial_path)
    assert got.returncode == 0, got.stdout + got.stderr
    c = checklist(got.stdout)
    assert c["FAIL"] == []
    text = "\n".join(c["ok"])
    import tempfile

    from host_tools.build import build

    with tempfile.TemporaryDirectory() as d:
        deployed = len(build(d))  # what carom deploy puts on a board
    for expected in (
        "the board answers",
        "MicroPython 1.",
        "(.mpy v6, as carom deploy makes)",
        "flash:",
        "RAM:",
        "all %d files as deployed" % deployed,
        "config.json: valid (board wall",
        "boards/wall.json: valid",
        "I2C bus 0 (SDA 21, SCL 22): all 8 displays answer",
        "I2C bus 1 (SDA 32, SCL 33): all 8 displays answer",
        "the app starts: " + RUNNING,
    ):
        assert expected in text, expected
    assert any(w.startswith("clock: not set") for w in c["warn"])  # a warning is not a failure
    assert got.stdout.splitlines()[-1] == "all good (1 warning)"


def test_unplugged_display(wall):
    wall.unplug(0x71)  # A's innings/run display, bus 0
    got = carom("doctor", "--device", wall.serial_path)
    assert got.returncode == 1
    c = checklist(got.stdout)
    assert c["FAIL"] == [
        "I2C bus 0 (SDA 21, SCL 22): the display at 0x71 (A.innings, A.run, seg7; player A's column, "
        "3rd from the top) does not answer: unplugged, loose wire or wrong address (bridge A0 only "
        "for 0x71; one at an address already in use answers as one with that display: the identify "
        "mode shows which)"
    ]
    assert "I2C bus 1 (SDA 32, SCL 33): all 8 displays answer" in "\n".join(c["ok"])
    assert got.stderr.startswith("carom: 1 problem: I2C bus 0")
    wall.plug(0x71)
    assert carom("doctor", "--device", wall.serial_path).returncode == 0


def test_broken_config(wall):
    wall.write_file("/config.json", json.dumps({"board": "wall", "match": {"target": 0}}))
    got = carom("doctor", "--device", wall.serial_path)
    assert got.returncode == 1
    c = checklist(got.stdout)
    assert len(c["FAIL"]) == 1 and c["FAIL"][0].startswith("config.json: match.target: 0 is not in 1..9999")
    # the app still starts (on the last good configuration) and says what is wrong
    assert any("config: config.json: match.target: 0 is not in 1..9999" in w for w in c["warn"])
    wall.write_file("/config.json", '{"board": "wall", ')
    got = carom("doctor", "--device", wall.serial_path)
    assert got.returncode == 1 and "config.json: not valid JSON" in got.stdout


def test_deploy_cut_short_and_missing_file(wall):
    with BoardIO(wall.serial_path, out=io.StringIO()) as board:
        files = build_local(False)
        files["/sound.mpy"] += b"\0"  # any change: two files so the guarded switch is used
        files["/view.mpy"] += b"\0"
        Deployer(board, files, False, out=io.StringIO()).run(stop_after=1)
    got = carom("doctor", "--device", wall.serial_path, "--no-reset")
    assert got.returncode == 1
    assert "FAIL  firmware: a deploy was cut short while switching files" in got.stdout
    assert carom("deploy", "--device", wall.serial_path, "--board", "wall").returncode == 0
    os.remove(wall.flash_path("/rules.mpy"))
    got = carom("doctor", "--device", wall.serial_path)
    assert got.returncode == 1 and "1 file missing: rules.mpy" in got.stdout


def test_no_board(tmp_path):
    got = carom("doctor", "--device", str(tmp_path / "ttyNONE"))
    assert got.returncode == 1
    assert "FAIL  the board answers: cannot open" in got.stdout
    assert got.stderr.strip() == "carom: the board on %s does not answer" % (tmp_path / "ttyNONE")


def test_a_mis_bridged_jumper_is_named(tmp_path):
    """mini's B.score backpack answers at 0x73 (A1 bridged as well as A0) while the flash holds the
    real boards/mini.json: doctor names the address it should have and the pad to open."""
    hw = board_def("mini")
    hw["displays"][1]["addr"] = "0x73"
    vb = VirtualBoard(tmp_path / "flash", board=hw, serial=True)
    try:
        vb.power_on()
        vb.run_realtime()
        out = carom("deploy", "--device", vb.serial_path, "--board", "mini")
        assert out.returncode == 0, out.stderr
        got = carom("doctor", "--device", vb.serial_path, "--no-reset")
    finally:
        vb.close()
    assert got.returncode == 1
    assert checklist(got.stdout)["FAIL"] == [
        "I2C bus 0 (SDA 21, SCL 22): 0x73 answers where 0x71 (B.score, seg7; player B's column) should be: likely its "
        "address jumpers: A1 is bridged too; bridge A0 only"
    ]


def test_what_answered_where_is_diagnosed():
    """doctor.diagnose_i2c on scans a board could give: an empty bus, a display on the other bus, a
    stranger, two silent displays on a full bus (their place and pads), a bus that could not be scanned."""
    from host_tools.commands.doctor import diagnose_i2c
    from host_tools.boards import load_board

    firmware_path()
    import boarddef

    two = board_def("mini")  # mini on two buses: A.score on bus 0, B.score on bus 1, both 0x70
    two["i2c"] = [dict(two["i2c"], bus=0), {"bus": 1, "sda": 25, "scl": 26, "freq": 400000}]
    two["displays"][0]["bus"] = 0
    two["displays"][1].update(bus=1, addr="0x70")
    bd = boarddef.validate(two)
    got = diagnose_i2c(bd, {0: [0x70], 1: []})
    assert got == [
        ("ok", 0, "all 1 display answer (0x70)"),
        (
            "fail",
            1,
            "no display answers (1 expected): the bus itself first: SDA and SCL swapped, no common "
            "ground, the backpacks without power, or the bus not on these pins",
        ),
    ]
    bd["displays"][1]["addr"] = 0x71  # B.score's backpack, meant for bus 1 at 0x71, hangs on bus 0
    got = diagnose_i2c(bd, {0: [0x70, 0x71], 1: [0x72]})
    assert (
        "fail",
        1,
        "the display at 0x71 (B.score, seg7; player B's column) answers on bus 0 instead: its SDA and "
        "SCL go to bus 0's wires, not to bus 1's",
    ) in got
    assert ("warn", 1, "0x72 answers but is not in the board definition") in got
    assert ("ok", 0, "all 1 display answer (0x70)") in got
    wall = load_board("wall")
    full = list(range(0x70, 0x78))
    # two of bus 1's displays silent, nothing else answering: each named with its place and its pads
    got = diagnose_i2c(wall, {0: full, 1: [0x71, 0x72, 0x73, 0x74, 0x76, 0x77]})
    fails = [t for m, b, t in got if m == "fail"]
    assert fails == [
        "the display at 0x70 (B.score, seg7; player B's column, 2nd from the top) does not answer: unplugged, loose "
        "wire or wrong address (leave A0, A1 and A2 open, as shipped for 0x70; one at an address already in use "
        "answers as one "
        "with that display: the identify mode shows which)",
        "the display at 0x75 (countdown, seg7; the centre, 2nd from the top) does not answer: unplugged, loose wire or "
        "wrong address (bridge A0 + A2 only for 0x75; one at an address already in use answers as one with that "
        "display: the identify mode shows which)",
    ]
    got = diagnose_i2c(wall, {0: full, 1: "timed out"})
    assert [m for m, b, t in got if b == 1] == []  # check_i2c says the scan failed; nothing else of that bus


def test_a_micropython_older_than_the_firmware_needs_fails():
    from host_tools import MICROPYTHON_OLDEST, release_text
    from host_tools.commands.doctor import Checklist, check_release, release_of

    assert release_of("1.20.0") == (1, 20, 0) and release_of("1.29.0-preview") == (1, 29, 0)
    assert release_of("v1.21") == (1, 21, 0) and release_of("unknown") is None
    c = Checklist(out=io.StringIO())
    old = ".".join(str(v) for v in (MICROPYTHON_OLDEST[0], MICROPYTHON_OLDEST[1] - 1, 0))
    assert check_release({"version": old}, "MicroPython %s on ESP32" % old, c) is False
    assert c.problems == [
        "MicroPython %s on ESP32: older than the firmware needs: flash MicroPython %s or newer, the "
        "ESP32_GENERIC image from https://micropython.org/download/ESP32_GENERIC/ (carom flash; the "
        "project's tests run %s)" % (old, release_text(MICROPYTHON_OLDEST), c.problems[0].rsplit(" ", 1)[1][:-1])
    ]
    assert "tests run v1." in c.problems[0]
    for fine in (release_text(MICROPYTHON_OLDEST)[1:], "1.29.0-preview", "2.0.0", "unknown"):
        assert check_release({"version": fine}, "x", c) is True
    assert len(c.problems) == 1


def test_an_empty_bus_whose_displays_answer_on_the_other_is_not_blamed_on_its_wiring():
    """Bus 1's only display answers on bus 0: that is said once (the wrong bus), not also as an
    empty bus with its wiring to check; a second display of bus 1 still silent is named alone."""
    from host_tools.commands.doctor import diagnose_i2c

    firmware_path()
    import boarddef

    two = two_bus_mini()
    bd = boarddef.validate(two)
    got = diagnose_i2c(bd, {0: [0x70, 0x71], 1: []})
    assert [m for m, b, t in got if b == 1] == ["fail"], got
    assert "answers on bus 0 instead" in [t for m, b, t in got if b == 1][0]
    two["displays"].append({"bus": 1, "addr": "0x72", "kind": "seg7", "show": "A.innings"})
    got = diagnose_i2c(boarddef.validate(two), {0: [0x70, 0x71], 1: []})
    bus1 = [t for m, b, t in got if b == 1]
    assert len(bus1) == 2 and "answers on bus 0 instead" in bus1[0], bus1
    assert bus1[1].startswith(
        "the display at 0x72 (A.innings, seg7; player A's column, 2nd from the top) does not answer"
    ), bus1


def test_the_boards_clock_is_read_from_its_own_epoch():
    """The ESP32 port's time.time() counts from 2000, the unix port's (and the virtual board's)
    from 1970: time.gmtime(0)[0] says which, and doctor reads both as the same moment."""
    import calendar

    from host_tools.commands.doctor import CLOCK_SET, unix_time

    moment = calendar.timegm((2026, 12, 5, 12, 0, 0))
    esp32 = moment - calendar.timegm((2000, 1, 1, 0, 0, 0))  # what an ESP32 set to that moment says
    assert unix_time(esp32, 2000) == moment and unix_time(moment, 1970) == moment
    assert esp32 < CLOCK_SET < unix_time(esp32, 2000)  # read as since 1970, a set ESP32 clock looked unset


def two_bus_mini():
    """mini on two buses (A.score at 0x70 on bus 0, B.score at 0x71 on bus 1): a definition with
    an address free on each bus, so a backpack on the wrong bus answers there."""
    two = board_def("mini")
    two["i2c"] = [dict(two["i2c"], bus=0), {"bus": 1, "sda": 25, "scl": 26, "freq": 400000}]
    two["displays"][0]["bus"] = 0
    two["displays"][1].update(bus=1, addr="0x71")
    return two


def test_a_display_on_the_other_bus_is_named(tmp_path, firmware):
    """The flash holds the two-bus definition; the hardware has B.score's backpack wired to bus 0:
    doctor names it as on the wrong bus, with its field and place, and bus 1's wiring is not blamed."""
    meant = two_bus_mini()
    wired = json.loads(json.dumps(meant))
    wired["displays"][1]["bus"] = 0
    flash = lay_out_flash(tmp_path / "flash", {"board": "mini"}, firmware=firmware)
    with open(os.path.join(flash, "boards", "mini.json"), "w") as f:
        json.dump(meant, f)
    vb = VirtualBoard(flash, board=wired, serial=True)
    try:
        vb.power_on()
        vb.run_realtime()
        got = carom("doctor", "--device", vb.serial_path, "--no-reset")
    finally:
        vb.close()
    assert got.returncode == 1, got.stdout
    c = checklist(got.stdout)
    assert c["FAIL"] == [
        "I2C bus 1 (SDA 25, SCL 26): the display at 0x71 (B.score, seg7; player B's column) answers on bus 0 "
        "instead: its SDA and SCL go to bus 0's wires, not to bus 1's"
    ], got.stdout
    assert "I2C bus 0 (SDA 21, SCL 22): all 1 display answer (0x70)" in c["ok"]


# What runs before the virtual board's boot shim when the board is to report an older release: the
# shim and everything after it (the firmware, the REPL, what carom runs there) import a `sys` whose
# implementation.version is VERSION; the rest of `sys` is the real one's.
REPORTS_OLDER = """\
import sys

_boot = sys.argv[1]
sys.argv[:] = sys.argv[1:]
sys.path[0] = _boot.rpartition("/")[0]


class _Reported:
    pass


_sys = _Reported()
for _k in dir(sys) + ["path"]:
    setattr(_sys, _k, getattr(sys, _k))
_impl = _Reported()
for _k in dir(sys.implementation):
    if not _k.startswith("__"):
        setattr(_impl, _k, getattr(sys.implementation, _k))
_impl.version = %r
_sys.implementation = _impl
sys.modules["sys"] = _sys
exec(compile(open(_boot).read(), _boot, "exec"), {"__name__": "__main__"})
"""


def micropython_reporting(folder, version):
    """An interpreter for VirtualBoard(micropython=...): the unix port the tests run, whose board
    says it is MicroPython `version` (sys.implementation.version, the banner) - a board flashed
    with that release as far as `carom doctor` can tell from the serial port."""
    from host_tools.simulator.vboard.process import default_micropython

    prelude = os.path.join(folder, "reports_older.py")
    with open(prelude, "w") as f:
        f.write(REPORTS_OLDER % (version,))
    exe = os.path.join(folder, "micropython")
    with open(exe, "w") as f:
        f.write(
            "#!%s\n"
            "import os, sys\n"
            "real, args = %r, sys.argv[1:]\n"
            "i = 0\n"
            "while i < len(args) and args[i].startswith('-') and args[i] != '-c':\n"
            "    i += 2 if args[i] == '-X' else 1\n"
            "if i < len(args) and args[i] != '-c':\n"
            "    args[i:i] = [%r]\n"
            "os.execv(real, [real] + args)\n" % (sys.executable, default_micropython(), prelude)
        )
    os.chmod(exe, os.stat(exe).st_mode | stat.S_IXUSR)
    return exe


def test_a_board_with_an_older_micropython_fails(tmp_path, firmware):
    """A board that reports MicroPython 1.20.0 over its serial port (board.info(): the version
    sys.implementation gives): doctor fails it, names the release to flash and where, and still
    runs the other checks."""
    from host_tools import MICROPYTHON_DOWNLOAD, MICROPYTHON_OLDEST, release_text

    older = (MICROPYTHON_OLDEST[0], MICROPYTHON_OLDEST[1] - 1, 0, "")
    flash = lay_out_flash(tmp_path / "flash", {"board": "mini"}, firmware=firmware)
    vb = VirtualBoard(
        flash, board=board_def("mini"), serial=True, micropython=micropython_reporting(str(tmp_path), older)
    )
    try:
        vb.power_on()
        vb.run_realtime()
        vb.wait_for(lambda b: "carom: running on board mini" in b.stdout)
        got = carom("doctor", "--device", vb.serial_path, "--no-reset")
    finally:
        vb.close()
    assert got.returncode == 1, got.stdout
    said = "%d.%d.%d" % older[:3]
    c = checklist(got.stdout)
    assert len(c["FAIL"]) == 1, got.stdout
    assert c["FAIL"][0].startswith("MicroPython %s on " % said), c["FAIL"]
    assert (
        ": older than the firmware needs: flash MicroPython %s or newer, the ESP32_GENERIC image from %s "
        % (release_text(MICROPYTHON_OLDEST), MICROPYTHON_DOWNLOAD)
        in c["FAIL"][0]
    )
    assert "I2C bus 0 (SDA 21, SCL 22): all 2 displays answer (0x70 0x71)" in c["ok"]  # the rest is checked
    assert got.stderr.startswith("carom: 1 problem: MicroPython %s on " % said)
