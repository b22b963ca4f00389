"""A deploy cut short must leave a board that boots: the old firmware or the new, never a mix.

The board starts with the repository's firmware ("old"); the deploy brings a
copy of it in which every module, main.py and boot.py included, has changed
("new"), so every file is copied.  The deploy is cut while it copies (the
`carom deploy` process, which runs mpremote's transport, is killed; the serial
port is closed under it; the board's power is cut) and while it switches files
into place (a power cut after 0, 5 or 14 of the renames).  Then the board is
powered on: the app must run, and every firmware file must be the old one, or
every one the new one.  A second deploy then finishes the job.
"""

import hashlib
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

import host_tools.build as build_module
from helpers import carom, needs_mpremote, ok, start_running
from host_tools import FIRMWARE_DIR, ROOT
from host_tools.commands.deploy import GUARD_CODE, Deployer, build_local
from host_tools.link.boardio import BoardIO

RUNNING = "carom: running on board wall"

pytestmark = needs_mpremote


def build_files(fw_dir):
    saved = build_module.FIRMWARE_DIR
    build_module.FIRMWARE_DIR = str(fw_dir)
    try:
        return build_local(False)
    finally:
        build_module.FIRMWARE_DIR = saved


@pytest.fixture(scope="module")
def firmwares(tmp_path_factory):
    """(old files, new firmware folder, new files): {"/path": bytes} as the flash holds them."""
    new_fw = tmp_path_factory.mktemp("new") / "firmware"
    shutil.copytree(FIRMWARE_DIR, new_fw, ignore=shutil.ignore_patterns("__pycache__"))
    for name in os.listdir(new_fw):
        if name.endswith(".py"):
            with open(new_fw / name, "a") as f:
                f.write("\nDEPLOY_GENERATION = 2\n")
    old, new = build_files(FIRMWARE_DIR), build_files(new_fw)
    assert all(old[p] != new[p] for p in old if not p.startswith("/boards/"))
    return old, str(new_fw), new


def start_old_board(tmp_path, old):
    flash = tmp_path / "flash"
    for path, data in old.items():
        os.makedirs(os.path.dirname(str(flash) + path), exist_ok=True)
        with open(str(flash) + path, "wb") as f:
            f.write(data)
    with open(flash / "config.json", "w") as f:
        json.dump({"board": "wall"}, f)
    return start_running(flash, serial=True)


def firmware_state(vb, old, new):
    """ "old" or "new" when every firmware file on the flash is that build's; else the mix."""
    got = {}
    for path in old:
        try:
            with open(vb.flash_path(path), "rb") as f:
                got[path] = hashlib.sha256(f.read()).digest()
        except FileNotFoundError:
            got[path] = None
    for name, files in (("old", old), ("new", new)):
        if all(got[p] == hashlib.sha256(files[p]).digest() for p in files):
            return name
    return {
        p: (
            "old"
            if got[p] == hashlib.sha256(old[p]).digest()
            else "new"
            if got[p] == hashlib.sha256(new[p]).digest()
            else "other"
        )
        for p in old
    }


def staged_count(vb):
    n = 0
    for _, _, names in os.walk(vb.flash_path("/.deploy")):
        n += len(names)
    return n


def power_cycle_and_wait(vb):
    runs = vb.stdout.count(RUNNING)
    vb.power_off()
    vb.power_on()
    vb.run_realtime()
    vb.wait_for(lambda b: b.stdout.count(RUNNING) > runs, timeout=20)


def deploy_new(vb, new_fw, *extra):
    out = carom("deploy", "--device", vb.serial_path, "--board", "wall", *extra, env={"CAROM_FIRMWARE": new_fw})
    ok(out)
    return out.stdout, out.stderr


def files_sent(stderr):
    """How many files the deploy sent (its progress bar: "Copying N files (...)")."""
    for line in stderr.splitlines():
        if line.startswith("Copying "):
            return int(line.split()[1])
    return 0


def start_deploy(vb, new_fw):
    return subprocess.Popen(
        [sys.executable, "-m", "host_tools", "deploy", "--device", vb.serial_path, "--board", "wall"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=dict(os.environ, CAROM_FIRMWARE=new_fw),
    )


def wait_staged(vb, proc, k, timeout=60):
    """Until the deploy has begun copying its k-th file into /.deploy/ (it must still be running)."""
    deadline = time.monotonic() + timeout
    while staged_count(vb) < k:
        assert proc.poll() is None, "the deploy ended before the cut:\n%s%s" % proc.communicate()
        assert time.monotonic() < deadline, "the deploy did not copy %d files in %d s" % (k, timeout)
        time.sleep(0.001)


@pytest.mark.parametrize("cut", ["kill", "close_port", "power"])
@pytest.mark.parametrize("k", [1, 12])
def test_cut_while_copying_keeps_the_old_firmware(firmwares, tmp_path, cut, k):
    old, new_fw, new = firmwares
    vb = start_old_board(tmp_path, old)
    proc = start_deploy(vb, new_fw)
    try:
        wait_staged(vb, proc, k)
        if cut == "kill":
            proc.send_signal(signal.SIGKILL)  # mpremote's transport dies with the process, mid-write
            proc.wait(timeout=30)
        elif cut == "close_port":
            vb.close_serial()  # the cable is pulled: the deploy notices and stops by itself
            out, err = proc.communicate(timeout=60)
            assert proc.returncode == 1, out + err
            assert "carom: lost the connection to" in err, err
            assert "Traceback" not in err
            vb.open_serial()
        else:
            vb.power_off()  # the board goes dark mid-copy; the deploy is given up (Ctrl-C)
            proc.kill()
            proc.wait(timeout=30)
        assert firmware_state(vb, old, new) == "old"  # nothing was switched yet
        power_cycle_and_wait(vb)
        assert firmware_state(vb, old, new) == "old"
        # A second deploy finishes the job; what was staged and checked is not sent again.
        out, err = deploy_new(vb, new_fw)
        changed = len([p for p in new if new[p] != old[p]])
        assert "deployed %d of" % changed in out
        assert files_sent(err) <= changed - (k - 1), err
        vb.wait_for(lambda b: b.stdout.count(RUNNING) >= 3)
        assert firmware_state(vb, old, new) == "new"
        assert not os.path.exists(vb.flash_path("/.deploy"))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        vb.close()


@pytest.mark.parametrize("renames", [0, 5, 14])
def test_power_cut_while_switching_boots_the_new_firmware(firmwares, tmp_path, renames):
    """The switch is one exec on the board; a power cut inside it leaves the guard main.py,
    which finishes the renames at boot and restarts into the new firmware."""
    old, new_fw, new = firmwares
    vb = start_old_board(tmp_path, old)
    try:
        with BoardIO(vb.serial_path, out=io.StringIO()) as board:
            Deployer(board, new, False, out=io.StringIO()).run(stop_after=renames)
        vb.stop_realtime()
        vb.power_off()  # the power goes after `renames` renames
        with open(vb.flash_path("/main.py"), "rb") as f:
            assert f.read() == GUARD_CODE.encode()
        state = firmware_state(vb, old, new)
        if renames:
            assert isinstance(state, dict) and "old" in state.values() and "new" in state.values()  # a mix...
        runs = vb.stdout.count(RUNNING)
        vb.power_on()
        vb.run_realtime()
        vb.wait_for(lambda b: b.stdout.count(RUNNING) > runs, timeout=20)  # ...that never runs
        assert "carom deploy: finished an interrupted deploy; restarting" in vb.stdout
        assert firmware_state(vb, old, new) == "new"
        assert not os.path.exists(vb.flash_path("/.deploy"))
        with open(vb.flash_path("/deploy.json")) as f:
            assert json.load(f)["files"]["/app.mpy"] == hashlib.sha256(new["/app.mpy"]).hexdigest()
    finally:
        vb.close()


def test_a_switch_cut_short_is_finished_by_the_next_deploy(firmwares, tmp_path):
    """Without a reboot in between, the next deploy finds the guard and finishes the switch itself."""
    old, new_fw, new = firmwares
    vb = start_old_board(tmp_path, old)
    try:
        with BoardIO(vb.serial_path, out=io.StringIO()) as board:
            Deployer(board, new, False, out=io.StringIO()).run(stop_after=4)
        out, _ = deploy_new(vb, new_fw)
        assert "finished an earlier deploy that was cut short" in out
        assert "up to date" in out
        assert firmware_state(vb, old, new) == "new"
        vb.wait_for(lambda b: b.stdout.count(RUNNING) >= 2)
    finally:
        vb.close()
