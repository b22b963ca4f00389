"""`carom sim` prints each board's serial port, and the real mpremote works on it while the page runs."""

import sys

from helpers import LineProcess, run_mpremote


def test_mpremote_against_the_simulator_board():
    sim = LineProcess([sys.executable, "-m", "host_tools", "sim", "--listen", "127.0.0.1:0"])
    sim.name = "carom sim"
    try:
        pty = sim.wait_line(r"serial console (/dev/pts/\d+)", timeout=60).group(1)
        out = run_mpremote(pty, "fs", "ls", text=True)
        assert out.returncode == 0, out.stderr
        assert "main.py" in out.stdout and "config.json" in out.stdout
        out = run_mpremote(pty, "exec", "import machine; print(len(machine.unique_id()))", text=True)
        assert out.returncode == 0 and out.stdout.strip().endswith("6"), (out.stdout, out.stderr)
    finally:
        sim.stop(timeout=20)
