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
#   pwm <t> <pin> <freq> <duty_u16> | rtc <hex> | wall <base_us> |
#   wdt <t> <timeout_ms> | reset <t> <cause> <chip|vm> | sleep <t> <ms> | err <text>
# Host -> board lines: run <seq> <t> | pin <seq> <n> <0|1|-> |
#   plug <seq> <bus> <addr> | unplug <seq> <bus> <addr> | sync <seq>

import sys
import select as _real_select
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

_ctl_poller = None
_idle_count = 0
_spin = 0


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
    _ctl_poller = new_real_poller()
    return cfg


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


def request(line):
    """Send a line that the host answers at once; return the answer's text."""
    send(line)
    reply = ctl_in.readline()
    if not reply:
        _host_is_gone()
    return reply.decode().strip()


def user_events(poller):
    """Events from objects the firmware registered, without waiting."""
    out = []
    for obj, ev in poller.poll(0):
        if obj is not ctl_in:
            out.append((obj, ev))
    return out


def idle(deadline, poller=None):
    """Let virtual time pass until `deadline` (us; None: no deadline).

    Returns early, with a list of (obj, event), when an object registered in
    `poller` (a real poll object that also watches ctl_in) becomes ready, and
    with [] after a soft interrupt (pin irq or timer callback) ran.
    """
    global now_us, pending, kicked, _idle_count, _spin
    _spin = 0
    _idle_count += 1
    if _idle_count >= _HEARTBEAT_EVERY:
        _idle_count = 0
        send("t %d" % now_us)
    p = poller if poller is not None else _ctl_poller
    while True:
        if poller is not None:
            ev = user_events(poller)
            if ev:
                return ev
        stop = target_us
        if deadline is not None and deadline < stop:
            stop = deadline
        timer_due = next_timer_deadline()
        if wdt_deadline is not None and wdt_deadline <= stop:
            if timer_due is None or wdt_deadline < timer_due:
                if wdt_deadline > now_us:
                    now_us = wdt_deadline
                reset(WDT_RESET)
        if timer_due is not None and timer_due <= stop:
            if timer_due > now_us:
                now_us = timer_due
            fire_timers()
            return []
        if deadline is not None and deadline <= target_us:
            if deadline > now_us:
                now_us = deadline
            return []
        # Nothing left to do inside the grant: stop the clock there, report
        # to the host and wait for its next command.
        if target_us > now_us:
            now_us = target_us
        if pending is not None:
            send("ok %d %d" % (pending, now_us))
            pending = None
        got_command = False
        ready = []
        for obj, ev in p.poll(-1):
            if obj is ctl_in:
                got_command = True
            else:
                ready.append((obj, ev))
        if got_command:
            line = ctl_in.readline()
            if not line:
                _host_is_gone()
            handle(line.decode())
        if ready:
            return ready
        if kicked:
            kicked = False
            return []


def handle(line):
    global pending, target_us
    parts = line.split()
    if len(parts) < 2:
        send("err bad command %r" % line)
        return
    verb = parts[0]
    pending = int(parts[1])
    if verb == "run":
        t = int(parts[2])
        if t > target_us:
            target_us = t
    elif verb == "pin":
        pin = int(parts[2])
        if parts[3] == "-":
            inputs.pop(pin, None)
        else:
            inputs[pin] = int(parts[3])
        if input_listener is not None:
            input_listener(pin)
    elif verb == "plug":
        present.add((int(parts[2]), int(parts[3])))
    elif verb == "unplug":
        present.discard((int(parts[2]), int(parts[3])))
    elif verb == "sync":
        pass
    else:
        send("err unknown command %r" % line)


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


def deep_sleep(ms):
    send("sleep %d %d" % (now_us, ms))
    wait_for_end()


def wait_for_end():
    # Nothing runs after a reset: block until the host ends the process.
    while True:
        if not ctl_in.readline():
            _host_is_gone()


def stderr(msg):
    sys.stderr.write("vboard: " + msg + "\n")
