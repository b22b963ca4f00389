"""ticks.py: the 2**30 millisecond counter, both its Python arithmetic and the port's.

The Python functions must equal MicroPython's C formula (extmod/modtime.c with
period 2**30) everywhere, wrap included, and allocate nothing on a 31-bit port.
"""

import ticks
from fwtest import SkipTest

MASK = 0x3FFFFFFF
EDGES = (0, 1, 2, 999, 0x1FFFFFFE, 0x1FFFFFFF, 0x20000000, 0x20000001, MASK - 1, MASK)


def reference_diff(end, start):
    return ((end - start + 0x20000000) & MASK) - 0x20000000


def reference_add(t, delta):
    return (t + delta) & MASK


def both():
    """The Python pair, and the pair ticks.py exports (the port's where its period is 2**30)."""
    return ((ticks._diff, ticks._add), (ticks.ticks_diff, ticks.ticks_add))


def test_diff_across_the_wrap():
    for diff, _ in both():
        assert diff(5, MASK - 4) == 10
        assert diff(MASK - 4, 5) == -10
        assert diff(0, MASK) == 1
        assert diff(MASK, 0) == -1
        assert diff(1234, 1234) == 0
        assert diff(0x1FFFFFFF, 0) == 0x1FFFFFFF
        assert diff(0x20000000, 0) == -0x20000000
        assert diff(0, 0x20000000) == -0x20000000
        assert diff(0, 0x1FFFFFFF) == -0x1FFFFFFF


def test_diff_equals_the_c_formula():
    for diff, _ in both():
        for a in EDGES:
            for b in EDGES:
                assert diff(a, b) == reference_diff(a, b), (a, b)
        for a in range(MASK - 40, MASK + 1):
            for b in (0, 7, MASK - 20, MASK):
                assert diff(a, b) == reference_diff(a, b), (a, b)


def test_add_equals_the_c_formula():
    deltas = (0, 1, -1, 10, -10, 999, 0x1FFFFFFF, -0x1FFFFFFF, 0x10000000)  # |delta| < 2**29
    for _, add in both():
        for t in EDGES:
            for d in deltas:
                assert add(t, d) == reference_add(t, d), (t, d)
        assert add(MASK, 1) == 0
        assert add(MASK - 4, 10) == 5
        assert add(5, -10) == MASK - 4


def test_the_port_is_used_only_when_its_period_is_2_30():
    try:
        import time

        period_ok = time.ticks_add(0, -1) == MASK
    except (ImportError, AttributeError):
        period_ok = False
    if period_ok:
        assert ticks.ticks_add is time.ticks_add and ticks.ticks_diff is time.ticks_diff
    else:
        assert ticks.ticks_add is ticks._add and ticks.ticks_diff is ticks._diff


def test_python_arithmetic_allocates_nothing():
    try:
        from micropython import heap_lock, heap_unlock, mem_total
    except ImportError:
        raise SkipTest("needs MicroPython")
    diff, add = ticks._diff, ticks._add
    t = MASK - 5
    diff(t, 3)
    add(t, 3)
    before = mem_total()
    heap_lock()
    try:
        for d in (1, 6, 100, 0x1FFFFFFF, -0x1FFFFFFF):
            add(t, d)
            diff(add(t, d), t)
            diff(t, add(t, d))
    finally:
        heap_unlock()
    assert mem_total() - before == 0, mem_total() - before
