"""Put firmware/ and tests/fw on sys.path so firmware tests run under pytest too; the fixtures the
host tests share (plain helpers: tests/host/helpers.py)."""

import os
import signal
import sys

import pytest

from tools.run.chromium import CHROMIUM, launch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for p in (os.path.join(ROOT, "firmware"), os.path.join(HERE, "fw")):
    if p not in sys.path:
        sys.path.insert(0, p)

# A suite started in the background by a script (`make test &`, `nohup ... &`) inherits SIGINT
# ignored, and so would every command its tests start (a pytest-xdist worker too): a test that
# stops one by Ctrl-C (tools/run's LineProcess.stop, `carom doctor --identify`) would wait for
# nothing. Handled here as Python handles it in a terminal, SIGINT is at its default again in each
# command started (an exec resets a handled signal, not an ignored one).
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_report_header(config):
    """One line saying which 32-bit MicroPython the heap tests run on, or that they are skipped."""
    sys.path.insert(0, ROOT)
    from host_tools import micropython32_exe

    exe = micropython32_exe()
    if exe is None:
        return (
            "32-bit MicroPython: none (CAROM_MICROPYTHON32, or ../shared/tools/micropython32/micropython): "
            "SKIPPED the heap tests (tests/host/test_heap32.py) and the 32-bit runs"
        )
    return "32-bit MicroPython: %s" % exe


@pytest.fixture(scope="session")
def firmware(tmp_path_factory):
    """The flash layout `carom deploy` writes (.mpy files, main.py, boot.py, boards/), built once a
    session (under pytest-xdist: once a worker, in its own temporary folder); tests copy it, never
    write into it."""
    from host_tools.build import build

    out = str(tmp_path_factory.mktemp("build") / "flash")
    build(out)
    return out


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium under Playwright, headless (tools/deps.sh is tried once if it is missing)."""
    import subprocess

    if not os.path.exists(CHROMIUM):
        subprocess.run(["sh", os.path.join(ROOT, "tools", "deps.sh")], check=False)
    if not os.path.exists(CHROMIUM):
        pytest.skip(
            "Debian's chromium is not installed and tools/deps.sh could not install it "
            "(it needs apt-get and root or sudo)"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = launch(p)
        yield b
        b.close()


@pytest.fixture
def broker():
    """A real mosquitto on a free loopback port (tools/run/mosquitto.py), stopped afterwards."""
    from helpers import running_mosquitto

    with running_mosquitto() as m:
        yield m
