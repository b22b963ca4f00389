"""Boards that do not answer: every board conversation ends with `carom: ...` naming the device.

Two kinds of silence on a pseudo-terminal: nobody at the other end at all (`silent_pty`), and a
board that enters the raw REPL and then answers nothing more (`falls_silent`). `--timeout 1`
keeps each run short; the subprocess timeouts only bound a hang.
"""

import pytest

from helpers import Pty, carom

pytest.importorskip("mpremote")


@pytest.fixture
def silent_pty():
    p = Pty()
    yield p.path
    p.close()


@pytest.fixture
def falls_silent():
    p = Pty(answer_repl=True)
    yield p.path
    p.close()


@pytest.fixture
def falls_silent2():
    p = Pty(answer_repl=True)
    yield p.path
    p.close()


def refused(out, *words):
    """The run ended with one `carom: ...` line naming `words`, exit 1, no traceback."""
    assert out.returncode == 1, (out.returncode, out.stdout, out.stderr)
    assert "Traceback" not in out.stderr + out.stdout, out.stderr
    last = out.stderr.strip().splitlines()[-1]
    assert last.startswith("carom: "), out.stderr
    for w in words:
        assert w in out.stderr + out.stdout, (w, out.stdout, out.stderr)
    return out.stderr


def test_doctor_silent_pty(silent_pty):
    """Tried: `carom doctor -d PTY --timeout 1` on a pty nobody answers (it hung past 100 s)."""
    err = refused(carom("doctor", "-d", silent_pty, "--timeout", "1", timeout=60), silent_pty)
    assert "does not answer" in err


def test_doctor_board_falls_silent(falls_silent):
    """Tried: `carom doctor` on a board that enters the raw REPL and then answers nothing."""
    out = carom("doctor", "-d", falls_silent, "--timeout", "1", timeout=60)
    refused(out, falls_silent, "within 1 s")


def test_pair_silent_remote(falls_silent, silent_pty):
    """Tried: `carom pair --wall A --remote B` with the remote's pty silent (it hung past 180 s):
    the error names the remote's port."""
    out = carom("pair", "--wall", falls_silent, "--remote", silent_pty, "--timeout", "1", timeout=60)
    err = refused(out, silent_pty)
    assert "no MicroPython REPL answers on %s within 1 s" % silent_pty in err


def test_pair_boards_fall_silent(falls_silent, falls_silent2):
    """Tried: `carom pair` with both boards entering the raw REPL and then answering nothing:
    the wall board is asked first, so its port is named."""
    out = carom("pair", "--wall", falls_silent, "--remote", falls_silent2, "--timeout", "1", timeout=60)
    err = refused(out, falls_silent, "did not answer" if "did not answer" in out.stderr else "stopped answering")
    assert "reading the MAC address" in err


def test_unpair_silent(silent_pty):
    """Tried: `carom pair --unpair -d PTY` on a silent pty."""
    refused(carom("pair", "--unpair", "-d", silent_pty, "--timeout", "1", timeout=60), silent_pty)


@pytest.mark.parametrize(
    "command",
    [
        ["config", "show"],
        ["config", "get", "display.brightness"],
        ["report"],
        ["deploy", "--board", "wall"],
    ],
)
def test_other_commands_silent_pty(silent_pty, command):
    """Tried: config show/get, report and deploy against a pty nobody answers."""
    out = carom(*command[:1], "-d", silent_pty, "--timeout", "1", *command[1:], timeout=120)
    refused(out, silent_pty, "within 1 s")


def test_timeout_must_be_seconds(silent_pty):
    """Tried: `--timeout 0`, `--timeout nan`, `--timeout x`: refused by argparse (exit 2), no traceback."""
    for bad in ("0", "nan", "x", "-1"):
        out = carom("doctor", "-d", silent_pty, "--timeout", bad, timeout=60)
        assert out.returncode == 2 and "Traceback" not in out.stderr and "--timeout" in out.stderr, out.stderr
