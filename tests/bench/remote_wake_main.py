# main.py for the referee remote's wake benchmark: firmware/main.py's start, with the time from
# main.py's first line to the first frame handed to espnow.send (the emulation's real clock:
# the virtual one stands still while code runs), then the modules loaded and the live heap at
# that send. Prints, once a boot:
#   WAKE us <microseconds> live <bytes> modules <name> ...
# "live" counts the firmware's share (what the interpreter and the emulation held before the
# start is left out).
import _vb_time

_rt = _vb_time._real_time
t0 = _rt.ticks_us()

import gc  # noqa: E402
import sys  # noqa: E402

before = set(sys.modules)  # the emulation's (built in on a chip), and these two
gc.collect()
heap_at_start = gc.mem_alloc()

import espnow  # noqa: E402  (the emulation's: a class to wrap)

_ESPNow = espnow.ESPNow


class _Timed(_ESPNow):
    sent = False

    def send(self, *args):
        if not _Timed.sent:
            _Timed.sent = True
            us = _rt.ticks_diff(_rt.ticks_us(), t0)
            live = gc.mem_alloc() - heap_at_start  # before a collection: what the send found
            gc.collect()
            print(
                "WAKE us %d live %d after %d modules %s"
                % (
                    us,
                    live,
                    gc.mem_alloc() - heap_at_start,
                    " ".join(sorted(k for k in sys.modules if k not in before and k != "espnow")),
                )
            )
        return _ESPNow.send(self, *args)


espnow.ESPNow = _Timed
gc.threshold(4096)

import machine  # noqa: E402

try:
    import startup  # noqa: E402
except (MemoryError, ImportError) as e:
    startup = None
    print("carom: not enough memory to start (E 24): %s" % e)
board = startup.start(machine, heap_at_start) if startup else None
startup = None
sys.modules.pop("startup", None)
gc.collect()
if board is not None:
    board.serve()
