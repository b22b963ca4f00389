"""The board's UART on the host, and real-time mode (host side): a
background thread ("vboard-runner") forwards the serial port's bytes to the
board as "rx" commands and, in real-time mode, grants the board the real
time elapsed."""

import os
import select
import threading
import time

from .drive import locked
from .errors import BoardError, BoardTimeout, RunnerQuit
from .serialport import SerialPort

_RX_CHUNK = 512  # bytes per "rx" command


class BoardRunner:
    """The VirtualBoard's serial port and real-time mode."""

    def _init_runner(self):
        self._serial = None  # SerialPort
        self._console = False  # the REPL runs on the UART after main.py
        self._repl_mode = "friendly"
        self._realtime = False
        self._rt_last = 0.0
        self._rt_tick = 0.01
        self._rt_max_step = 0.25
        self._runner = None
        self._runner_quit = False
        self._inflight_rx = None  # (seq, bytes) of an "rx" the board has not reported taken
        self._wake = None  # (r, w) pipe that wakes the runner
        self.runner_error = None  # what stopped real-time mode, if anything did

    # ---- the UART

    @locked
    def send_serial(self, data):
        """Bytes received on the board's UART (what sys.stdin and the REPL read;
        Ctrl-C interrupts a running program); returns once the board reacted."""
        if self._state != "on":
            raise BoardError("the board is not running")
        if isinstance(data, str):
            data = data.encode()
        self._send_rx(data)

    def _send_rx(self, data):
        if self._state != "on":
            return  # a UART receives nothing while the chip is off or asleep
        for i in range(0, len(data), _RX_CHUNK):
            chunk = data[i : i + _RX_CHUNK]
            self._inflight_rx = (self._seq + 1, chunk)
            try:
                self._command("rx", chunk.hex())
            finally:
                self._inflight_rx = None

    def open_serial(self, pty=True, tcp=None):
        """Open the board's UART to the host: a pseudo-terminal (mpremote
        connect <path>) and/or, with tcp (True/0: a free port, or a number), a
        TCP server (mpremote connect socket://127.0.0.1:PORT). The REPL then
        runs on it after main.py. Returns the pty's path (the URL without a pty).

        A background thread forwards the bytes both ways, whether or not time
        runs; mpremote also needs time to pass (`time.sleep_ms` before
        `machine.reset()`): use run_realtime(). Opening twice returns the port
        already open."""
        with self._lock:
            if self._serial is None:
                self._serial = SerialPort(pty=pty, tcp=tcp)
                if not self._console:
                    self._console = True
                    if self._state == "on":
                        self._command("repl", 1)
        self._ensure_runner()
        return self.serial_path or self.serial_url

    def close_serial(self):
        """Close the pty and the TCP server; boots from now on have no REPL."""
        self._stop_runner()
        with self._lock:
            if self._serial is not None:
                self._serial.close()
                self._serial = None
            self._console = False
        self._ensure_runner()

    @property
    def serial_path(self):
        """The pty the user opens ("/dev/pts/7"), None if none is open."""
        return self._serial.path if self._serial is not None else None

    @property
    def serial_url(self):
        """pyserial URL of the TCP side ("socket://127.0.0.1:PORT"), None if none."""
        return self._serial.url if self._serial is not None else None

    @property
    def repl_mode(self):
        """ "friendly" or "raw": the mode the REPL is in (and boots into after a soft reset)."""
        return self._repl_mode

    @property
    def blocked_on_stdin(self):
        """The firmware sits in a blocking read of sys.stdin (no time passes for it
        until the bytes it waits for arrive: send_serial() or the serial port)."""
        return self._stdin_blocked()

    # ---- real time

    def run_realtime(self, tick=0.01, max_step=0.25):
        """Let virtual time follow real time: a background thread grants the
        real time elapsed every `tick` seconds (at most `max_step` at once, so
        a board slower than real time falls behind instead of jumping). The
        other methods may still be called (they wait for the thread's current
        step); advance() moves the clock ahead of real time."""
        with self._lock:
            self._realtime = True
            self._rt_tick = tick
            self._rt_max_step = max_step
            self._rt_last = time.monotonic()
            self.runner_error = None
        self._ensure_runner()

    def stop_realtime(self):
        """Stop real-time mode; raises what stopped it if the board failed meanwhile."""
        with self._lock:
            self._realtime = False
            error, self.runner_error = self.runner_error, None
        if self._serial is None:
            self._stop_runner()
        if error is not None:
            raise error

    @property
    def realtime(self):
        return self._realtime

    def wait_for(self, predicate, timeout=10.0, interval=0.005):
        """Wait in real time (with real-time mode or the serial port running)
        until predicate(board) is true; BoardTimeout after `timeout` s. Raises
        at once what stopped real-time mode, if anything did."""
        deadline = time.monotonic() + timeout
        while True:
            # The runner may hold the lock for long (a board blocked reading its stdin).
            if self._lock.acquire(timeout=0.05):
                try:
                    if self.runner_error is not None:
                        raise self.runner_error
                    if predicate(self):
                        return
                finally:
                    self._lock.release()
            if time.monotonic() > deadline:
                raise BoardTimeout("condition not met within %.1f real s\n%s" % (timeout, self._tail()))
            time.sleep(interval)

    # ---- the thread

    def _ensure_runner(self):
        with self._lock:
            if self._runner is not None or (self._serial is None and not self._realtime):
                return
            self._runner_quit = False
            self._wake = os.pipe()
            self._runner = threading.Thread(target=self._runner_main, name="vboard-runner", daemon=True)
            self._runner.start()

    def _stop_runner(self):
        """End the runner thread. Never called with the lock held (the thread may wait for it)."""
        runner = self._runner
        if runner is None:
            return
        self._runner_quit = True
        try:
            os.write(self._wake[1], b"x")
        except OSError:
            pass
        runner.join()
        for fd in self._wake:
            os.close(fd)
        self._wake = None
        self._runner = None

    def _runner_main(self):
        """Forward UART bytes between the serial port and the board; in
        real-time mode, grant the board the real time elapsed."""
        while not self._runner_quit:
            port = self._serial
            self._runner_wait(port)
            with self._lock:
                if self._runner_quit:
                    return
                try:
                    self._runner_step(port)
                except RunnerQuit:
                    return
                except BoardError as e:  # the board hung or crashed: time stops, the port stays
                    self.runner_error = e
                    self._realtime = False
                except Exception as e:  # a bug here: reported by wait_for() / stop_realtime()
                    self.runner_error = e
                    self._realtime = False
                    return

    def _runner_wait(self, port):
        """Wait for the serial port, a wake-up or the next tick."""
        wake = self._wake[0]
        readers, writers = [wake], []
        if port is not None:
            r, w = port.select_sets()
            readers += r
            writers += w
        timeout = self._rt_tick if self._realtime else 0.02
        try:
            ready, _, _ = select.select(readers, writers, [], timeout)
        except (OSError, ValueError):
            ready = []
        if wake in ready:
            os.read(wake, 512)

    def _runner_step(self, port):
        """With the lock held: pass the port's bytes on, grant the real time elapsed."""
        if port is not None and port is self._serial:
            port.flush()
            data = port.read_input()
            if data:
                self._send_rx(data)
        if self._realtime:
            now = time.monotonic()
            step = min(now - self._rt_last, self._rt_max_step)
            self._rt_last = now
            # Blocked in a read of its stdin, the board cannot take time.
            if step > 0 and not self._stdin_blocked():
                self._run_until(self._now_us + round(step * 1_000_000), realtime=True)
