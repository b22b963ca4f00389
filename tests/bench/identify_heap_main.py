# main.py for the identify mode's heap figure (tools/bench/identify.py): the board started as
# firmware/main.py starts it, its heap sampled while the start runs. It prints lines the host reads:
#   HEAP identify live <bytes>   every 100 ms during the start (the identify mode, when its button
#                                is held), at each new high
#   HEAP boot live <bytes>       once the start is over (after the mode: the soft reset's new start)
# "live" counts the firmware's share, as tests/host/vboard_fixtures/heap_main.py does: what the
# interpreter, the emulation and this sampler held before the start is left out.
import gc
import sys

import machine

gc.collect()
_high = [0, 0]  # the highest live, the heap in use at the start


def _sample(t):
    gc.collect()
    live = gc.mem_alloc() - _high[1]
    if live > _high[0]:
        _high[0] = live
        print("HEAP identify live %d" % live)


_timer = machine.Timer(0)
gc.collect()
_high[1] = heap_at_start = gc.mem_alloc()
_timer.init(period=100, callback=_sample)
gc.threshold(4096)

import startup  # noqa: E402

board = startup.start(machine, heap_at_start)
_timer.deinit()
del sys.modules["startup"], startup
gc.collect()
print("HEAP boot live %d" % (gc.mem_alloc() - heap_at_start))
