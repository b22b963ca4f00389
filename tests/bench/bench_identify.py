"""Benchmark of the identify mode's loop (firmware/identify.py); runs on the MicroPython unix port,
prints one JSON line.

One pass is what the loop does between two sleeps: the buttons sampled, the LEDs, and at most
identify.CHIPS_PER_PASS displays drawn (a 17-byte frame to each whose picture changed). The wall
board's 16 displays (on a bus that takes every write at once) and the referee box's one, through a
whole cycle and a name shown, each instant handed in (no sleeping): microseconds per pass (median,
99th percentile, the slowest, which includes the garbage collections) and bytes allocated per pass.
Run it in a heap of a stock ESP32's size (-X heapsize=112K): a collection then costs what it would.
"""

import gc
import json
import sys
from array import array

sys.path.insert(0, "firmware")
import boarddef  # noqa: E402
import ht16k33  # noqa: E402
import identify  # noqa: E402
from time import ticks_diff, ticks_us  # noqa: E402

try:
    from micropython import mem_total
except ImportError:
    mem_total = None


class Bus:
    def writeto(self, addr, buf):
        return len(buf)


class Pin:
    def __init__(self, level):
        self.level = level

    def __call__(self):
        return self.level

    def value(self, v=None):
        if v is not None:
            self.level = v
        return self.level


def bench(name):
    board = boarddef.load("boards/%s.json" % name)
    bus = Bus()
    chips = [
        (ht16k33.Seg14x4 if d["kind"] == "seg14" else ht16k33.Seg7x4)(bus, d["addr"], 8) for d in board["displays"]
    ]
    leds = {n: Pin(0) for n in board["leds"]}
    pins = {}

    def make_pin(number, pull):
        pins[number] = Pin(1)
        return pins[number]

    ident = identify.Identify(board, chips, leds, None, make_pin)
    for spec in board["buttons"]:  # every button released
        pins[spec["pin"]].level = 1 if spec["active_low"] else 0
    ident.begin(0)
    instants = range(0, ident.cycle_ms + 3000, identify.POLL_MS)
    times = array("H", bytes(2 * len(instants)))  # made beforehand: the loop allocates only what it does
    allocated = 0
    for n, t in enumerate(instants):
        if t == 2000:
            ident.shown = identify.cells("foul.time")
            ident.shown_at = t
        before = mem_total() if mem_total else 0
        t0 = ticks_us()
        ident.poll(t)
        ident.draw_leds(t)
        for _ in range(min(identify.CHIPS_PER_PASS, len(chips))):
            ident.draw(ident.next_chip, t)
            ident.next_chip = (ident.next_chip + 1) % len(chips)
        times[n] = min(ticks_diff(ticks_us(), t0), 65535)
        allocated += (mem_total() - before) if mem_total else 0
    return {
        "board": name,
        "passes": len(times),
        "p50_us": kth(times, len(times) // 2),
        "p99_us": kth(times, len(times) * 99 // 100),
        "p999_us": kth(times, len(times) * 999 // 1000),
        "max_us": max(times),
        "bytes_per_pass": allocated / len(times),
    }


def kth(values, k):
    """The k-th smallest of values (0: the smallest), without a sorted copy (the heap is small)."""
    lo, hi = 0, 65535
    while lo < hi:
        mid = (lo + hi) // 2
        if sum(1 for v in values if v <= mid) > k:
            hi = mid
        else:
            lo = mid + 1
    return lo


gc.collect()
print(json.dumps({"results": [bench("wall"), bench("referee")]}))
