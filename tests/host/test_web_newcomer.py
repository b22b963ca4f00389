"""A newcomer's path: `git clone`, then the README's `make sim`, and the page answers.

The clone gets the project's existing virtual environment (a symlink, with the
clone's pyproject.toml and tools/venv.sh dated before the venv was made, so make
does not reinstall the project into the shared venv) and PYTHONPATH points at the
clone, so it is the clone's own code that runs -- what `pip install -e .` in the
clone would give.  Only committed files are in a clone.
"""

import json
import os
import shutil
import subprocess
import sys
import urllib.request

import pytest

from host_tools import ROOT
from helpers import free_port
from test_web import alive, children_of
from tools.run.sim import Sim

VENV = os.path.dirname(os.path.dirname(os.path.abspath(sys.executable)))


def test_make_sim_from_a_fresh_clone(tmp_path):
    if not shutil.which("git") or not shutil.which("make"):
        pytest.fail("git and make are part of the set-up (README: Set up)")
    stamp = os.path.join(VENV, ".stamp")
    if not os.path.exists(stamp):
        pytest.skip("%s was not made by tools/venv.sh (no .stamp): make would reinstall into it" % VENV)
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", ROOT, str(clone)], check=True)
    os.symlink(VENV, clone / ".venv")
    made = os.stat(stamp).st_mtime - 60
    for name in ("pyproject.toml", "tools/venv.sh"):
        os.utime(clone / name, (made, made))
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "CAROM_FIRMWARE", "CAROM_BOARDS")
    }
    env["PYTHONPATH"] = str(clone)
    port = free_port()
    dry = subprocess.run(
        ["make", "-n", "sim", "SIM_LISTEN=127.0.0.1:%d" % port],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "venv.sh" not in dry, "make would reinstall into the shared venv:\n" + dry
    assert ".venv/bin/carom sim --listen 127.0.0.1:%d" % port in dry

    sim = Sim(["make", "sim", "SIM_LISTEN=127.0.0.1:%d" % port], cwd=clone, env=env)
    try:
        assert sim.url == "http://127.0.0.1:%d" % port
        with urllib.request.urlopen(sim.url + "/", timeout=10) as r:
            assert r.status == 200 and b"Carom scoreboard" in r.read()
        with urllib.request.urlopen(sim.url + "/static/app.js", timeout=10) as r:
            assert b"updateDisplay" in r.read()
        state = sim.get("/api/state")[0]
        score = next(c for c in state["chips"] if c["key"] == "0x70")
        assert state["powered"] and score["lit"] and score["text"] == "   0"
        layout = sim.get("/api/boards")["boards"][0]
        assert layout["board"] == "wall" and os.path.realpath(layout["flash"]).startswith("/")
        flash = layout["flash"]
        assert os.path.exists(os.path.join(flash, "main.py"))  # a fresh flash folder, the firmware in it
        assert json.load(open(os.path.join(flash, "config.json"))) == {"board": "wall"}
        carom = [pid for pid in children_of(sim.proc.pid)]  # make -> carom -> micropython
        boards = [pid for c in carom for pid in children_of(c)]
        assert boards, "no MicroPython process under make sim"
    finally:
        sim.stop()  # Ctrl-C to the process group, as in the terminal
    assert "carom sim: stopping" in sim.lines, "\n".join(sim.lines)
    for pid in boards:
        assert not alive(pid), "MicroPython %d still runs after Ctrl-C" % pid
    assert not os.path.exists(flash), "the temporary flash folder was left behind"
