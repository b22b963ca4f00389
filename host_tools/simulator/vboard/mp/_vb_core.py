# Virtual board hub, MicroPython side: the virtual clock, the control channel
# to the host, and idle(), the one place where virtual time passes.
#
# Time only moves inside idle(). The host grants time with "run <seq> <t_us>"
# (t_us = the board may run until that virtual instant). idle(deadline) jumps
# the clock straight to the deadline when it is within the grant; otherwise
# the clock stops at the grant, the board acknowledges the host's last command
# ("ok <seq> <t_us>") and blocks on the control pipe for the next one. Code that
# runs between two idle() calls takes no virtual time.
#
# CPU time: code between two waits costs nothing, except that a board which
# keeps reading the clock or polling with timeout 0 without ever waiting (a
# ticks_ms() busy-wait, a task looping on `await asyncio.sleep(0)`) is given
# 1 ms of virtual time per _SPIN_PER_MS units of such work (a clock read is 1
# unit, a zero-timeout poll 20), so that it still sees time pass.
#
# Board -> host lines:  ok <seq> <t> | t <t> | w <t> <bus> <addr> <hex> |
#   r <t> <bus> <addr> <n> (answered by "R <hex>") | o <t> <pin> <0|1> |
#   pwm <t> <pin> <freq> <duty_u16> | i2s_init <id> <sck> <ws> <sd> <rate> <bits> <frame bytes> |
#   i2s <t> <id> <hex> (the samples an I2S write sent) | rtc <hex> | wall <base_us> |
#   wdt <t> <timeout_ms> | reset <t> <cause> <chip|vm> | sleep <t> <ms> |
#   mode <friendly|raw> (the REPL changed mode) | rxd <seq> (rx taken) | err <text> |
#   radio <sta 0|1> <ap 0|1> <channel> <espnow 0|1> <sta mac> <ap mac> (the radio's state) |
#   link <t> <0|1> <ip> (Wi-Fi got / lost its IP) | sock <n> (open sockets) |
#   nt <t> <ifidx> <src mac> <dst mac> <lmk|-> <hex|-> (an ESP-NOW frame; answered "NT 0|1", the ack) |
#   heap <alloc> <free> <held> (vb_boot.py: the heap once the emulation is in) |
#   fail <path> <exception name> (vb_boot.py: boot.py or main.py ended by an exception)
# The host handles each in host_tools/simulator/vboard/messages.py (its VERBS
# table: one row per verb here); the shims send them with send() or request().
# "ok" may carry "n" (the board stopped waiting on a network socket) and
# "d<t>" (the next instant it runs by itself: a sleep's end, a timer, the
# watchdog; none: only something from outside wakes it).
# "sleep" may carry wake-up sources: e0:<pin>:<level>:<undriven> e1:<level>:<pin>/<undriven>,...
# Host -> board lines (handle() below): run <seq> <t> [r] | pin <seq> <n> <0|1|-> |
#   plug <seq> <bus> <addr> | unplug <seq> <bus> <addr> | sync <seq> |
#   rx <seq> <hex> (bytes received on the UART) | repl <seq> <0|1> (console attached) |
#   wifi <seq> <hex of the access point's JSON | -> |
#   rxskip <seq> (not a command: see below) |
#   nrx <t> <src> <dst> <rssi> <lmk|-> <hex|-> (not a command: an ESP-NOW frame that arrives at t)
#
# Requests (I2C reads, ESP-NOW sends) wait for their answer ("R ...", "NT ...");
# host lines read meanwhile are kept for idle() (_lookahead), in order.
#
# Network sockets are real (mp/_vb_socket.py). While the board waits on one
# (a poller holds a socket with events asked for), virtual time does not run
# ahead of real time ("pacing"): idle() waits for the socket in real time, up
# to the next deadline, and counts the real time that passed. A peer's answer
# thus takes as long in virtual time as it took in real time. A grant that
# already follows real time (the host's real-time mode: "run <seq> <t> r") is
# not paced: the sockets are polled at each step, and the host's next grant
# (every 10 ms) comes in step with real time anyway.
#
# The UART's receive side: "rx" bytes go into a pipe that is this process's
# own stdin (fd 0), so sys.stdin, select on it and the REPL all read the one
# receive buffer, as on the ESP32. While a program runs (interrupt_char is 3),
# a received Ctrl-C is not buffered: like the UART IRQ's
# mp_sched_keyboard_interrupt(), it makes the next wait (idle()) raise
# KeyboardInterrupt.
#
# A blocking read on sys.stdin (outside idle()) cannot see "rx" lines. The
# host notices (the process sits in read(0, ...)), writes the bytes straight
# into our stdin and sends "rxskip <seq>" for the "rx" line still queued here;
# handle() reads the lines already waiting before taking an "rx", and drops
# one that has its "rxskip". Taken "rx" lines are reported ("rxd <seq>"), so
# the host knows which ones it must still deliver itself.

import sys
import select as _real_select
import time as _real_time
from micropython import const

PWRON_RESET = const(1)
HARD_RESET = const(2)
WDT_RESET = const(3)
DEEPSLEEP_RESET = const(4)
SOFT_RESET = const(5)

# The host reads "t <now>" as a sign of life during long runs.
_HEARTBEAT_EVERY = const(2000)
_SPIN_PER_MS = const(1000)
SPIN_CLOCK_READ = const(1)
SPIN_ZERO_POLL = const(20)

config = None
ctl_in = None
ctl_out = None
now_us = 0  # virtual time since the first power-on, never wraps
origin_us = 0  # virtual time of the last hardware reset (ticks count from here)
target_us = 0  # the host lets the board run until here
pending = None  # seq of the host command not yet acknowledged
kicked = False  # a soft interrupt ran: idle() returns early so asyncio re-checks
wdt_deadline = None
wdt_timeout_us = 0
timers = []  # machine.Timer objects with a deadline
buses = []  # [(bus id, scl pin or None, sda pin or None)], None: reached by any I2C object
present = set()  # (bus id, address) of plugged chips
inputs = {}  # pin -> level driven by the host (buttons)
input_listener = None  # machine.py: called with (pin) after the host changes a pin
host_gone = False
interrupt_char = -1  # 3 while boot.py, main.py or REPL code runs (mp_hal_set_interrupt_char)
kbd_pending = False  # a Ctrl-C arrived while interrupt_char was set
repl_enabled = False  # a console is attached: the REPL runs after main.py
repl_mode = "friendly"  # or "raw"; survives a soft reset, as pyexec_mode_kind does

_ctl_poller = None
_rx_out = None  # write end of our own stdin pipe: the UART receive buffer
_rx_writable = None
_rx_backlog = b""  # received bytes the pipe could not take yet
_RX_BACKLOG_MAX = const(4096)
_stdin_ready = None
_stdin_poller = None
_lookahead = []  # control lines read before their turn (see "rxskip", request())
_idle_count = 0
_spin = 0
pacing = True  # virtual time does not outrun real time while a socket is awaited
_pace_grant = True  # False for a grant that already follows real time ("run <seq> <t> r")
net_listener = None  # network module: called with the access point's config ("wifi")
radio_listener = None  # espnow module: called with each arriving frame ("nrx")
net_waiting = False  # the last stop of the clock was while waiting on a socket
_PACE_MAX_MS = const(250)  # longest real wait at once (then a heartbeat)
_last_sign_ms = 0


def setup(fd_in, fd_out):
    """Open the control pipe and read the board's configuration from it."""
    global config, ctl_in, ctl_out, now_us, origin_us, target_us, pending, _ctl_poller
    import json

    ctl_in = open(fd_in, "rb")
    ctl_out = open(fd_out, "wb")
    line = ctl_in.readline()
    if not line:
        raise SystemExit(0)
    cfg = config = json.loads(line.decode())
    now_us = cfg["now_us"]
    origin_us = cfg["origin_us"]
    target_us = cfg["target_us"]
    pending = 0  # the boot itself is acknowledged as command 0
    for b in cfg["buses"]:
        buses.append((b["bus"], b.get("scl"), b.get("sda")))
    for bus, addr in cfg["chips"]:
        present.add((bus, addr))
    for k, v in cfg["inputs"].items():
        inputs[int(k)] = v
    global pacing
    pacing = cfg.get("pacing", True)
    _ctl_poller = new_real_poller()
    _setup_console(cfg)
    return cfg


def _setup_console(cfg):
    global repl_enabled, repl_mode, _rx_out, _rx_writable, _stdin_ready, _stdin_poller
    repl_enabled = bool(cfg.get("repl"))
    repl_mode = cfg.get("repl_mode", "friendly")
    fd = cfg.get("rx_fd")
    if fd is not None:
        _rx_out = open(fd, "wb")
        _rx_writable = _real_select.poll()
        _rx_writable.register(_rx_out, _real_select.POLLOUT)
    _stdin_ready = _real_select.poll()
    _stdin_ready.register(sys.stdin, _real_select.POLLIN)
    _stdin_poller = _StdinWaiter()


class _StdinWaiter:
    """What the REPL waits on: the UART's receive buffer (our stdin)."""

    def ready(self):
        return [(sys.stdin, _real_select.POLLIN)] if _stdin_ready.poll(0) else []

    def awaits_net(self):
        return False


def new_real_poller():
    p = _real_select.poll()
    p.register(ctl_in, _real_select.POLLIN)
    return p


def send(line):
    ctl_out.write(line.encode() + b"\n")


def _host_is_gone():
    global host_gone
    host_gone = True
    raise SystemExit(0)


def request(line, answer="R"):
    """Send a line that the host answers at once; return the answer's text.
    Host lines that come first (queued before the host read our request) are
    kept, in order, for idle()."""
    send(line)
    while True:
        reply = ctl_in.readline()
        if not reply:
            _host_is_gone()
        text = reply.decode().strip()
        head = text.split(" ", 1)[0]
        if head == answer or head == answer + "-":
            return text
        _lookahead.append(text)


def user_events(poller):
    """Events from objects the firmware registered, without waiting (a real poll object)."""
    out = []
    for obj, ev in poller.poll(0):
        if obj is not ctl_in:
            out.append((obj, ev))
    return out


def _sign_of_life():
    global _last_sign_ms
    t = _real_time.ticks_ms()
    if _real_time.ticks_diff(t, _last_sign_ms) >= 1000:
        _last_sign_ms = t
        send("t %d" % now_us)


def _paced_wait(poller, stop):
    """Wait in real time for the awaited sockets, at most until virtual `stop`;
    the clock moves by the real time that passed."""
    global now_us
    span = stop - now_us
    ms = (span + 999) // 1000
    if ms > _PACE_MAX_MS:
        ms = _PACE_MAX_MS
    t0 = _real_time.ticks_us()
    got = poller.net_wait(ms)
    took = _real_time.ticks_diff(_real_time.ticks_us(), t0)
    if not got and took < ms * 1000:
        took = ms * 1000
    now_us += took if took > 0 else 0
    if now_us > stop:
        now_us = stop
    _sign_of_life()


def idle(deadline, poller=None):
    """Let virtual time pass until `deadline` (us; None: no deadline).

    Returns early, with a list of (obj, event), when an object registered in
    `poller` becomes ready (a waiter: ready() gives the events now,
    awaits_net() whether a network socket is awaited, net_wait(ms) waits for
    one in real time), and with [] after a soft interrupt (pin irq, timer
    callback, a radio frame) ran.
    """
    global now_us, kicked, _spin
    _spin = 0
    _heartbeat()
    while True:
        if kbd_pending:
            _raise_interrupt()
        if _rx_backlog:
            _flush_rx()
        if poller is not None:
            ev = poller.ready()
            if ev:
                return ev
        stop = target_us
        if deadline is not None and deadline < stop:
            stop = deadline
        timer_due = next_timer_deadline()
        if _watchdog_due(poller, stop, timer_due):
            continue
        if timer_due is not None and timer_due < stop:
            stop = timer_due
        if stop > now_us and _paced(poller):
            _paced_wait(poller, stop)
            continue
        if timer_due is not None and timer_due <= stop:
            if timer_due > now_us:
                now_us = timer_due
            fire_timers()
            return []
        if deadline is not None and deadline <= target_us:
            if deadline > now_us:
                now_us = deadline
            return []
        _stop_at_grant(poller, deadline, timer_due)
        _next_command()
        if kicked:
            kicked = False
            return []


def _heartbeat():
    """A sign of life to the host every _HEARTBEAT_EVERY calls of idle()."""
    global _idle_count
    _idle_count += 1
    if _idle_count >= _HEARTBEAT_EVERY:
        _idle_count = 0
        send("t %d" % now_us)


def _paced(poller):
    """Virtual time must follow real time now: the board waits on a network socket, in a
    grant that does not follow real time already."""
    return pacing and _pace_grant and poller is not None and poller.awaits_net()


def _watchdog_due(poller, stop, timer_due):
    """The watchdog's deadline comes first (by `stop`, before any timer): the clock goes there
    and the board resets. True instead when it waited in real time for a socket on the way
    (idle() then looks again)."""
    global now_us
    if wdt_deadline is None or wdt_deadline > stop:
        return False
    if timer_due is not None and wdt_deadline >= timer_due:
        return False
    if wdt_deadline > now_us:
        if _paced(poller):
            _paced_wait(poller, wdt_deadline)
            return True
        now_us = wdt_deadline
    reset(WDT_RESET)
    return False


def _stop_at_grant(poller, deadline, timer_due):
    """Nothing left to do inside the grant: stop the clock there and acknowledge the host's
    last command ("ok"; "n" when the board waits on a socket, "d<t>" the next instant it runs
    by itself). idle() then waits for the host's next command (on the control pipe only: a
    socket that becomes ready meanwhile is seen at the next grant)."""
    global now_us, pending, net_waiting
    if target_us > now_us:
        now_us = target_us
    if pending is None:
        return
    net_waiting = poller is not None and poller.awaits_net()
    # The next instant anything here runs by itself (nothing: no "d").
    nxt = deadline
    if timer_due is not None and (nxt is None or timer_due < nxt):
        nxt = timer_due
    if wdt_deadline is not None and (nxt is None or wdt_deadline < nxt):
        nxt = wdt_deadline
    send("ok %d %d%s%s" % (pending, now_us, " n" if net_waiting else "", "" if nxt is None else " d%d" % nxt))
    pending = None


def _next_command():
    """Take the host's next line: one read ahead, or the next on the control pipe (waiting for it)."""
    if _lookahead:
        handle(_lookahead.pop(0))
    else:
        _ctl_poller.poll(-1)
        line = ctl_in.readline()
        if not line:
            _host_is_gone()
        handle(line.decode())


def handle(line):
    global pending, target_us, repl_enabled
    parts = line.split()
    if len(parts) < 2:
        send("err bad command %r" % line)
        return
    verb = parts[0]
    if verb == "rxskip":
        return  # its "rx" was taken already
    if verb == "nrx":
        _radio_frame(parts)
        return
    pending = int(parts[1])
    if verb == "run":
        global _pace_grant
        t = int(parts[2])
        if t > target_us:
            target_us = t
        _pace_grant = len(parts) < 4
    elif verb == "pin":
        _set_pin(int(parts[2]), parts[3])
    elif verb == "plug":
        present.add((int(parts[2]), int(parts[3])))
    elif verb == "unplug":
        present.discard((int(parts[2]), int(parts[3])))
    elif verb == "sync":
        pass
    elif verb == "rx":
        _rx(parts)
    elif verb == "repl":
        repl_enabled = parts[2] == "1"
        kick()
    elif verb == "wifi":
        if net_listener is not None:
            net_listener(None if parts[2] == "-" else parts[2])
    else:
        send("err unknown command %r" % line)


def _set_pin(pin, level):
    """pin: the host drives it at level ("0", "1"), or no more ("-")."""
    if level == "-":
        inputs.pop(pin, None)
    else:
        inputs[pin] = int(level)
    if input_listener is not None:
        input_listener(pin)


def _rx(parts):
    """rx <seq> [<hex>]: bytes received on the UART, unless the host wrote them into our stdin itself."""
    if not _skipped(parts[1]):
        send("rxd " + parts[1])
        receive(bytes.fromhex(parts[2]) if len(parts) > 2 else b"")


class _Arrival:
    """An ESP-NOW frame on its way: a timer that hands it to the espnow module."""

    def __init__(self, t, args):
        self.deadline = t
        self.args = args

    def fire(self):
        timers.remove(self)
        if radio_listener is not None:
            radio_listener(*self.args)


def _radio_frame(parts):
    # nrx <t> <src> <dst> <rssi> <lmk|-> <hex|->
    t = int(parts[1])
    data = b"" if parts[6] == "-" else bytes.fromhex(parts[6])
    args = (
        bytes.fromhex(parts[2]),
        bytes.fromhex(parts[3]),
        int(parts[4]),
        None if parts[5] == "-" else parts[5],
        data,
    )
    timers.append(_Arrival(t if t > now_us else now_us, args))


def _skipped(seq):
    """True if the host already wrote this "rx" line's bytes into our stdin."""
    while _ctl_poller.poll(0):
        line = ctl_in.readline()
        if not line:
            _host_is_gone()
        _lookahead.append(line.decode())
    mark = "rxskip " + seq
    for i in range(len(_lookahead)):
        if _lookahead[i].strip() == mark:
            del _lookahead[i]
            return True
    return False


def receive(data):
    """Bytes arriving on the UART: Ctrl-C interrupts a running program,
    everything else goes into the receive buffer (our stdin)."""
    global kbd_pending, _rx_backlog
    if interrupt_char >= 0 and interrupt_char in data:
        kept = bytearray()
        for c in data:
            if c == interrupt_char:
                kbd_pending = True
            else:
                kept.append(c)
        data = bytes(kept)
    if not data or _rx_out is None:
        return
    room = _RX_BACKLOG_MAX - len(_rx_backlog)
    if room < len(data):  # the buffer is full: like a UART's ring buffer, drop what does not fit
        data = data[:room]
    _rx_backlog += data
    _flush_rx()


def _flush_rx():
    global _rx_backlog
    # POLLOUT on a pipe: a free page, so a write of up to 4096 bytes cannot block.
    while _rx_backlog and _rx_writable.poll(0):
        chunk = _rx_backlog[:4096]
        _rx_out.write(chunk)
        _rx_backlog = _rx_backlog[len(chunk) :]


def _raise_interrupt():
    global kbd_pending
    kbd_pending = False
    raise KeyboardInterrupt


def set_interrupt_char(c):
    """micropython.kbd_intr / mp_hal_set_interrupt_char: -1 disables Ctrl-C."""
    global interrupt_char, kbd_pending
    interrupt_char = c
    if c < 0:
        kbd_pending = False


def console_read():
    """One byte from the UART receive buffer (sys.stdin), waiting on the
    virtual clock (timers keep firing) until one arrives."""
    while True:
        if _stdin_ready.poll(0):
            b = sys.stdin.buffer.read(1)
            if b:
                return b[0]
        idle(None, _stdin_poller)


def console_write(data):
    """Raw bytes to the UART (the host turns a lone \\n into \\r\\n, as the
    ESP32 port's cooked output does; \\r\\n is sent as is)."""
    sys.stdout.buffer.write(data)


def set_repl_mode(mode):
    global repl_mode
    repl_mode = mode
    send("mode %s" % mode)


def spin(units):
    """Work done without waiting; see "CPU time" above."""
    global _spin
    _spin += units
    if _spin >= _SPIN_PER_MS:
        idle(now_us + 1000)


def find_bus(scl, sda):
    """The bus wired to these pins: pins decide, as on the real board (an ESP32
    routes either I2C controller to any pins). None: no chips on those pins."""
    wildcard = None
    for bus, bus_scl, bus_sda in buses:
        if bus_scl is None and bus_sda is None:
            if wildcard is None:
                wildcard = bus
        elif bus_scl == scl and bus_sda == sda:
            return bus
    return wildcard


def kick():
    global kicked
    kicked = True


def next_timer_deadline():
    best = None
    for t in timers:
        if best is None or t.deadline < best:
            best = t.deadline
    return best


def fire_timers():
    for t in list(timers):
        if t.deadline <= now_us:
            t.fire()


def feed_wdt():
    global wdt_deadline
    if wdt_timeout_us:
        wdt_deadline = now_us + wdt_timeout_us


def start_wdt(timeout_ms):
    global wdt_timeout_us
    wdt_timeout_us = timeout_ms * 1000
    send("wdt %d %d" % (now_us, timeout_ms))
    feed_wdt()


def reset(cause, kind="chip"):
    """Reset the board: the host kills this process and starts a new one.

    kind "chip": the chip restarts (ticks from 0); "vm": MicroPython's soft
    reset, the chip keeps running (ticks go on, reset_cause() is unchanged).
    """
    send("reset %d %d %s" % (now_us, cause, kind))
    wait_for_end()


def deep_sleep(ms, wake=""):
    send(("sleep %d %d %s" % (now_us, ms, wake)).strip())
    wait_for_end()


def wait_for_end():
    # Nothing runs after a reset: block until the host ends the process.
    while True:
        if not ctl_in.readline():
            _host_is_gone()


_EMULATION_DIR = __file__.rsplit("/", 1)[0] + "/" if "/" in __file__ else ""


def print_exception(exc, file=None):
    """sys.print_exception without the emulation's own frames (the boot shim,
    the REPL, idle()...): what the ESP32 would print. file None: the console."""
    import io

    buf = io.StringIO()
    sys.print_exception(exc, buf)
    out = []
    for line in buf.getvalue().split("\n"):
        if _EMULATION_DIR and line.startswith('  File "' + _EMULATION_DIR):
            continue
        out.append(line)
    text = "\n".join(out)
    if file is None:
        console_write(text.encode())
    else:
        file.write(text)


def stderr(msg):
    sys.stderr.write("vboard: " + msg + "\n")
