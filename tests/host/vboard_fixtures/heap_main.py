# main.py for the heap tests and the benchmark: the board started as firmware/main.py starts
# it, and measured. It prints lines the host reads:
#   HEAP boot live <bytes> free <bytes> largest <bytes>
#   HEAP modules <name> ...         the modules in RAM after the start
#   HEAP holes <count> of <bytes>   with a file "holes" holding a size: after the start, the free
#                                   heap is cut into holes of that size by small pinned blocks,
#                                   so that any larger allocation fails (MemoryError)
#   HEAP after report <name> ...    the modules in RAM once a report was written (or failed)
#   HEAP live <bytes>               every 100 ms, and at every yield of a report's steps (its
#                                   allocations happen in one instant): the live heap, printed
#                                   when it reaches a new high
# "live" counts the firmware's share: what the interpreter and the emulation held before the
# start is left out, and so are the pins.
import gc
import sys

gc.collect()
heap_at_start = gc.mem_alloc()
gc.threshold(4096)

import machine  # noqa: E402

try:  # as firmware/main.py
    import startup  # noqa: E402
except (MemoryError, ImportError) as e:
    startup = None
    print("carom: not enough memory to start (E 24): %s" % e)
board = startup.start(machine, heap_at_start) if startup else None
startup = None
sys.modules.pop("startup", None)
gc.collect()


def largest():
    """The largest block that can be allocated now (a binary search, with collections)."""
    gc.collect()
    lo, hi = 0, gc.mem_free()
    while hi - lo > 16:
        mid = (lo + hi) // 2
        try:
            b = bytearray(mid)
            del b
            lo = mid
        except MemoryError:
            hi = mid
    return lo


print("HEAP boot live %d free %d largest %d" % (gc.mem_alloc() - heap_at_start, gc.mem_free(), largest()))
print("HEAP modules", " ".join(sorted(k for k in sys.modules if not k.startswith("_vb"))))

pins = []
pinned = 0
try:
    with open("holes") as f:
        hole = int(f.read())
except OSError:
    hole = 0
if hole:
    gaps = []
    try:
        while True:
            gaps.append(bytearray(hole - 16))
            pins.append(bytearray(1))
    except MemoryError:
        pass
    del gaps
    gc.collect()
    pinned = 32 * len(pins)  # a pin is an object and its data: two 16-byte blocks
    print("HEAP holes %d of %d" % (len(pins), hole))

if board is not None:
    import asyncio

    high = 0

    def sample():
        global high
        gc.collect()
        live = gc.mem_alloc() - heap_at_start - pinned
        if live > high:
            high = live
            print("HEAP live %d" % live)

    reporting = [False]

    async def sampler():
        while True:
            sample()
            if reporting[0] and "report" not in sys.modules:  # a report was written (or failed)
                reporting[0] = False
                print("HEAP after report", " ".join(sorted(k for k in sys.modules if not k.startswith("_vb"))))
            await asyncio.sleep_ms(100)

    # A report is written in steps within one instant of the board's time: the sampler's
    # 100 ms never pass meanwhile. So while report.py is loaded, every yield of its steps
    # (asyncio.sleep_ms) samples first: where its allocations happened.
    sleep_ms = asyncio.sleep_ms

    def sampled_sleep_ms(t):
        if "report" in sys.modules:
            reporting[0] = True
            sample()
        return sleep_ms(t)

    asyncio.sleep_ms = sampled_sleep_ms
    asyncio.create_task(sampler())
    board.serve()
