"""The real mpremote against the virtual board's serial port, the real firmware behind it.

The flash is laid out by host_tools.build (the .mpy files a board gets) with a
config.json; the board runs in real-time mode, as a board on a desk would. Every
mpremote call has a timeout; waits are for something the board printed or did.
"""

import hashlib
import json
import os
import random
import select
import subprocess
import termios
import time

import pytest

import helpers
from helpers import MPREMOTE, board_def, needs_mpremote, run_mpremote, start_running
from host_tools.simulator.vboard import SOFT_RESET, VirtualBoard

RUNNING = "carom: running on board %s"

pytestmark = needs_mpremote


def lay_out_flash(folder, board="wall"):
    return helpers.lay_out_flash(folder, {"board": board})


def start_board(flash, name="wall", **kw):
    return start_running(flash, name, **kw)


def mpremote(device, *args, timeout=60):
    out = run_mpremote(device, *args, timeout=timeout)
    assert out.returncode == 0, "mpremote %s failed (%d):\n%s\n%s" % (
        " ".join(args),
        out.returncode,
        out.stdout.decode(errors="replace"),
        out.stderr.decode(errors="replace"),
    )
    return out.stdout


@pytest.fixture
def wall(tmp_path):
    vb = start_board(lay_out_flash(tmp_path / "flash"), serial=True)
    yield vb
    vb.close()


def test_serial_port_is_a_pty(wall):
    path = wall.serial_path
    assert path.startswith("/dev/pts/") and os.path.exists(path)
    assert wall.serial_url is None


def test_fs_ls_lists_the_flash_with_sizes(wall):
    out = mpremote(wall.serial_path, "fs", "ls").decode()
    entries = {line.split()[-1]: int(line.split()[0]) for line in out.splitlines()[1:] if line.strip()}
    assert entries["config.json"] == os.path.getsize(wall.flash_path("/config.json"))
    assert entries["main.py"] == os.path.getsize(wall.flash_path("/main.py"))
    assert "boards/" in entries and "app.mpy" in entries
    out = mpremote(wall.serial_path, "fs", "ls", ":boards").decode()
    assert "wall.json" in out and "mini.json" in out


def test_fs_cp_both_ways_text_and_binary(wall, tmp_path):
    text = b"line one\nline two\n\ttabbed \\ backslash 'quotes' \"double\"\n"
    blob = random.Random(7).randbytes(6000) + bytes(range(256))  # every byte value, \x03 and \x04 too
    (tmp_path / "notes.txt").write_bytes(text)
    (tmp_path / "blob.bin").write_bytes(blob)
    mpremote(
        wall.serial_path,
        "fs",
        "cp",
        str(tmp_path / "notes.txt"),
        ":notes.txt",
        "+",
        "fs",
        "mkdir",
        ":data2",
        "+",
        "fs",
        "cp",
        str(tmp_path / "blob.bin"),
        ":data2/blob.bin",
    )
    with open(wall.flash_path("/notes.txt"), "rb") as f:
        assert f.read() == text
    with open(wall.flash_path("/data2/blob.bin"), "rb") as f:
        assert f.read() == blob
    # cat prints through the console, which turns "\n" into "\r\n" as the ESP32's does
    assert mpremote(wall.serial_path, "fs", "cat", ":notes.txt").replace(b"\r\n", b"\n") == text
    mpremote(wall.serial_path, "fs", "cp", ":data2/blob.bin", str(tmp_path / "back.bin"))
    assert (tmp_path / "back.bin").read_bytes() == blob
    out = mpremote(wall.serial_path, "fs", "sha256sum", ":data2/blob.bin").decode()
    assert hashlib.sha256(blob).hexdigest() in out


def test_exec_runs_in_the_boards_world(wall):
    code = (
        "import machine, time, os\n"
        "print(open('config.json').read())\n"
        "i2c = machine.I2C(0, scl=machine.Pin(22), sda=machine.Pin(21))\n"
        "print('scan', i2c.scan())\n"
        "print('ram', i2c.readfrom_mem(0x70, 0, 16).hex())\n"
        "machine.Pin(18, machine.Pin.OUT).on()\n"
        "print('cause', machine.reset_cause(), 'ticks', time.ticks_ms() > 0, 'cwd', os.getcwd())\n"
    )
    out = mpremote(wall.serial_path, "exec", code).decode().splitlines()
    assert json.loads(out[0]) == {"board": "wall"}
    assert out[1] == "scan [112, 113, 114, 115, 116, 117, 118, 119]"
    # what the firmware drew on the A.score display, read back over the emulated bus
    assert out[2] == "ram " + wall.chip(0x70, bus=0).ram.hex()
    assert out[3] == "cause 1 ticks True cwd /"
    assert wall.pin_level("A.turn") == 1  # the host saw the pin the REPL drove


def test_exec_error_is_reported_by_mpremote(wall):
    out = subprocess.run(
        [MPREMOTE, "connect", wall.serial_path, "exec", "import time\ntime.sleep_ms(5)\n1/0"],
        capture_output=True,
        timeout=60,
    )
    assert out.returncode == 1
    assert b'File "<stdin>", line 3, in <module>' in out.stdout + out.stderr
    assert b"ZeroDivisionError: divide by zero" in out.stdout + out.stderr
    assert b"_vb_" not in out.stdout + out.stderr  # the emulation's frames are not shown


def test_soft_reset_from_the_raw_repl_skips_main(wall):
    runs = wall.stdout.count(RUNNING % "wall")
    boots = len(wall.boots)
    reboots = wall.stdout.count("MPY: soft reboot")
    mpremote(wall.serial_path, "soft-reset")
    assert [b.kind for b in wall.boots[boots:]] == ["vm"]
    assert wall.boots[-1].cause == wall.boots[0].cause  # a soft reset keeps the reset cause
    assert wall.stdout.count("MPY: soft reboot") == reboots + 1
    assert wall.stdout.count(RUNNING % "wall") == runs  # main.py did not run from the raw REPL
    wall.wait_for(lambda b: b.repl_mode == "friendly")  # mpremote left the raw REPL with Ctrl-B


def test_reset_restarts_the_app_and_the_port_survives(wall):
    path = wall.serial_path
    runs = wall.stdout.count(RUNNING % "wall")
    mpremote(path, "reset")
    wall.wait_for(lambda b: b.stdout.count(RUNNING % "wall") == runs + 1)
    assert wall.boots[-1].cause == SOFT_RESET and wall.boots[-1].kind == "chip"
    assert wall.reset_cause == SOFT_RESET
    assert wall.serial_path == path
    out = mpremote(path, "exec", "import machine; print(machine.reset_cause())")
    assert out.strip() == b"5"


def test_repl_command_in_a_terminal(wall):
    """`mpremote repl` needs a terminal: it gets one (a second pty) here."""
    master, slave = os.openpty()
    proc = subprocess.Popen(
        [MPREMOTE, "connect", wall.serial_path, "repl"], stdin=slave, stdout=slave, stderr=slave, close_fds=True
    )
    os.close(slave)
    seen = bytearray()

    def expect(text, timeout=15):
        deadline = time.monotonic() + timeout
        while text not in seen:
            assert time.monotonic() < deadline, "no %r in %r" % (text, bytes(seen))
            if select.select([master], [], [], 0.1)[0]:
                try:
                    seen.extend(os.read(master, 4096))
                except OSError:
                    break

    try:
        expect(b"Use Ctrl-] or Ctrl-x to exit this shell")
        # Typed before mpremote sets its terminal raw, Ctrl-C would be eaten by the line discipline.
        deadline = time.monotonic() + 15
        while termios.tcgetattr(master)[3] & termios.ICANON:
            assert time.monotonic() < deadline, "mpremote did not set its terminal raw"
            time.sleep(0.01)
        os.write(master, b"\x03")  # the app stops; the REPL answers
        expect(b">>> ")
        os.write(master, b"6*7\r")
        expect(b"42\r\n>>> ")
        os.write(master, b"\x1d")  # Ctrl-]: leave mpremote
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    assert "carom: stopped (Ctrl-C)" in wall.stdout


def test_two_boards_at_once(tmp_path):
    wall = start_board(lay_out_flash(tmp_path / "wall"), "wall", serial=True)
    mini = start_board(lay_out_flash(tmp_path / "mini", board="mini"), "mini", serial=True)
    try:
        assert wall.serial_path != mini.serial_path
        code = "print(open('config.json').read())"
        procs = [
            subprocess.Popen(
                [MPREMOTE, "connect", b.serial_path, "exec", code, "+", "fs", "touch", ":mark"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            for b in (wall, mini)
        ]
        outs = []
        for p in procs:
            out, err = p.communicate(timeout=60)
            assert p.returncode == 0, err
            outs.append(json.loads(out.decode().splitlines()[0]))
        assert outs == [{"board": "wall"}, {"board": "mini"}]
        assert os.path.exists(wall.flash_path("/mark")) and os.path.exists(mini.flash_path("/mark"))
        assert wall.pid != mini.pid
    finally:
        wall.close()
        mini.close()


def test_socket_url(tmp_path):
    vb = start_board(lay_out_flash(tmp_path / "flash"), tcp=0)
    try:
        url = vb.serial_url
        assert url.startswith("socket://127.0.0.1:") and vb.serial_path is None
        out = mpremote(url, "exec", "print(open('config.json').read())")
        assert json.loads(out) == {"board": "wall"}
        assert "config.json" in mpremote(url, "fs", "ls").decode()
    finally:
        vb.close()


def test_serial_opened_on_a_running_board(tmp_path):
    vb = VirtualBoard(lay_out_flash(tmp_path / "flash"), board=board_def("wall"))
    try:
        vb.power_on()
        vb.advance(1)
        assert RUNNING % "wall" in vb.stdout and vb.serial_path is None
        path = vb.open_serial()
        assert path == vb.serial_path
        vb.run_realtime()
        out = mpremote(path, "exec", "print(1 + 1)")
        assert out.strip() == b"2"
    finally:
        vb.close()
    assert vb.serial_path is None
