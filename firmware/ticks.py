"""Millisecond counters that wrap at 2**30, as the ESP32's time.ticks_ms() does.

    from ticks import ticks_add, ticks_diff
    ticks_diff(end, start)     # end - start, in -2**29 .. 2**29 - 1
    ticks_add(t, delta)        # t + delta on the counter, |delta| < 2**29

The one place for this arithmetic (rules, buttons, view, the remote). Where
the port's own time.ticks_add wraps at 2**30 (the ESP32, a 32-bit unix port)
its C functions are used; elsewhere (a 64-bit port, CPython, where ticks wrap
at 2**62 or do not exist) the same arithmetic in Python. Both keep every
intermediate value a small int on a 31-bit port: `(a + d) % 2**30` would
make a long int (a heap allocation) past 2**30.
"""

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


_MASK = const(0x3FFFFFFF)  # period 2**30
_HALF = const(0x20000000)


def _diff(end, start):
    d = (end - start) & _MASK
    if d >= _HALF:
        d = d - _HALF - _HALF
    return d


def _add(t, delta):
    # (t + delta) mod 2**30 in two steps that each stay inside -2**30 .. 2**30 - 1.
    return (((t - _HALF + delta) & _MASK) - _HALF) & _MASK


ticks_diff = _diff
ticks_add = _add
try:
    import time as _time

    if _time.ticks_add(0, -1) == _MASK:  # the port's ticks wrap at 2**30: use its C code
        ticks_diff = _time.ticks_diff
        ticks_add = _time.ticks_add
except (ImportError, AttributeError):
    pass
