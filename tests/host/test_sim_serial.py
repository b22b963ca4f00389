"""`carom sim` prints each board's serial port, and the real mpremote works on it while the page runs."""

import os
import re
import signal
import subprocess
import sys
import time

from host_tools import ROOT

MPREMOTE = os.path.join(os.path.dirname(sys.executable), "mpremote")


def test_mpremote_against_the_simulator_board():
    sim = subprocess.Popen([sys.executable, "-m", "host_tools", "sim", "--listen", "127.0.0.1:0"], cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        pty = None
        end = time.monotonic() + 60
        lines = []
        while time.monotonic() < end and pty is None:
            line = sim.stdout.readline()
            if not line:
                break
            lines.append(line)
            m = re.search(r"serial console (/dev/pts/\d+)", line)
            if m:
                pty = m.group(1)
        assert pty, "".join(lines)
        out = subprocess.run([MPREMOTE, "connect", pty, "fs", "ls"], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        assert "main.py" in out.stdout and "config.json" in out.stdout
        out = subprocess.run([MPREMOTE, "connect", pty, "exec", "import machine; print(len(machine.unique_id()))"],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 0 and out.stdout.strip().endswith("6"), (out.stdout, out.stderr)
    finally:
        os.killpg(sim.pid, signal.SIGINT)
        try:
            sim.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(sim.pid, signal.SIGKILL)
            sim.wait()
