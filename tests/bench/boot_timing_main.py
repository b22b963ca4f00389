"""Benchmark main.py: real microseconds from main.py's start to the end of the first render.

The virtual clock stands still while code runs, so the unix port's real clock
(kept by the emulation as _vb_time._real_time) measures the boot.
"""

import _vb_time

_rt = _vb_time._real_time
t0 = _rt.ticks_us()

import gc  # noqa: E402

import view  # noqa: E402

_render = view.View.render
_first = [True]


def render(self, now):
    written = _render(self, now)
    if _first[0]:
        _first[0] = False
        print("FIRST_RENDER_US %d" % _rt.ticks_diff(_rt.ticks_us(), t0))
    return written


view.View.render = render
gc.collect()
import startup  # noqa: E402

import machine  # noqa: E402

board = startup.start(machine, gc.mem_alloc())
if board is not None:
    board.serve()
