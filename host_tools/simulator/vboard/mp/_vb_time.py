# Virtual `time` for the emulated board (installed as sys.modules["time"]).
# Ticks wrap like an ESP32's (period 2**30); every sleep is an idle() on the
# virtual clock, so a sleeping board lets the host's time pass instantly.

import time as _real_time
from micropython import const

import _vb_core as core

_PERIOD = const(0x40000000)
_MASK = const(0x3FFFFFFF)
_HALF = const(0x20000000)

_start_ms = 0
_wall_base_us = 0  # wall-clock microseconds since 1970 at virtual time 0


def setup(cfg):
    global _start_ms, _wall_base_us
    _start_ms = cfg.get("ticks_start_ms", 0)
    _wall_base_us = cfg["wall_base_us"]


def ticks_ms():
    core.spin(core.SPIN_CLOCK_READ)
    return (_start_ms + (core.now_us - core.origin_us) // 1000) & _MASK


def ticks_us():
    core.spin(core.SPIN_CLOCK_READ)
    return (_start_ms * 1000 + core.now_us - core.origin_us) & _MASK


def ticks_cpu():
    return ticks_us()


def ticks_diff(end, start):
    return ((end - start + _HALF) & _MASK) - _HALF


def ticks_add(ticks, delta):
    if delta >= _HALF or delta < -_HALF:
        raise OverflowError("ticks interval overflow")
    return (ticks + delta) & _MASK


def sleep_us(us):
    if us <= 0:
        return
    deadline = core.now_us + us
    while core.now_us < deadline:
        core.idle(deadline)


def sleep_ms(ms):
    sleep_us(int(ms) * 1000)


def sleep(seconds):
    sleep_us(int(seconds * 1000000))


def time_ns():
    return (_wall_base_us + core.now_us) * 1000


def time():
    return (_wall_base_us + core.now_us) // 1000000


def gmtime(secs=None):
    if secs is None:
        secs = time()
    return _real_time.gmtime(secs)


def localtime(secs=None):
    # An ESP32 without a TZ setting keeps UTC.
    return gmtime(secs)


def mktime(tup):
    return _real_time.mktime(tup)


def set_wall(seconds):
    """RTC.datetime(...) moved the wall clock: keep it for later resets too."""
    global _wall_base_us
    _wall_base_us = int(seconds) * 1000000 - core.now_us
    core.send("wall %d" % _wall_base_us)
