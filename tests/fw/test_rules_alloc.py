"""Scoring events allocate nothing in steady state (MicroPython heap_lock).

With the heap locked any allocation raises MemoryError, so each event below
is proved allocation-free: point, miss, every foul, undo (a full replay),
the clock tick, and the derived values the displays read.
"""

import reasons
import rules
from fwtest import SkipTest
from ticks import ticks_add

try:
    import micropython

    heap_lock = micropython.heap_lock
    heap_unlock = micropython.heap_unlock
except (ImportError, AttributeError):
    heap_lock = None


def locked(fn):
    """fn() with the heap locked (fn is made beforehand: calling it allocates nothing)."""
    heap_lock()
    try:
        return fn()
    finally:
        heap_unlock()


def test_events_do_not_allocate():
    if heap_lock is None:
        raise SkipTest("needs micropython.heap_lock")
    m = rules.Match(capacity=1024, game="straight_rail", target=200, breaker=rules.A, shot_clock=30)
    now = (1 << 30) - 5000  # the ms counter wraps during the test: every int stays small (31-bit)
    m.new(now, **m.options())
    for i in range(50):  # warm up: attribute slots exist
        m.point(rules.NOBODY, now)
    for kind in range(1, len(rules.FOULS)):
        now = ticks_add(now, 1000)
        later = ticks_add(now, 500)
        assert locked(lambda: m.point(rules.NOBODY, now)) is None
        assert locked(lambda: m.foul(rules.NOBODY, kind, now)) is None, rules.FOULS[kind]
        assert locked(lambda: m.miss(rules.NOBODY, now)) is None
        assert locked(lambda: m.undo(now)) is None
        assert locked(lambda: m.tick(later)) == 0
        assert locked(lambda: m.countdown()) == -1
        assert locked(lambda: m.average_x1000(rules.A)) >= 0
        assert locked(lambda: m.shot_left_ms(now)) >= 0
    # A refusal allocates nothing either.
    other = 1 - m.turn
    assert reasons.text(locked(lambda: m.point(other, now))) == reasons.NOT_AT_TABLE
    # The clock running out (automatic time-out, then time foul).
    shooter = m.turn
    timeouts = m.timeouts[shooter]
    t1, t2 = ticks_add(now, 31000), ticks_add(now, 61000)
    assert locked(lambda: m.tick(t1)) == 1
    assert m.timeouts[shooter] == timeouts - 1
    assert locked(lambda: m.tick(t2)) == 1
    assert m.turn == 1 - shooter and m.last_foul == rules.F_TIME
