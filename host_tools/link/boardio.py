"""The link to a board for carom's technician commands, over mpremote's Python API.

`carom deploy`, `config`, `report` and `doctor` all talk to the board through
this module, which wraps mpremote's SerialTransport (the same code the
`mpremote` command runs: raw REPL, raw-paste mode, `fs_readfile`,
`fs_writefile`, `fs_listdir`); nothing here speaks the REPL protocol itself.

    with BoardIO("/dev/ttyUSB0") as board:    # or any pyserial URL: socket://127.0.0.1:PORT
        board.exec("print(1)")                # the app was interrupted, as mpremote does
        raw = board.read_file("/config.json") # None when there is no such file
        board.write_file_atomic("/config.json", raw)
        board.hashes(["/app.mpy"])            # {path: sha256 hex or None}, computed on the board
        board.restart()                       # mpremote's `reset`: the app runs again

Every failure becomes a CommandError that says what was being done and on
which device: the port cannot be opened, no REPL answers, the link was lost
(cable, power), or code on the board raised (its last traceback line).
"""

import ast
import contextlib
import errno
import io
import os
import re
import sys
import time

from ..errors import CommandError

# mpremote's `reset` command is this exec, sent without waiting for output.
RESET_CODE = "import time, machine; time.sleep_ms(100); machine.reset()"
CHUNK = 512  # bytes per fs_readfile/fs_writefile round trip (mpremote's default is 256)
BAUD = 115200
# Seconds a board may stay silent (while carom waits for its answer, or for room to write to it)
# before carom gives up on it: mpremote's own wait between characters, now also on a read or a
# write that pyserial would let block for ever (a pty or socket nobody answers).
ANSWER_TIMEOUT = 10.0

# What the wall board's app prints at boot (firmware/app.py), to tell a good start.
APP_RUNNING = "carom: running on board"
BOOT_PROBLEMS = (
    "config:",
    "carom: board ",
    "carom: safe boot",
    "carom: task failed",
    "carom: the saved match was damaged",
    "Traceback",
    "carom deploy:",
)

# Runs on the board: sha256 of each path, one line each (repr: None for a missing file).
_HASH_CODE = """\
import hashlib, binascii
def _carom_hash(p):
    try:
        f = open(p, 'rb')
    except OSError:
        return None
    try:
        h = hashlib.sha256()
        b = bytearray(256)
        m = memoryview(b)
        while True:
            n = f.readinto(b)
            if not n:
                break
            h.update(m[:n])
        return binascii.hexlify(h.digest()).decode()
    except OSError:
        return None
    finally:
        f.close()
for _p in %r:
    print(repr(_carom_hash(_p)))
del _carom_hash
"""


def add_device_argument(p):
    """--device/-d for a subcommand (default: $CAROM_DEVICE)."""
    default = os.environ.get("CAROM_DEVICE") or None
    p.add_argument(
        "--device",
        "-d",
        metavar="DEV",
        default=default,
        required=default is None,
        help="serial port or pyserial URL: /dev/ttyUSB0, COM3, socket://HOST:PORT, rfc2217://HOST:PORT "
        "(default: $CAROM_DEVICE)",
    )
    add_timeout_argument(p)


def add_timeout_argument(p):
    """--timeout S: how long a silent board is waited for (carom's answer timeout)."""
    p.add_argument(
        "--timeout",
        type=_seconds,
        default=ANSWER_TIMEOUT,
        metavar="S",
        help="seconds to wait for a board that does not answer before giving up (default %g)" % ANSWER_TIMEOUT,
    )


def _seconds(text):
    import argparse
    import math

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("not a number of seconds: %r" % text)
    if not (math.isfinite(value) and 0 < value <= 3600):
        raise argparse.ArgumentTypeError("must be more than 0 and at most 3600 seconds, not %r" % text)
    return value


def add_reset_argument(p, what="leaves the board running its app again"):
    p.add_argument(
        "--no-reset",
        dest="reset",
        action="store_false",
        help="do not reset the board at the end (mpremote's `reset`, which %s); "
        "the board stays at the REPL with the app stopped" % what,
    )


def add_wait_argument(p, when="after the reset"):
    p.add_argument(
        "--wait",
        type=float,
        default=10.0,
        metavar="S",
        help="%s: seconds to watch the board start (0: do not watch; default 10)" % when,
    )


def _mpremote():
    try:
        from mpremote.transport import TransportError, TransportExecError
        from mpremote.transport_serial import SerialTransport
    except ImportError as e:
        raise CommandError("mpremote is not installed (pip install mpremote): %s" % e)
    return _bounded(SerialTransport), TransportError, TransportExecError


_BOUNDED = {}


def _bounded(SerialTransport):
    """mpremote's SerialTransport with carom's answer timeout in place of its fixed 10 s waits.

    mpremote waits 10 s between characters of an answer (and 10 s in all to enter the raw REPL);
    here both are the connection's `answer_timeout`. The port itself gets it as pyserial's read
    and write timeouts, set in BoardIO.connect: without them a read on a pty (mpremote reads a
    pty one blocking byte at a time) or the raw-paste handshake waits for ever on a silent board."""
    if SerialTransport not in _BOUNDED:

        class BoundedTransport(SerialTransport):
            answer_timeout = ANSWER_TIMEOUT

            def read_until(self, min_num_bytes, ending, timeout=10, data_consumer=None, timeout_overall=None):
                if timeout is not None:
                    timeout = self.answer_timeout
                if timeout_overall is not None:
                    timeout_overall = self.answer_timeout
                return super().read_until(min_num_bytes, ending, timeout, data_consumer, timeout_overall)

        _BOUNDED[SerialTransport] = BoundedTransport
    return _BOUNDED[SerialTransport]


def _serial_exception():
    try:
        from serial import SerialException
    except ImportError:  # pragma: no cover - pyserial comes with mpremote
        return OSError
    return SerialException


def _serial_timeout():
    try:
        from serial import SerialTimeoutException
    except ImportError:  # pragma: no cover
        return TimeoutError
    return SerialTimeoutException


def last_line(text):
    """The last non-empty line of a traceback (the exception itself)."""
    lines = [ln.strip() for ln in str(text).replace("\r", "").splitlines() if ln.strip()]
    return lines[-1] if lines else str(text).strip()


class RemoteError(CommandError):
    """Code run on the board raised; `text` is its traceback."""

    def __init__(self, message, text=""):
        super().__init__(message)
        self.text = text


class LinkLost(CommandError):
    """The port failed or the board stopped answering."""


class BoardIO:
    """One connection to one board, in mpremote's raw REPL for its whole life."""

    def __init__(self, device, out=None, baud=BAUD, reset_on_close=False, timeout=ANSWER_TIMEOUT):
        self.device = device
        self.timeout = timeout or ANSWER_TIMEOUT  # seconds a silent board is waited for
        self.out = out or sys.stderr
        self.baud = baud
        self.reset_on_close = reset_on_close  # close() with mpremote's `reset` instead of leaving the raw REPL
        self.transport = None
        self._info = None

    # ---- connecting -----------------------------------------------------------

    def __enter__(self):
        self.connect()
        return self

    def __exit__(self, exc_type, exc, tb):
        self.close()

    def connect(self):
        """Open the port and enter the raw REPL with mpremote's soft reset (the app stops)."""
        SerialTransport, TransportError, _ = _mpremote()
        if not self.device or not self.device.strip():
            raise CommandError("--device is empty; give a serial port (/dev/ttyUSB0, COM3) or a pyserial URL")
        try:
            self.transport = SerialTransport(self.device, baudrate=self.baud, timeout=self.timeout)
            self.transport.answer_timeout = self.timeout
            self.transport.serial.write_timeout = self.timeout
        except ValueError as e:  # pyserial: a URL scheme it does not know
            raise CommandError("%s is neither a serial port nor a URL pyserial knows: %s" % (self.device, e))
        except (TransportError, OSError) as e:
            if self._looks_like_missing_path():
                why = "no such port"
            elif "://" not in self.device and not os.access(self.device, os.R_OK | os.W_OK):
                why = "permission denied: on Linux, add yourself to the dialout group"
            else:
                why = "the port is missing, refused the connection, or is in use by another program"
            raise CommandError("cannot open %s (%s): %s" % (self.device, why, e))
        captured = io.StringIO()
        try:
            with contextlib.redirect_stdout(captured):  # mpremote prints what it got on failure
                self.transport.enter_raw_repl(soft_reset=True)
        except Exception as e:  # noqa: BLE001 -- any failure here means no REPL
            self._drop()
            got = captured.getvalue().strip()
            if got in ("b''", 'b""'):  # mpremote printed the nothing it got
                got = ""
            raise LinkLost(
                "no MicroPython REPL answers on %s within %g s (%s)%s; is the board powered, is it "
                "running MicroPython (carom flash), is another program using the port?"
                % (self.device, self.timeout, _plain(e), ("; it sent " + got[-120:]) if got else "")
            )

    def _looks_like_missing_path(self):
        return "://" not in self.device and not os.path.exists(self.device)

    def _drop(self):
        if self.transport is not None:
            try:
                self.transport.serial.close()
            except Exception:  # noqa: BLE001
                pass
        self.transport = None

    def close(self):
        """Leave the raw REPL (as mpremote does when it disconnects), or with reset_on_close
        reset the board so its app runs again (also after a refusal), and close the port."""
        t = self.transport
        if t is None:
            return
        try:
            if t.in_raw_repl:
                if self.reset_on_close:
                    t.exec_raw_no_follow(RESET_CODE)
                    t.in_raw_repl = False
                else:
                    t.exit_raw_repl()
            t.close()
        except Exception:  # noqa: BLE001 -- the port may be gone already
            self._drop()
        self.transport = None

    # ---- running code -------------------------------------------------------------

    @contextlib.contextmanager
    def step(self, what):
        """Turn transport failures during `what` into CommandErrors naming it."""
        _, TransportError, TransportExecError = _mpremote()
        SerialException = _serial_exception()
        SerialTimeout = _serial_timeout()
        if self.transport is None:
            raise LinkLost("not connected to %s (while %s)" % (self.device, what))
        try:
            yield
        except TransportExecError as e:
            text = e.error_output if isinstance(e.error_output, str) else str(e)
            raise RemoteError("%s failed on the board: %s" % (what, last_line(text)), text)
        except SerialTimeout as e:
            self._drop()
            raise LinkLost(
                "the board on %s did not answer within %g s while %s (%s): power, cable or reset?"
                % (self.device, self.timeout, what, _plain(e))
            )
        except SerialException as e:
            self._drop()
            raise LinkLost("lost the connection to %s while %s: %s" % (self.device, what, _plain(e)))
        except TransportError as e:
            self._drop()
            raise LinkLost(
                "the board on %s stopped answering within %g s while %s (%s): power, cable or reset?"
                % (self.device, self.timeout, what, _plain(e))
            )
        except OSError as e:
            if (
                getattr(e, "errno", None) is not None
                and not isinstance(e, SerialException)
                and e.errno in (errno.ENOENT, errno.EISDIR, errno.ENOTDIR, errno.EEXIST, errno.ENOSPC, errno.EACCES)
            ):
                raise RemoteError("%s failed on the board: %s" % (what, os.strerror(e.errno)))
            self._drop()
            raise LinkLost("lost the connection to %s while %s: %s" % (self.device, what, _plain(e)))

    def exec(self, code, what="running code"):
        """Run code on the board; its printed output as text."""
        with self.step(what):
            return self.transport.exec(code).decode("utf-8", "replace").replace("\r\n", "\n")

    def eval(self, expr, what=None):
        """A Python literal computed on the board."""
        text = self.exec("print(repr(%s))" % expr, what or "evaluating %s" % expr)
        try:
            return ast.literal_eval(text.strip())
        except (ValueError, SyntaxError):
            raise RemoteError("unexpected answer from the board for %s: %r" % (expr, text[:200]))

    # ---- files --------------------------------------------------------------------

    def read_file(self, path, progress=None):
        """The bytes of a file on the board, or None when there is no such file."""
        with self.step("reading %s" % path):
            try:
                return bytes(self.transport.fs_readfile(path, chunk_size=CHUNK, progress_callback=progress))
            except OSError as e:
                if e.errno == errno.ENOENT and not isinstance(e, _serial_exception()):
                    return None
                raise

    def write_file(self, path, data, progress=None):
        """Write a file on the board (mpremote's fs_writefile), replacing it in place."""
        with self.step("writing %s" % path):
            self.transport.fs_writefile(path, bytes(data), chunk_size=CHUNK, progress_callback=progress)

    def write_file_atomic(self, path, data, progress=None):
        """Write path.tmp, check its hash on the board, then os.rename it over path:
        a power cut or a lost link leaves the old file or the new one, never half."""
        import hashlib

        tmp = path + ".tmp"
        self.write_file(tmp, data, progress)
        got = self.hashes([tmp])[tmp]
        if got != hashlib.sha256(bytes(data)).hexdigest():
            raise CommandError(
                "the copy of %s on the board does not match what was sent; %s is unchanged" % (path, path)
            )
        self.rename(tmp, path)

    def rename(self, old, new):
        # LittleFS renames over an existing file atomically; FAT cannot (remove first).
        self.exec(
            "import os\ntry:\n os.rename(%r, %r)\nexcept OSError:\n os.remove(%r)\n os.rename(%r, %r)"
            % (old, new, new, old, new),
            "renaming %s to %s" % (old, new),
        )

    def remove(self, path, missing_ok=True):
        self.exec(
            "import os\ntry:\n os.remove(%r)\nexcept OSError:\n if not %r: raise" % (path, missing_ok),
            "removing %s" % path,
        )

    def makedirs(self, path):
        """mkdir -p on the board."""
        self.exec(
            "import os\np = ''\nfor d in %r.strip('/').split('/'):\n p += '/' + d\n try:\n  os.mkdir(p)\n"
            " except OSError:\n  pass" % path,
            "creating the folder %s" % path,
        )

    def listdir(self, path):
        """[(name, is_dir, size)] of a folder on the board, or None when it does not exist."""
        with self.step("listing %s" % path):
            try:
                entries = self.transport.fs_listdir(path)
            except OSError as e:
                if e.errno in (errno.ENOENT, errno.ENOTDIR) and not isinstance(e, _serial_exception()):
                    return None
                raise
        return [(e.name, bool(e.st_mode & 0x4000), e.st_size) for e in entries]

    def hashes(self, paths):
        """{path: sha256 hex, or None when missing}, computed on the board with hashlib
        (read back and hashed here when the board has no hashlib.sha256)."""
        import hashlib

        paths = list(paths)
        if not paths:
            return {}
        try:
            text = self.exec(_HASH_CODE % (paths,), "hashing %d files" % len(paths))
        except RemoteError as e:
            if "ImportError" not in e.text and "AttributeError" not in e.text:
                raise
            out = {}
            for p in paths:
                data = self.read_file(p)
                out[p] = None if data is None else hashlib.sha256(data).hexdigest()
            return out
        values = [ast.literal_eval(line) for line in text.split("\n") if line.strip()]
        if len(values) != len(paths):
            raise RemoteError("unexpected answer from the board while hashing: %r" % text[:200])
        return dict(zip(paths, values))

    # ---- about the board ----------------------------------------------------------------

    def info(self):
        """MicroPython's version, platform, .mpy version, free flash and RAM."""
        if self._info is None:
            text = self.exec(
                "import sys, os, gc\n"
                "gc.collect()\n"
                "u = os.uname() if hasattr(os, 'uname') else None\n"
                "print(repr((tuple(sys.implementation.version), sys.platform,"
                " getattr(sys.implementation, '_mpy', None),"
                " u and u.release, u and u.machine, tuple(os.statvfs('/')), gc.mem_free(),"
                " getattr(sys.implementation, '_machine', None))))",
                "asking the board what it is",
            )
            try:
                version, platform, mpy, release, machine, vfs, mem_free, imp_machine = ast.literal_eval(text.strip())
            except (ValueError, SyntaxError):
                raise RemoteError("unexpected answer from the board: %r" % text[:200])
            bsize, frsize, blocks, bfree, bavail = vfs[:5]
            unit = frsize or bsize
            self._info = {
                "version": ".".join(str(v) for v in version[:3])
                + (("-" + str(version[3])) if len(version) > 3 and version[3] else ""),
                "release": release,
                "platform": platform,
                "machine": machine or imp_machine or platform,
                "mpy": None if mpy is None else mpy & 0xFF,
                "flash_total": blocks * unit,
                "flash_free": bavail * unit,
                "mem_free": mem_free,
            }
        return self._info

    # ---- restarting and watching the boot ---------------------------------------------------

    def restart(self):
        """mpremote's `reset`: machine.reset() after 100 ms; the port stays open to watch the boot."""
        with self.step("resetting the board"):
            self.transport.exec_raw_no_follow(RESET_CODE)
            self.transport.in_raw_repl = False

    def restart_and_watch(self, wait, role="wall"):
        """restart(), then watch_boot(wait) for a wall board: (ok or None, lines), or
        (None, None) when the start is not watched (wait <= 0, or a board of another
        role, whose app prints nothing to wait for)."""
        self.restart()
        if wait <= 0 or role != "wall":
            return None, None
        return self.watch_boot(wait)

    def watch_boot(self, timeout=10.0, until=APP_RUNNING):
        """Read what the board prints after restart() until a line containing `until`
        (True, lines), a problem line and a moment more (False, lines), or `timeout`
        seconds (None, lines). A port that goes away (native USB re-enumerating) ends it."""
        if self.transport is None:
            return None, []
        ser = self.transport.serial
        buf = b""
        deadline = time.monotonic() + timeout
        problem_at = None
        outcome = None
        try:
            ser.timeout = 0.05  # mpremote's port blocks on read; here we poll until the deadline
        except Exception:  # noqa: BLE001
            pass
        while time.monotonic() < deadline:
            try:
                chunk = ser.read(max(1, ser.in_waiting))
            except Exception:  # noqa: BLE001 -- the port vanished: nothing more to see
                self._drop()
                break
            if chunk:
                buf += chunk
                lines = _lines(buf)
                if any(until in ln for ln in lines):
                    outcome = True
                    break
                if problem_at is None and any(ln.startswith(BOOT_PROBLEMS) for ln in lines):
                    problem_at = time.monotonic()
            if problem_at is not None and time.monotonic() - problem_at > 1.0:
                outcome = False
                break
        lines = _lines(buf)
        if outcome is None and any(ln.startswith(BOOT_PROBLEMS) for ln in lines):
            outcome = False
        return outcome, lines


def _lines(buf):
    """The complete lines (a line still being printed is left out)."""
    text = buf.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")
    return [ln.strip() for ln in text.split("\n")[:-1] if ln.strip() and not ln.startswith("\x1b")]


def boot_problems(lines):
    return [ln for ln in lines if ln.startswith(BOOT_PROBLEMS)]


def kb(n):
    """A size as people read it: 512 B, 1.5 KB, 3.9 MB; ? for None."""
    if n is None:
        return "?"
    if n < 1024:
        return "%d B" % n
    if n < 1024 * 1024:
        return "%.1f KB" % (n / 1024)
    return "%.1f MB" % (n / 1024 / 1024)


def _plain(e):
    text = str(e).strip() or type(e).__name__
    return re.sub(r"\s+", " ", text)


# ---- progress bar --------------------------------------------------------------------------


class Progress:
    """A bar on a stream: redrawn in place on a terminal; a line at 0/25/50/75/100 % otherwise."""

    WIDTH = 30

    def __init__(self, stream, label, total):
        self.stream = stream
        self.label = label
        self.total = total
        self.tty = hasattr(stream, "isatty") and stream.isatty()
        self.last = None
        self.open = False

    def update(self, done):
        pct = 100 if self.total <= 0 else max(0, min(100, done * 100 // self.total))
        key = pct if self.tty else pct // 25
        if key == self.last:
            return
        self.last = key
        full = pct * self.WIDTH // 100
        line = "%s [%s%s] %3d%%" % (self.label, "#" * full, "." * (self.WIDTH - full), pct)
        if self.tty:
            self.stream.write("\r\x1b[K" + line)
            self.open = pct < 100
            if not self.open:
                self.stream.write("\n")
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def interrupt(self):
        if self.open:
            self.stream.write("\n")
            self.stream.flush()
            self.open = False
