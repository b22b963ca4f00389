"""`carom doctor` on virtual boards: a healthy one, one with a display unplugged, one
with a broken config.json, one with a deploy cut short, and no board at all."""

import io
import json
import os

import pytest

from helpers import board_def, carom, needs_mpremote
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
    for expected in ("the board answers", "MicroPython 1.", "(.mpy v6, as carom deploy makes)", "flash:", "RAM:",
                     "all %d files as deployed" % deployed, "config.json: valid (board wall", "boards/wall.json: valid",
                     "I2C bus 0 (SDA 21, SCL 22): all 8 displays answer",
                     "I2C bus 1 (SDA 32, SCL 33): all 8 displays answer", "the app starts: " + RUNNING):
        assert expected in text, expected
    assert any(w.startswith("clock: not set") for w in c["warn"])  # a warning is not a failure
    assert got.stdout.splitlines()[-1] == "all good (1 warning)"


def test_unplugged_display(wall):
    wall.unplug(0x71)  # A's innings/run display, bus 0
    got = carom("doctor", "--device", wall.serial_path)
    assert got.returncode == 1
    c = checklist(got.stdout)
    assert c["FAIL"] == ["I2C bus 0 (SDA 21, SCL 22): the display at 0x71 (A.innings, A.run, seg7) does not answer: "
                         "unplugged, loose wire or wrong address"]
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
