"""Benchmark of the rules core; runs on MicroPython and CPython, prints one JSON line.

Counts, not limits: events per second, and (MicroPython) bytes allocated per
event in steady state from micropython.mem_total().
"""

import json
import sys

sys.path.insert(0, "firmware")
import rules  # noqa: E402

try:
    from time import ticks_diff, ticks_us

    def elapsed_us(t0):
        return ticks_diff(ticks_us(), t0)

    clock = ticks_us
except ImportError:
    from time import perf_counter

    def clock():
        return perf_counter()

    def elapsed_us(t0):
        return int((perf_counter() - t0) * 1e6)


try:
    from micropython import mem_total
except ImportError:
    mem_total = None

N = 3000


def fresh(depth=0):
    m = rules.Match(capacity=8192, game="straight_rail", target=9999, breaker=rules.A, shot_clock=30)
    for i in range(depth):
        if i % 5 == 4:
            m.miss(rules.NOBODY, i)
        else:
            m.point(rules.NOBODY, i)
    return m


def measure(name, m, step, n=N):
    """Time n calls of step(m, i); bytes allocated per call (MicroPython), counted call by call
    with Match.reserve() between them, as the board's clock task makes the log's next chunk
    (and the next innings' runs) ahead of need, off the event path."""
    step(m, 0)
    t0 = clock()
    for i in range(1, n + 1):
        step(m, i)
        if not i & 15:
            m.reserve()
    us = elapsed_us(t0)
    allocated = 0
    if mem_total:
        for i in range(n + 1, 2 * n + 1):
            if not i & 15:
                m.reserve()
            a0 = mem_total()
            step(m, i)
            allocated += mem_total() - a0
    return {
        "event": name,
        "per_s": int(n * 1000000 / us) if us else None,
        "bytes_per_event": allocated / n if mem_total else None,
    }


def point(m, i):
    m.point(rules.NOBODY, i)


def point_miss(m, i):
    if i & 3:
        m.point(rules.NOBODY, i)
    else:
        m.miss(rules.NOBODY, i)


def foul(m, i):
    m.point(rules.NOBODY, i)
    m.foul(rules.NOBODY, 1 + i % 8, i)


def refused(m, i):
    m.point(1 - m.turn, i)


def tick(m, i):
    m.tick(i)


def undo_100(m, i):
    m.point(rules.NOBODY, i)
    m.undo(i)


def main():
    results = [
        measure("point", fresh(), point),
        measure("point+miss mix", fresh(), point_miss),
        measure("point+foul", fresh(), foul, N // 2),
        measure("refused event", fresh(), refused),
        measure("clock tick", fresh(), tick),
        measure("point+undo at 100 entries", fresh(100), undo_100, 300),
        measure("point+undo at 1000 entries", fresh(1000), undo_100, 50),
    ]
    print(json.dumps({"implementation": sys.implementation.name, "results": results}))


main()
