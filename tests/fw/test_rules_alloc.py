"""Scoring events allocate nothing in steady state (MicroPython heap_lock).

With the heap locked any allocation raises MemoryError, so each event below
is proved allocation-free: point, miss, every foul, undo (a full replay),
the clock tick, and the derived values the displays read; undo's replay
across every rarer entry (lag tie, review, frozen and the choice, the position
calls with anchor and out, a jump's balls) and out_next(), elapsed_ms().
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


def test_undo_replays_the_new_entries_without_allocating():
    # The rarer events themselves go through rules_events.py, a cold module loaded for the event
    # (cold.call): they may allocate, by design (a referee's word, not a button-to-display press).
    # What must not allocate is undo's replay across their entries (rules.Match._do, the resident
    # half), and the values the displays read every frame: out_next() and elapsed_ms().
    if heap_lock is None:
        raise SkipTest("needs micropython.heap_lock")
    import rules_events

    now = (1 << 30) - 5000  # the ms counter wraps during the test
    for game in ("balkline_47_1", "three_cushion"):
        m = rules.Match(capacity=1024, game=game, target=200, shot_clock=30, timeout_s=20)
        m.new(now, **m.options())
        assert rules_events.lag_tie(m, now) is None
        assert rules_events.lag_tie(m, now) is None
        assert rules_events.review(m, rules.B, now) is None
        assert m.lag(rules.A, now) is None and m.choose(rules.A, False, now) is None
        if game == "three_cushion":
            assert rules_events.jumped(m, rules.A, 5, now) is None  # A's ball and the red
            assert rules_events.frozen(m, rules.B, now) is None
            assert rules_events.frozen_choice(m, 0, now) is None  # respot: the frozen ball to its spot
        else:
            assert rules_events.call(m, rules.CALLS.index("entre"), now, anchor=True) is None
            assert m.point(rules.NOBODY, now) is None
            assert rules_events.call(m, rules.CALLS.index("dedans"), now) is None
            assert rules_events.frozen(m, rules.A, now) is None
            assert rules_events.frozen_choice(m, 2, now) is None  # masse
            assert rules_events.call(m, rules.CALLS.index("out"), now) is None
            assert rules_events.call(m, rules.CALLS.index("a_cheval"), now) is None
        assert rules_events.review(m, rules.A, now) is None
        codes = set(m.entry(i)[0] for i in range(m.n))
        want = {rules.E_LAG_TIE, rules.E_REVIEW, rules.E_FROZEN, rules.E_FROZEN_CHOICE}
        want.add(rules.E_JUMPED if game == "three_cushion" else rules.E_CALL)
        assert want <= codes, (game, codes)
        for i in range(20):  # warm up: attribute slots exist
            m.point(rules.NOBODY, now)
            m.undo(now)
        m.reserve()
        n = m.n
        for i in range(10):
            now = ticks_add(now, 1000)
            assert locked(lambda: m.point(rules.NOBODY, now)) is None
            assert locked(lambda: m.undo(now)) is None  # replays every entry above
            assert m.n == n
            assert locked(lambda: m.out_next()) is (game != "three_cushion")  # 47/1: every carom
            assert locked(lambda: m.elapsed_ms(now)) >= 0
            assert locked(lambda: m.tick(now)) == 0
        assert m.reviews == 3 and m.lag_ties == 2
        if game == "three_cushion":
            assert m.respot == rules.RESPOT_3C
        else:
            assert m.area == 1 and m.area_caroms == 0 and m.respot == rules.RESPOT_MASSE
        # Undo entry by entry, through each new kind, the heap locked all the way back.
        while m.n:
            assert locked(lambda: m.undo(now)) is None
            assert locked(lambda: m.elapsed_ms(now)) >= -1
            assert locked(lambda: m.out_next()) in (True, False)
        assert m.lag_ties == 0 and m.reviews == 0 and m.phase == rules.LAG


def test_a_set_match_with_the_shootout_does_not_allocate():
    # The formats (formats.py, loaded with the match): in a set match with the shoot-out
    # and a warm-up, the presses allocate nothing: points, misses, a foul, the set-winning point,
    # the shoot-out's strokes and its end, undo back across a set's end and across next_set, and
    # the clock's tick through a warm-up and its end. next_set and warmup themselves are words of
    # the referee that go through the cold module rules_events (loaded for the call): they may
    # allocate, by design, as the other rarer events do.
    if heap_lock is None:
        raise SkipTest("needs micropython.heap_lock")
    import rules_events

    now = (1 << 30) - 5000  # the ms counter wraps during the test
    m = rules.Match(capacity=1024, game="straight_rail", target=3, breaker=rules.A, sets=2, shootout=True, warmup_s=60)
    m.new(now, **m.options())
    for i in range(5):  # warm up: attribute slots exist, the formats' code is loaded
        m.point(rules.NOBODY, now)
        m.undo(now)
    m.reserve()
    assert rules_events.warmup(m, rules.A, now) is None
    assert m.phase == rules.WARMUP
    later = ticks_add(now, 30000)
    assert locked(lambda: m.tick(later)) == 0
    assert locked(lambda: m.elapsed_ms(later)) == -1
    end = ticks_add(now, 60000)
    assert locked(lambda: m.tick(end)) == 1  # its time is over: an entry, logged without allocating
    assert m.phase == rules.RUNNING
    now = end

    def press(*calls):
        for call in calls:
            assert locked(call) is None

    # Set 1: A misses, B 2 and a miss, A a foul, B the set-winning point (he did not break).
    press(
        lambda: m.miss(rules.A, now),
        lambda: m.point(rules.B, now),
        lambda: m.point(rules.B, now),
        lambda: m.miss(rules.B, now),
        lambda: m.foul(rules.A, 3, now),
        lambda: m.point(rules.B, now),
    )
    assert m.phase == rules.SET_OVER and m.sets_won[rules.B] == 1
    press(lambda: m.undo(now))  # back across the set's end
    assert m.phase == rules.RUNNING and m.sets_won[rules.B] == 0
    press(lambda: m.point(rules.B, now))
    assert m.phase == rules.SET_OVER
    assert rules_events.next_set(m, now) is None  # the cold module: may allocate
    press(lambda: m.undo(now))  # back across next_set
    assert m.phase == rules.SET_OVER and m.set_no == 1
    assert rules_events.next_set(m, now) is None
    assert m.turn == rules.B
    # Set 2: B breaks and makes 3; A equalizes: a drawn set, to the shoot-out.
    press(lambda: m.point(rules.B, now), lambda: m.point(rules.B, now), lambda: m.point(rules.B, now))
    assert m.phase == rules.EQUALIZING
    press(lambda: m.point(rules.A, now), lambda: m.point(rules.A, now), lambda: m.point(rules.A, now))
    assert m.phase == rules.SHOOTOUT and m.turn == rules.B
    # Shoot-out: 1:1, another round; then B 2, A 1: B wins the set and the match.
    press(
        lambda: m.point(rules.B, now),
        lambda: m.miss(rules.B, now),
        lambda: m.point(rules.A, now),
        lambda: m.foul(rules.A, 3, now),
    )
    assert m.so_round == 1 and m.phase == rules.SHOOTOUT
    press(lambda: m.undo(now), lambda: m.foul(rules.A, 3, now))
    assert locked(lambda: m.timeout(rules.B, now)) is not None  # no time-out in it: refused, no allocation
    press(
        lambda: m.point(rules.B, now),
        lambda: m.point(rules.B, now),
        lambda: m.miss(rules.B, now),
        lambda: m.point(rules.A, now),
        lambda: m.miss(rules.A, now),
    )
    assert m.phase == rules.FINISHED and m.result == rules.R_B and m.ended_by == rules.END_SHOOTOUT
    assert m.sets_won[rules.A] == 0 and m.sets_won[rules.B] == 2
    press(lambda: m.undo(now))
    assert m.phase == rules.SHOOTOUT
    assert locked(lambda: m.countdown()) == -1
    assert locked(lambda: m.elapsed_ms(now)) >= 0
    assert locked(lambda: m.tick(ticks_add(now, 500000))) == 0  # no clock runs in the shoot-out
    # Undo entry by entry, the heap locked all the way back (replays through every kind).
    while m.n:
        code = m.entry(m.n - 1)[0]
        assert locked(lambda: m.undo(now)) is None, code
    assert m.phase == rules.RUNNING and m.set_no == 1


def test_a_format_match_allocates_not_even_call_frames():
    # heap_lock cannot see a call frame MicroPython puts on the heap when a function's frame
    # is large (it falls back to the C stack while the heap is locked); mem_total counts
    # every byte allocated. The presses of a set match with the shoot-out, the formats' hooks
    # (formats.check, do, finish) in each, allocate nothing at all.
    try:
        from micropython import mem_total
    except ImportError:
        raise SkipTest("needs micropython.mem_total")
    import gc

    import rules_events

    now = 1000
    m = rules.Match(capacity=1024, game="straight_rail", target=3, breaker=rules.A, sets=2, shootout=True)
    for i in range(5):  # warm up: attribute slots exist
        m.point(rules.NOBODY, now)
        m.undo(now)
    m.reserve()
    used = []

    def press(call):
        gc.collect()
        before = mem_total()
        reason = call()
        used.append(mem_total() - before)
        assert reason is None, reason

    for call in (
        lambda: m.miss(rules.A, now),
        lambda: m.point(rules.B, now),
        lambda: m.point(rules.B, now),
        lambda: m.foul(rules.B, 3, now),
        lambda: m.point(rules.A, now),
        lambda: m.undo(now),
        lambda: m.miss(rules.A, now),
        lambda: m.point(rules.B, now),
    ):
        press(call)
    assert m.phase == rules.SET_OVER
    assert rules_events.next_set(m, now) is None  # the cold module: may allocate, by design
    for call in (
        lambda: m.point(rules.B, now),
        lambda: m.point(rules.B, now),
        lambda: m.point(rules.B, now),
        lambda: m.point(rules.A, now),
        lambda: m.point(rules.A, now),
        lambda: m.point(rules.A, now),
        lambda: m.point(rules.B, now),
        lambda: m.miss(rules.B, now),
        lambda: m.miss(rules.A, now),
    ):
        press(call)
    assert m.phase == rules.FINISHED and m.ended_by == rules.END_SHOOTOUT
    gc.collect()
    before = mem_total()
    assert m.tick(now + 1000) == 0 and m.countdown() == -1 and m.elapsed_ms(now) >= 0
    used.append(mem_total() - before)
    while m.n:  # every entry undone, the replays through the shoot-out, next_set and the set's end
        press(lambda: m.undo(now))
    assert used == [0] * len(used), used
