"""The project's software started as a person starts it, for the tests (tests/host) and the
repository's tools (tools/pictures.py): what both import, so neither writes it again.

__init__.py   wait_for/wait_until (a condition, never a fixed sleep), LineProcess (a long-running
              command read line by line), carom() and CAROM (the venv's `carom`), a board's
              definition and a flash folder laid out as `carom deploy` leaves it
mosquitto.py  a real mosquitto on a free loopback port
chromium.py   Debian's Chromium under Playwright, with the switches the tests use
sim.py        `carom sim` and its page, read back from the segments it drew
hall.py       `carom hall`, its TV and the organiser's page

Every wait here is for a condition, with a generous deadline that only bounds a hang: nothing
sleeps a fixed time, and nothing passes or fails by how fast the machine is.
"""

import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

from host_tools import ROOT

BIN = os.path.dirname(sys.executable)
CAROM = os.path.join(BIN, "carom")


# ---- `carom` and boards in folders ---------------------------------------------------------------


def board_def(name):
    """boards/<name>.json as the virtual board reads it."""
    with open(os.path.join(ROOT, "boards", name + ".json")) as f:
        return json.load(f)


def carom(*args, env=None, timeout=90, input=None):
    """`python -m host_tools ...` from the repository, as a person runs `carom ...` (`input`, if
    given, on its stdin); a CompletedProcess."""
    return subprocess.run(
        [sys.executable, "-m", "host_tools", *args],
        input=input,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env=dict(os.environ, **(env or {})),
    )


def lay_out_flash(folder, config, firmware=None):
    """A flash folder as `carom deploy` leaves it (built here, or copied from a `firmware` built
    beforehand), with `config` as its config.json. Returns the folder as a str."""
    from host_tools.build import build

    folder = str(folder)
    if firmware is None:
        build(folder)
    else:
        shutil.copytree(firmware, folder)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f)
    return folder


# ---- waiting -------------------------------------------------------------------------------------


def wait_for(fn, expected, timeout=15.0, what=""):
    """Poll fn() until it returns `expected` (or expected(value) is true when callable); return the value.

    AssertionError after `timeout` real seconds, naming what was awaited and the last value."""
    deadline = time.monotonic() + timeout
    while True:
        value = fn()
        if expected(value) if callable(expected) else value == expected:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("%s: expected %r, still %r after %.0f s" % (what or fn, expected, value, timeout))
        time.sleep(0.02)


def wait_until(pred, timeout=15.0, what=""):
    """Poll pred() until it is true (AssertionError after `timeout` real seconds)."""
    wait_for(pred, bool, timeout, what)


# ---- a command's output, line by line ------------------------------------------------------------


def _signal_state(pid):
    """How process pid takes SIGINT (Linux): blocked, ignored or caught (a handler), from
    /proc/pid/status; what a Ctrl-C that did nothing needs said."""
    try:
        with open("/proc/%d/status" % pid) as f:
            masks = dict(line.split(":", 1) for line in f if line.startswith(("Sig", "State")))
    except OSError:
        return "its signal state unknown"
    bit = 1 << (signal.SIGINT - 1)
    return "state %s; SIGINT " % masks.get("State", "?").strip() + ", ".join(
        "%s %s" % (word, "yes" if int(masks[key], 16) & bit else "no")
        for key, word in (("SigBlk", "blocked"), ("SigIgn", "ignored"), ("SigCgt", "caught"))
        if key in masks
    )


class LineProcess:
    """A long-running command (`carom sim`, `carom hall`, a MicroPython program) as a subprocess in its
    own session: its output (stdout and stderr) read line by line on a thread, wait_line() for a line,
    send() a line to its stdin (stdin=True), get() from its URL, stop() by Ctrl-C or finish()."""

    name = "the command"
    url = None  # where it serves, once a subclass read it from the output

    def __init__(self, cmd, cwd=ROOT, env=None, stdin=False):
        self.proc = subprocess.Popen(
            cmd,
            cwd=cwd,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            text=True,
            start_new_session=True,
        )
        self.lines = []
        self._q = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for line in self.proc.stdout:
            self._q.put(line.rstrip("\n"))
        self._q.put(None)

    def wait_line(self, pattern, timeout=20):
        """The re.Match of the first new line matching `pattern` (AssertionError with the output if the
        process ends or `timeout` real seconds pass first)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self._q.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                line = ""
            if line is None or time.monotonic() > deadline:
                self.gave_up()
                raise AssertionError("no %r from %s; output:\n%s" % (pattern, self.name, "\n".join(self.lines)))
            self.lines.append(line)
            m = re.search(pattern, line)
            if m:
                return m

    def gave_up(self):
        """Called when wait_line() fails, before it raises."""

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def finish(self, timeout=30):
        """Wait for the process to end by itself; its exit status, with every line it wrote in self.lines."""
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
            raise AssertionError("%s did not end within %d s:\n%s" % (self.name, timeout, "\n".join(self.lines)))
        self._drain()
        return code

    def get(self, path, raw=False):
        """GET url + path: the JSON it answers, or (bytes, headers) if raw."""
        import urllib.request

        with urllib.request.urlopen(self.url + path, timeout=10) as r:
            data = r.read()
            return (data, r.headers) if raw else json.loads(data)

    def stop(self, timeout=30):
        """Ctrl-C, as in a terminal: to the whole process group. Returns the exit status."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            signals = _signal_state(self.proc.pid)
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
            raise AssertionError(
                "%s did not stop within %d s of Ctrl-C (%s):\n%s" % (self.name, timeout, signals, "\n".join(self.lines))
            )
        self._drain()
        return code

    def kill(self):
        """End it at once if it still runs (a test's cleanup)."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def _drain(self):
        self._reader.join(timeout=5)
        while not self._q.empty():
            line = self._q.get()
            if line is not None:
                self.lines.append(line)
