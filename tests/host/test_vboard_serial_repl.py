"""The virtual board's REPL, byte for byte, as a terminal on its serial port sees it.

The bytes expected here are those of MicroPython's shared/runtime/pyexec.c
(friendly REPL, raw REPL, raw-paste mode) and of the ESP32 port's main loop
(soft reboot, main.py skipped after a soft reset from the raw REPL).
"""

import os
import select
import socket
import time
import tty

import pytest

from helpers import board_def, lay_out_flash, start_running
from host_tools.simulator.vboard import PWRON_RESET, VirtualBoard

RAW_BANNER = b"raw REPL; CTRL-B to exit\r\n>"
LOOPING_MAIN = "import time\nprint('looping')\nwhile True:\n    time.sleep_ms(100)\n"
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "vboard_fixtures", "serial_echo.py")) as f:
    SERIAL_ECHO = f.read()  # echoes console lines read with asyncio from sys.stdin


class Terminal:
    """The user's end of the pty: what mpremote or picocom would open."""

    def __init__(self, path):
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(self.fd)
        self.pending = b""

    def send(self, data):
        os.write(self.fd, data)

    def _fill(self, deadline):
        left = deadline - time.monotonic()
        if left > 0 and select.select([self.fd], [], [], min(left, 0.1))[0]:
            self.pending += os.read(self.fd, 4096)

    def expect(self, marker, timeout=10):
        """Everything received up to and including `marker`."""
        deadline = time.monotonic() + timeout
        while marker not in self.pending:
            assert time.monotonic() < deadline, "no %r within %s s, got %r" % (marker, timeout, self.pending)
            self._fill(deadline)
        end = self.pending.index(marker) + len(marker)
        out, self.pending = self.pending[:end], self.pending[end:]
        return out

    def read(self, n, timeout=10):
        deadline = time.monotonic() + timeout
        while len(self.pending) < n:
            assert time.monotonic() < deadline, "%d bytes expected, got %r" % (n, self.pending)
            self._fill(deadline)
        out, self.pending = self.pending[:n], self.pending[n:]
        return out

    def close(self):
        os.close(self.fd)


def wall_flash(tmp_path, firmware):
    return lay_out_flash(tmp_path / "flash", {"board": "wall"}, firmware)


@pytest.fixture
def wall(tmp_path, firmware):
    vb = start_running(wall_flash(tmp_path, firmware), serial=True)
    term = Terminal(vb.serial_path)
    yield vb, term
    term.close()
    vb.close()


@pytest.fixture
def bare(tmp_path):
    """bare(main, serial=False) -> a powered VirtualBoard with no firmware, only `main` as its
    main.py; closed after the test."""
    made = []

    def make(main, **vb_options):
        vb = VirtualBoard(tmp_path / "flash", firmware=[], **vb_options)
        made.append(vb)
        vb.write_file("/main.py", main)
        vb.power_on()
        return vb

    yield make
    for vb in made:
        vb.close()


def interrupt_app(term):
    term.send(b"\x03")
    out = term.expect(b">>> ")
    assert out.startswith(b"carom: stopped (Ctrl-C); the watchdog is fed by a timer\r\n")
    assert b"\r\nMicroPython v1." in out and b"; Generic ESP32 module with ESP32\r\n" in out
    assert out.endswith(b'Type "help()" for more information.\r\n>>> ')


def raw_repl(term):
    term.send(b"\x01")
    assert term.expect(RAW_BANNER) == b"\r\n" + RAW_BANNER


def said(term, keys, prompt=b">>> "):
    """What the board answers to keys typed at its console, up to the prompt."""
    term.send(keys)
    return term.expect(prompt)


def test_ctrl_c_stops_the_app_and_its_timer_keeps_feeding_the_watchdog(wall):
    vb, term = wall
    interrupt_app(term)
    assert vb.wdt_starts  # the watchdog runs and cannot be stopped
    vb.stop_realtime()
    vb.advance(20)  # four watchdog periods at the REPL
    assert [b.cause for b in vb.boots] == [PWRON_RESET]


def test_friendly_repl_echo_backspace_continuation_and_soft_reset(wall):
    vb, term = wall
    interrupt_app(term)
    assert said(term, b"x = 6 * 7\r") == b"x = 6 * 7\r\n>>> "
    assert said(term, b"x\r") == b"x\r\n42\r\n>>> "
    assert said(term, b"1+23\x7f\r") == b"1+23\b\x1b[K\r\n3\r\n>>> "  # backspace
    assert said(term, b"for i in range(2):\r", b"... ") == b"for i in range(2):\r\n... "
    assert said(term, b"    print(i)\r", b"... ") == b"    print(i)\r\n... "
    assert said(term, b"\r") == b"\r\n0\r\n1\r\n>>> "
    assert said(term, b"abc\x03") == b"abc\r\n>>> "  # Ctrl-C cancels the line
    assert said(term, b"1/0\r") == (
        b'1/0\r\nTraceback (most recent call last):\r\n  File "<stdin>", line 1, in <module>\r\n'
        b"ZeroDivisionError: divide by zero\r\n>>> "
    )
    assert said(term, b"\x05", b"=== ") == b"\r\npaste mode; Ctrl-C to cancel, Ctrl-D to finish\r\n=== "  # paste mode
    assert (
        said(term, b"if True:\r    print('pasted')\r\x04")
        == b"if True:\r\n===     print('pasted')\r\n=== \r\npasted\r\n>>> "
    )
    runs = vb.stdout.count("carom: running on board wall")
    term.send(b"\x04")  # Ctrl-D on an empty line: soft reset, main.py runs again
    out = term.expect(b"carom: running on board wall\r\n")
    assert out.startswith(b"\r\nMPY: soft reboot\r\n")
    assert vb.boots[-1].kind == "vm" and vb.stdout.count("carom: running on board wall") == runs + 1


def test_raw_repl_bytes(wall):
    vb, term = wall
    interrupt_app(term)
    raw_repl(term)
    assert said(term, b"print(1)\x04", b">") == b"OK1\r\n\x04\x04>"
    assert said(term, b"a = 5\x04", b">") == b"OK\x04\x04>"
    assert said(term, b"print(a)\x04", b">") == b"OK5\r\n\x04\x04>"  # one namespace for all the code sent
    assert said(term, b"garbage\x03print(2)\x04", b">") == b"OK2\r\n\x04\x04>"  # Ctrl-C clears what was typed
    assert said(term, b"print('x')\n1/0\x04", b"\x04>") == (
        b'OKx\r\n\x04Traceback (most recent call last):\r\n  File "<stdin>", line 2, in <module>\r\n'
        b"ZeroDivisionError: divide by zero\r\n\x04>"
    )
    assert said(term, b"1 +* 2\x04", b"\x04>") == (
        b'OK\x04Traceback (most recent call last):\r\n  File "<stdin>", line 1\r\nSyntaxError: invalid syntax\r\n\x04>'
    )
    assert said(term, b"\x05B\x01", b">") == b"R\x00>"  # raw-paste with an unknown sub-command
    term.send(b"\x01")  # Ctrl-A again: the banner again
    assert term.expect(RAW_BANNER) == RAW_BANNER
    runs = vb.stdout.count("carom: running on board wall")
    term.send(b"\x04")  # Ctrl-D on an empty line: soft reset, main.py skipped
    assert term.expect(RAW_BANNER) == b"OK\r\nMPY: soft reboot\r\n" + RAW_BANNER
    assert vb.repl_mode == "raw" and vb.boots[-1].kind == "vm"
    term.send(b"import sys; sys.exit()\x04")  # SystemExit: a soft reset too
    assert term.expect(RAW_BANNER) == b"OK\x04\x04MPY: soft reboot\r\n" + RAW_BANNER
    assert vb.stdout.count("carom: running on board wall") == runs
    term.send(b"\x02")  # back to the friendly REPL
    assert term.expect(b">>> ").startswith(b"\r\nMicroPython v1.")
    vb.wait_for(lambda b: b.repl_mode == "friendly")  # told on the control pipe, a moment apart


def paste(term, code, window):
    """mpremote's raw_paste_write, once the header's window size is read:
    returns the number of window increments ("\x01") seen."""
    remain, increments, i = window, 0, 0
    while i < len(code):
        while remain == 0 or term.pending or select.select([term.fd], [], [], 0)[0]:
            c = term.read(1)
            assert c == b"\x01", c
            remain += window
            increments += 1
        chunk = code[i : i + remain]
        term.send(chunk)
        remain -= len(chunk)
        i += len(chunk)
    term.send(b"\x04")
    ack = term.expect(b"\x04")  # increments not read yet may come first
    assert ack.strip(b"\x01") == b"\x04", ack
    return increments + ack.count(b"\x01")


def test_raw_paste_mode_with_flow_control(wall):
    vb, term = wall
    interrupt_app(term)
    raw_repl(term)
    code = b"total = 0\n" + b"total += 1\n" * 60 + b"print('total', total)\n"  # 692 bytes
    term.send(b"\x05A\x01")
    assert term.read(2) == b"R\x01"
    assert term.read(2) == b"\x80\x00"  # a window of 128 bytes
    increments = paste(term, code, 128)
    assert increments == 1 + len(code) // 128  # the header's "\x01", then one per 128 bytes read
    assert term.expect(b">") == b"total 60\r\n\x04\x04>"
    term.send(b"\x05A\x01")
    assert term.read(5) == b"R\x01\x80\x00\x01"
    assert said(term, b"print(1)\x03", b">") == b"\x04\x04KeyboardInterrupt: \r\n\x04>"  # Ctrl-C aborts the paste


def test_ctrl_c_interrupts_code_run_from_the_raw_repl(wall):
    vb, term = wall
    interrupt_app(term)
    raw_repl(term)
    assert said(term, b"import time\nwhile True:\n    time.sleep_ms(10)\n\x04", b"OK") == b"OK"
    assert said(term, b"\x03", b"\x04>") == (
        b'\x04Traceback (most recent call last):\r\n  File "<stdin>", line 3, in <module>\r\n'
        b"KeyboardInterrupt: \r\n\x04>"
    )


def test_tcp_and_pty_are_the_same_uart(tmp_path, firmware):
    vb = VirtualBoard(wall_flash(tmp_path, firmware), board=board_def("wall"), serial=True, tcp=0)
    try:
        vb.power_on()
        vb.run_realtime()
        vb.wait_for(lambda b: "carom: running on board wall" in b.stdout)
        host, port = vb.serial_url[len("socket://") :].split(":")
        term = Terminal(vb.serial_path)
        sock = socket.create_connection((host, int(port)), timeout=10)
        try:
            sock.sendall(b"\x03")
            got = b""
            while not got.endswith(b">>> "):
                chunk = sock.recv(4096)
                assert chunk, got
                got += chunk
            assert b"carom: stopped (Ctrl-C)" in got
            assert term.expect(b">>> ").endswith(b">>> ")  # the pty saw the same output
        finally:
            sock.close()
            term.close()
    finally:
        vb.close()


def test_input_reads_the_uart_with_echo(wall):
    vb, term = wall
    interrupt_app(term)
    assert said(term, b"name = input('who? ')\r", b"\r\nwho? ") == b"name = input('who? ')\r\nwho? "
    assert said(term, b"Anx\x7fn\r") == b"Anx\b\x1b[Kn\r\n>>> "
    assert said(term, b"name\r") == b"name\r\n'Ann'\r\n>>> "
    assert said(term, b"input()\r\x03").endswith(b"KeyboardInterrupt: \r\n>>> ")


def test_app_reading_lines_typed_one_key_at_a_time(bare):
    """A blocking readline on sys.stdin (asyncio's StreamReader does one once a
    byte is there) gets the keys typed afterwards, as from the UART's IRQ."""
    vb = bare(SERIAL_ECHO, serial=True)
    vb.run_realtime()
    term = Terminal(vb.serial_path)
    try:
        for key in b"hello\n":
            term.send(bytes((key,)))
        assert term.expect(b"got hello\r\n") == b"got hello\r\n"
        term.send(b"x")  # the app now sits in a blocking read for the rest of the line
        vb.wait_for(lambda b: b.blocked_on_stdin)
        term.send(b"\x03")  # Ctrl-C gets it out of the read: KeyboardInterrupt, then the REPL
        out = term.expect(b">>> ")
        assert b"KeyboardInterrupt: \r\n" in out and b"MicroPython v1." in out
        assert said(term, b"1+1\r") == b"1+1\r\n2\r\n>>> "
    finally:
        term.close()


# ---- manual time: the console without a background clock -------------------------


def test_partial_lines_reach_a_blocking_readline(bare):
    vb = bare(SERIAL_ECHO)
    vb.send_serial("hel")  # returns: the board waits in its read for the rest of the line
    assert vb.lines() == []
    vb.send_serial("lo\nagain\n")
    assert vb.lines() == ["got hello", "got again"]
    vb.advance(1)


def test_ctrl_c_gets_a_blocking_read_out(bare):
    vb = bare("import sys\nprint('reading')\nprint(sys.stdin.buffer.read(3))\n")
    vb.send_serial("a")
    assert vb.lines() == ["reading"]
    vb.send_serial("\x03")
    assert 'File "/main.py", line 3, in <module>\nKeyboardInterrupt: \n' in vb.stderr
    vb.advance(1)  # the board is alive and takes time again
    assert vb.now == 1 and vb.lines() == ["reading"]


def test_send_serial_drives_the_repl_on_manual_time(bare):
    vb = bare(LOOPING_MAIN, serial=True)
    assert vb.lines() == ["looping"]
    vb.send_serial("\x03")  # delivered at the next wait: out of time.sleep_ms()
    # board.stdout is what the board wrote; the serial port adds the "\r" before a lone "\n"
    assert vb.stdout.startswith(
        'looping\nTraceback (most recent call last):\n  File "/main.py", line 4, in <module>\n'
        "KeyboardInterrupt: \nMicroPython v1."
    )
    assert vb.stdout.endswith(">>> ")
    assert "_vb_" not in vb.stdout + vb.stderr
    t = vb.ticks_ms
    vb.send_serial("import time; time.sleep(2); print(time.ticks_ms())\r")
    assert not vb.stdout.endswith(">>> ")  # sleeping: no time passes until the host grants it
    vb.advance(2)
    assert vb.stdout.endswith("\r\n%d\n>>> " % (t + 2000))


def test_ctrl_c_without_a_console(bare):
    """No serial port: Ctrl-C still interrupts main.py (the traceback goes to stderr), no REPL."""
    vb = bare(LOOPING_MAIN)
    vb.send_serial(b"\x03")
    assert vb.lines() == ["looping"]
    assert 'File "/main.py", line 4, in <module>\nKeyboardInterrupt: \n' in vb.stderr
    vb.advance(1)
    assert vb.lines() == ["looping"] and len(vb.boots) == 1


@pytest.mark.alone  # the virtual clock held to real time within ms: other tests beside it starve it
def test_realtime_follows_real_time(bare):
    vb = bare(LOOPING_MAIN)
    start_v, start_r = vb.now, time.monotonic()
    vb.run_realtime()
    vb.wait_for(lambda b: b.now >= start_v + 0.5)
    vb.stop_realtime()
    real = time.monotonic() - start_r
    assert 0.5 <= vb.now - start_v <= real  # time ran, and virtual time never ran ahead of real time
    stopped = vb.now
    vb.sync()
    assert vb.now == stopped  # stopped: time moves only when asked again
    vb.advance(1)
    assert round(vb.now - stopped, 6) == 1
