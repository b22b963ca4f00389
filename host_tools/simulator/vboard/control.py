"""Driving the board's process (host side): a command goes out on the control
pipe, and the host handles what the board says (messages.py) until the board
acknowledges it, feeding a blocking read of its stdin on the way."""

import threading
import time

from .errors import BoardError, BoardTimeout, RunnerQuit

_BLOCKED_CHECK_S = 0.02  # how long the board may be silent before the host looks whether it is blocked


class BoardControl:
    """The VirtualBoard's command loop."""

    def _command(self, verb, *args, goal=None):
        """Send "<verb> <seq> <args>" and pump until the board acknowledges it,
        having run to `goal` (default: now)."""
        if self._state != "on":
            raise BoardError("the board is not running")
        self._seq += 1
        line = " ".join([verb, str(self._seq)] + [str(a) for a in args]) + "\n"
        if self._radio_inbox:
            line = self._radio_lines() + line
        self._process.send(line.encode())
        self._pump(self._seq, self._now_us if goal is None else goal)

    def _pump(self, expected, goal):
        """Handle the board's messages until it acknowledges `expected`.

        `goal` is the virtual time the pending command runs to; a reset on the
        way starts a new process that runs on to the same goal.
        """
        last_life = time.monotonic()
        resets = 0
        in_runner = threading.current_thread() is self._runner
        while True:
            if self._state != "on":
                self._now_us = max(self._now_us, goal)
                return
            if in_runner and self._runner_quit:
                raise RunnerQuit()
            events = self._process.select(_BLOCKED_CHECK_S)
            if events:
                last_life = time.monotonic()
                outcome = self._read_events(events, expected, goal)
            elif self._stdin_blocked():
                outcome, fed = self._feed_blocked_read(expected, goal)
                if fed:
                    last_life = time.monotonic()
                elif outcome is None:
                    # It waits for input and has all there is. A command that needs no
                    # time is done (its "ok" comes once the read returns); the runner
                    # lets go (it grants no time meanwhile); a wait for time times out.
                    if goal <= self._now_us or in_runner:
                        self._process.drain()
                        return
                    self._check_life(last_life, blocked=True)
            else:
                self._check_life(last_life, blocked=False)
                continue
            if outcome == "done":
                self._process.drain()
                return
            if outcome == "stopped":
                self._now_us = max(self._now_us, goal)
                return
            if outcome == "restarted":
                resets += 1
                if resets > 50:
                    raise BoardError("reset loop: 50 resets within one command\n%s" % self._tail())
                expected = 0

    def _check_life(self, last_life, blocked):
        """BoardTimeout when the board has shown no sign of life for `timeout` real seconds."""
        if time.monotonic() - last_life <= self.timeout:
            return
        self._process.drain()
        if blocked:
            raise BoardTimeout(
                "the board has been blocked reading sys.stdin for %.1f s at t=%.3f s "
                "(a blocking read that waits for bytes nobody sent: no time passes "
                "meanwhile)\n%s" % (self.timeout, self.now, self._tail())
            )
        raise BoardTimeout(
            "no answer from the board for %.1f s at t=%.3f s (a loop that never "
            "waits? virtual time only passes in sleeps and asyncio waits)\n%s" % (self.timeout, self.now, self._tail())
        )

    def _read_events(self, events, expected, goal):
        """Read the ready pipes; handle each complete line from the board until one
        ends the command (its outcome; the lines after it wait in the buffer)."""
        for key, _ in events:
            if key.data != "ctl":
                self._process.read_console(key)
                continue
            read = self._process.read_control(key)
            if read is None:
                continue
            if read == 0:
                self._crashed()
            line = self._process.next_line()
            while line is not None:
                outcome = self._message(line, expected, goal)
                if outcome is not None:
                    return outcome
                line = self._process.next_line()
        return None

    def _stdin_blocked(self):
        """The board process sits in read() on its stdin (a blocking read of
        sys.stdin, outside idle(): it cannot see the control pipe)."""
        return self._process is not None and self._process.stdin_blocked()

    def _feed_blocked_read(self, expected, goal):
        """The board is blocked reading its stdin: write the UART bytes there
        ourselves, as the UART's interrupt would have. Returns (the pump's
        outcome, whether bytes were written)."""
        # What the board said before it blocked, its "rxd" (rx taken) among it.
        events = self._process.select(0)
        while events:
            outcome = self._read_events(events, expected, goal)
            if outcome is not None:
                return outcome, False
            events = self._process.select(0)
        if not self._stdin_blocked():
            return None, True  # it went on by itself: as good as fed
        data = b""
        if self._inflight_rx is not None:
            seq, data = self._inflight_rx
            self._inflight_rx = None
            self._process.write(b"rxskip %d\n" % seq)  # read with the "rx" line, which it cancels
        if self._serial is not None:
            data += self._serial.read_input()
        if not data:
            return None, False
        if b"\x03" in data and self._process.catches_sigint():
            # Ctrl-C: KeyboardInterrupt out of the read, as mp_sched_keyboard_interrupt()
            # makes the ESP32's mp_hal_stdin_rx_chr() raise. The unix port maps SIGINT to
            # it while Ctrl-C is enabled; after micropython.kbd_intr(-1) it is a plain byte.
            data = data.replace(b"\x03", b"")
            self._process.interrupt()
        self._process.feed_stdin(data)
        return None, True

    def _console_output(self, name, text, chunk):
        """What the board printed: kept as text, and sent out on the UART."""
        (self._stdout if name == "stdout" else self._stderr).append(text)
        if self._serial is not None:
            self._serial.write_output(chunk)

    def _tail(self, n=20):
        err = self.stderr.splitlines()[-n:]
        out = self.stdout.splitlines()[-n:]
        return "stdout tail:\n  %s\nstderr tail:\n  %s" % ("\n  ".join(out), "\n  ".join(err))
