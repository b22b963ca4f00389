"""`carom deploy` against a virtual board, through its serial port, with the real mpremote.

A fresh board (empty flash) gets the firmware as .mpy, runs it, and a second
deploy copies nothing; after one firmware module changes, only that file is
copied.  Every subprocess has a timeout; waits are for what the board printed.
"""

import json
import os
import shutil

import pytest

from helpers import board_def, carom, needs_mpremote, ok, run_mpremote
from host_tools import FIRMWARE_DIR
from host_tools.simulator.vboard import SOFT_RESET, VirtualBoard

RUNNING = "carom: running on board %s"

pytestmark = needs_mpremote


def flash_files(vb):
    """{relative path: (inode, mtime_ns)} of every file on the flash (what a rewrite changes)."""
    out = {}
    for folder, _, names in os.walk(vb.flash_dir):
        for n in names:
            path = os.path.join(folder, n)
            st = os.stat(path)
            out[os.path.relpath(path, vb.flash_dir)] = (st.st_ino, st.st_mtime_ns)
    return out


@pytest.fixture
def fresh(tmp_path):
    """A board with an empty flash: the REPL answers on its pty (no main.py yet)."""
    vb = VirtualBoard(tmp_path / "flash", board=board_def("wall"), serial=True)
    vb.power_on()
    vb.run_realtime()
    yield vb
    vb.close()


def copied(stdout):
    return sorted(line.split(" ", 1)[1] for line in stdout.splitlines() if line.startswith("copied "))


def test_deploy_to_a_fresh_board_then_nothing_then_one_file(fresh, tmp_path):
    vb = fresh
    assert not os.path.exists(vb.flash_path("/main.py"))
    out = ok(carom("deploy", "--device", vb.serial_path, "--board", "wall"))
    # Everything was copied: .mpy modules, main.py and boot.py as source, the board definitions.
    names = copied(out)
    assert "app.mpy" in names and "rules.mpy" in names and "main.py" in names and "boot.py" in names
    assert "boards/wall.json" in names and "boards/mini.json" in names
    on_flash = os.listdir(vb.flash_dir)
    modules = [n for n in on_flash if n.endswith((".py", ".mpy"))]
    assert sorted(n for n in modules if n.endswith(".py")) == ["boot.py", "main.py"]
    assert len([n for n in modules if n.endswith(".mpy")]) >= 15
    assert not os.path.exists(vb.flash_path("/.deploy"))  # the staging folder is gone
    with open(vb.flash_path("/config.json")) as f:
        assert json.load(f) == {"board": "wall"}
    with open(vb.flash_path("/deploy.json")) as f:
        manifest = json.load(f)
    assert manifest["files"]["/app.mpy"] and manifest["source"] is False
    # deploy reset the board, watched it start and said so
    assert "reset; the board started: " + RUNNING % "wall" in out
    vb.wait_for(lambda b: RUNNING % "wall" in b.stdout)
    assert vb.boots[-1].cause == SOFT_RESET and vb.boots[-1].kind == "chip"
    # The app runs from the .mpy files (asked through the real mpremote).
    got = run_mpremote(
        vb.serial_path, "exec", "import app, rules, view; print(app.__file__, rules.__file__, view.__file__)", text=True
    )
    assert got.returncode == 0, got.stderr
    assert got.stdout.split() == ["app.mpy", "rules.mpy", "view.mpy"]

    # Nothing changed: nothing is copied, no file on the flash is rewritten.
    before = flash_files(vb)
    runs = vb.stdout.count(RUNNING % "wall")
    out = ok(carom("deploy", "--device", vb.serial_path, "--board", "wall"))
    assert copied(out) == []
    assert "up to date" in out
    after = flash_files(vb)
    firmware = [p for p in before if p.endswith((".py", ".mpy")) or p.startswith("boards") or p == "deploy.json"]
    assert {p: after[p] for p in firmware} == {p: before[p] for p in firmware}
    vb.wait_for(lambda b: b.stdout.count(RUNNING % "wall") == runs + 1)

    # One module changed: only that file is copied (and the manifest rewritten).
    fw = tmp_path / "fw"
    shutil.copytree(FIRMWARE_DIR, fw, ignore=shutil.ignore_patterns("__pycache__"))
    with open(fw / "sound.py", "a") as f:
        f.write("\nDEPLOY_TEST_MARK = 2\n")
    before = flash_files(vb)
    out = ok(carom("deploy", "--device", vb.serial_path, "--board", "wall", env={"CAROM_FIRMWARE": str(fw)}))
    assert copied(out) == ["sound.mpy"]
    assert "deployed 1 of" in out
    after = flash_files(vb)
    rewritten = sorted(p for p in firmware if after.get(p) != before[p])
    assert rewritten == ["deploy.json", "sound.mpy"]
    vb.wait_for(lambda b: b.stdout.count(RUNNING % "wall") == runs + 2)
    got = run_mpremote(vb.serial_path, "exec", "import sound; print(sound.DEPLOY_TEST_MARK)", text=True)
    assert got.stdout.strip() == "2", got.stderr


def test_source_deploy_then_mpy_never_leaves_a_shadowing_py(fresh):
    vb = fresh
    out = ok(carom("deploy", "--device", vb.serial_path, "--board", "mini", "--source"))
    names = os.listdir(vb.flash_dir)
    assert "rules.py" in names and "rules.mpy" not in names
    assert "reset; the board started: " + RUNNING % "mini" in out
    with open(vb.flash_path("/config.json")) as f:
        assert json.load(f) == {"board": "mini"}
    # Back to .mpy: rules.py would shadow rules.mpy (MicroPython imports the .py first): removed.
    out = ok(carom("deploy", "--device", vb.serial_path, "--board", "wall"))
    names = os.listdir(vb.flash_dir)
    assert "rules.mpy" in names and "rules.py" not in names
    assert sorted(n for n in names if n.endswith(".py")) == ["boot.py", "main.py"]
    assert "removed rules.py" in out
    assert "config.json: board mini -> wall" in out
    vb.wait_for(lambda b: RUNNING % "wall" in b.stdout)


def test_deploy_over_a_socket_url_with_no_reset(tmp_path):
    vb = VirtualBoard(tmp_path / "flash", board=board_def("wall"), tcp=0)
    try:
        vb.power_on()
        vb.run_realtime()
        out = ok(carom("deploy", "--device", vb.serial_url, "--board", "wall", "--no-reset"))
        assert "not reset" in out and os.path.exists(vb.flash_path("/app.mpy"))
        assert RUNNING % "wall" not in vb.stdout
        vb.power_off()
        vb.power_on()
        vb.wait_for(lambda b: RUNNING % "wall" in b.stdout)
    finally:
        vb.close()


def test_deploy_refuses_an_unknown_board_and_a_missing_port(tmp_path):
    out = carom("deploy", "--device", str(tmp_path / "ttyNONE"), "--board", "nope")
    assert out.returncode == 1
    assert out.stderr.startswith("carom: no board definition 'nope'") and "wall" in out.stderr
    out = carom("deploy", "--device", str(tmp_path / "ttyNONE"), "--board", "wall")
    assert out.returncode == 1
    assert "carom: cannot open %s (no such port)" % (tmp_path / "ttyNONE") in out.stderr
    assert "Traceback" not in out.stderr


def test_a_module_gone_from_the_build_is_removed_but_never_config_or_data(fresh):
    vb = fresh
    vb.write_file("/gone.mpy", b"M\x06\x00\x1f")  # a module an older firmware had
    vb.write_file("/config.json", json.dumps({"board": "wall", "name": "Table 2"}))
    vb.write_file("/data/history/000001.json", "{}")
    listed = {
        "/gone.mpy": "0" * 64,
        "/config.json": "0" * 64,
        "/data/history/000001.json": "0" * 64,
        "/main.py": "0" * 64,
    }
    vb.write_file("/deploy.json", json.dumps({"format": 1, "files": listed}))  # e.g. edited by hand
    out = ok(carom("deploy", "--device", vb.serial_path, "--board", "wall"))
    assert "removed gone.mpy" in out and not os.path.exists(vb.flash_path("/gone.mpy"))
    with open(vb.flash_path("/config.json")) as f:
        assert json.load(f) == {"board": "wall", "name": "Table 2"}  # kept as it was
    assert os.path.exists(vb.flash_path("/data/history/000001.json"))
    vb.wait_for(lambda b: RUNNING % "wall" in b.stdout)


def test_the_manifest_freezes_every_module_a_board_gets():
    # firmware/manifest.py (a frozen build's list) and build.py (what carom deploy copies) agree:
    # a module added to the firmware and forgotten in the manifest would be missing from a frozen board.
    import re

    from host_tools.build import FIRMWARE_DIR, firmware_modules

    with open(os.path.join(FIRMWARE_DIR, "manifest.py")) as f:
        frozen = set(re.findall(r'^module\("([a-z_0-9]+\.py)"', f.read(), re.M))
    deployed = {n for n in firmware_modules() if n not in ("boot.py", "main.py")}
    # referee.py (the scripted mode's words) is not copied by deploy but frozen, for a REPL to import.
    assert frozen == deployed | {"referee.py"}, (sorted(deployed - frozen), sorted(frozen - deployed))


def test_deploy_copies_the_voice_pack_and_keeps_it(fresh, tmp_path):
    """--voice copies a pack (carom voice's folder) as /voice.pack; a deploy without it keeps it."""
    from host_tools.voice import pack
    from test_speech_vboard import synthetic_clips

    vb = fresh
    folder = tmp_path / "pack"
    folder.mkdir()
    data = pack.build(synthetic_clips(), "hu")
    (folder / "voice.pack").write_bytes(data)
    out = ok(carom("deploy", "--device", vb.serial_path, "--board", "wall", "--voice", str(folder)))
    assert "copied voice.pack" in out
    with open(vb.flash_path("/voice.pack"), "rb") as f:
        assert f.read() == data
    out = ok(carom("deploy", "--device", vb.serial_path, "--board", "wall"))  # without --voice: kept
    assert os.path.exists(vb.flash_path("/voice.pack")) and "removed voice.pack" not in out
