"""The match log: fixed chunks, undo from checkpoints, room made off the button path.

Runs on CPython and MicroPython (the allocation checks need MicroPython). What
is tried: matches of 3,000 entries with every kind of entry; an undo at and
around every chunk boundary compared with a match rebuilt entry by entry; the
entries one undo replays; extensions undone and made again; the log made to
run out of memory at a chunk boundary.
"""

import gc

import matchdoc
import reasons
import rules_events
import rules_setup
import rules
from fwtest import SkipTest
from ticks import ticks_add

N = 3000
START = (1 << 30) - 600000  # the clock wraps during the match


def long_match(n=N, shot_clock=30):
    """A straight-rail match to 9,999 with n entries: runs, misses, fouls, the break, time-outs."""
    m = rules.Match(game="straight_rail", target=9999, breaker=rules.A, shot_clock=shot_clock, break_s=60)
    m.new(START, **m.options())
    now = START
    i = 0
    while m.n < n:
        now = play(m, i, now, breaks=True)
        i += 1
        if i % 50 == 0:
            m.reserve()
    return m, now


def play(m, i, now, breaks=False, undos=False):
    """Round i of a long match, 2 s after `now`: mostly points, a miss, a push foul, the shot
    clock run out (a time-out, then a time foul); with `breaks` the half-time break at its
    first chance, with `undos` an undo every 69 rounds. Returns the time after it."""
    now = ticks_add(now, 2000)
    k = i % 23
    if k == 7:
        m.miss(rules.NOBODY, now)
    elif k == 13:
        m.foul(rules.NOBODY, rules.FOULS.index("push"), now)
    elif k == 19:
        m.tick(ticks_add(now, 31000))
        now = ticks_add(now, 31000)
    elif breaks and k == 3 and not m.break_taken and max(m.score) * 2 >= m.targets[0]:
        m.break_request(m.turn, now)
    elif undos and k == 11 and i % 3 == 0:
        m.undo(now)
    else:
        m.point(rules.NOBODY, now)
    return now


def rebuilt(m, n):
    """A new match with m's options and its first n entries, applied one by one."""
    r = rules.Match(**m.options())
    for i in range(n):
        code, arg, t = m.entry(i)
        rules_setup.apply(r, code, arg, t)
    return r


def state(m, now):
    d = matchdoc.doc(m, now)
    d["events"] = None
    return d


def test_a_long_match_keeps_every_entry():
    m, now = long_match()
    assert m.n >= N
    r = rebuilt(m, m.n)
    assert state(r, 0) == state(m, 0)
    assert sum(m.run_of(rules.A, i) for i in range(m.innings[rules.A])) == m.score[rules.A]
    assert sum(m.run_of(rules.B, i) for i in range(m.innings[rules.B])) == m.score[rules.B]


def test_undo_around_every_chunk_boundary_equals_a_rebuild():
    m, now = long_match(1100)
    targets = []
    for k in range(4, 0, -1):
        targets += [k * rules.CHUNK + 1, k * rules.CHUNK, k * rules.CHUNK - 1]
    for n in targets:
        while m.n > n:
            assert m.undo(now) is None
        assert state(m, 0) == state(rebuilt(m, n), 0), n


def test_an_undo_replays_less_than_a_chunk():
    m, now = long_match()
    done = []
    real = m._do

    def counting(code, arg, t):
        done.append(code)
        real(code, arg, t)

    m._do = counting
    most = 0
    for _ in range(600):
        del done[:]
        assert m.undo(now) is None
        most = max(most, len(done))
    assert 0 < most < rules.CHUNK, most


def test_an_extension_undone_and_made_again_reuses_its_number():
    m = rules.Match(game="three_cushion", target=2, breaker=rules.A)
    for line in (0, 1):
        m.point(rules.NOBODY, line)
    m.point(rules.NOBODY, 10)
    m.point(rules.NOBODY, 11)
    assert m.result == rules.R_DRAW
    for target in (5, 6, 7, 8):
        assert rules_events.extend(m, target, 20) is None
        assert m.entry(m.n - 1)[:2] == (rules.E_EXTEND, target)
        assert m.targets == [target, target]
        assert m.undo(30) is None
    assert len(m._targets) == 2  # one extension's two targets (A's, B's)
    assert rules_events.extend(m, 9, 40) is None
    assert rebuilt(m, m.n).targets == [9, 9]


def test_low_water_mark_follows_undo():
    m = rules.Match(game="straight_rail", target=50, breaker=rules.A)
    for i in range(10):
        m.point(rules.NOBODY, i)
    m.low = m.n
    m.undo(20)
    m.undo(21)
    m.point(rules.NOBODY, 22)
    assert (m.low, m.n) == (8, 9)
    m.new(30, game="straight_rail", target=50)
    assert m.low == 0


def test_a_new_match_lets_the_long_log_go():
    m, now = long_match(2000)
    assert len(m._chunks) >= 2000 // rules.CHUNK
    m.new(now, game="three_cushion", target=30)
    assert len(m._chunks) == 1 and len(m._runs[0]) == 1 and len(m._runs[1]) == 1


def _mp():
    try:
        import micropython

        micropython.mem_total
        return micropython
    except (ImportError, AttributeError):
        raise SkipTest("needs MicroPython")


def test_reserve_keeps_events_allocation_free_across_chunks():
    micropython = _mp()
    m = rules.Match(game="straight_rail", target=9999, breaker=rules.A)
    now = START
    for _ in range(40):
        now = ticks_add(now, 100)
        m.point(rules.NOBODY, now)
    allocated = 0
    for i in range(3 * rules.CHUNK):
        if i % 8 == 0:
            m.reserve()  # the app's clock task does this, off the button path
        now = ticks_add(now, 100)
        gc.collect()
        before = micropython.mem_total()
        assert m.point(rules.NOBODY, now) is None
        if i % 31 == 30:
            assert m.miss(rules.NOBODY, now) is None
        allocated += micropython.mem_total() - before
    assert allocated == 0, allocated
    assert m.n > 3 * rules.CHUNK


def test_no_memory_for_the_next_chunk_refuses_the_event_and_changes_nothing():
    micropython = _mp()
    m = rules.Match(game="straight_rail", target=9999, breaker=rules.A, shot_clock=30)
    now = START
    while m.n < rules.CHUNK:
        now = ticks_add(now, 100)
        m.point(rules.NOBODY, now)
    before = state(m, now)
    n = m.n
    micropython.heap_lock()
    try:
        reason = m.point(rules.NOBODY, now)
        added = m.tick(ticks_add(now, 31000))  # a time-out is due: no room for it either
    finally:
        micropython.heap_unlock()
    assert reasons.text(reason) == reasons.NO_MEMORY and added == 0
    assert m.n == n and state(m, now) == before
    assert m.out_of_memory == 2
    assert m.point(rules.NOBODY, now) is None and m.n == n + 1


# ---- the window: old chunks on the flash only ---------------------------------------------


def windowed_match(n, fs=None):
    """A long match saved entry by entry in a store, reserve() called as the app's clock task
    does: old chunks leave RAM (the store reads them back)."""
    import store
    from faultfs import MemFs

    fs = fs or MemFs()
    st = store.MatchStore("/w", fs)
    m = rules.Match(game="straight_rail", target=9999, breaker=rules.A, shot_clock=30, break_s=60)
    m.new(START, **rules_setup.options(m))
    assert st.begin(m) is None and m.loader is not None
    now = START
    i = 0
    while m.n < n:
        now = play(m, i, now, undos=True)
        i += 1
        assert st.sync(m) is None
        if i % 16 == 0:
            m.reserve()
    m.reserve()
    return m, st, fs, now


def in_ram(m):
    return sum(1 for c in m._chunks if c is not None)


def test_a_long_match_keeps_a_window_of_chunks_in_ram():
    m, st, fs, now = windowed_match(N)
    assert len(m._chunks) >= N // rules.CHUNK
    assert in_ram(m) <= rules.WINDOW + 1, in_ram(m)
    plain = rebuilt(m, m.n)  # every entry, read back through the window where need be
    assert state(plain, 0) == state(m, 0)
    assert plain.n == m.n and all(c is not None for c in plain._chunks)


def test_deep_undo_reads_old_chunks_back():
    m, st, fs, now = windowed_match(1800)
    full = rebuilt(m, m.n)
    evicted = [k for k in range(len(m._chunks)) if m._chunks[k] is None]
    assert evicted, "nothing left RAM"
    target = evicted[-1] * rules.CHUNK + 17  # well inside a chunk that is on the flash only
    while m.n > target:
        assert m.undo(now) is None
        assert st.sync(m) is None
    assert state(m, 0) == state(rebuilt(full, target), 0)
    # and the log goes on from there as usual
    assert m.point(rules.NOBODY, now) is None and st.sync(m) is None


def test_the_report_reads_the_flash_for_old_chunks():
    import report

    m, st, fs, now = windowed_match(1300)
    assert in_ram(m) < len(m._chunks)
    full = rebuilt(m, m.n)
    assert report.build(m, now) == report.build(full, now)


def test_an_old_chunk_that_cannot_be_read_back_refuses_the_undo():
    m, st, fs, now = windowed_match(1300)
    for path in [p for p in fs.files if "/jnl/" in p]:
        del fs.files[path]  # the journal is gone
    lowest = min(k for k in range(len(m._chunks)) if m._chunks[k] is not None)
    assert lowest > 0
    while m.n > lowest * rules.CHUNK + 1:
        assert m.undo(now) is None  # the chunks in RAM are enough
    before = state(m, now)
    n = m.n
    assert reasons.text(m.undo(now)) == reasons.NO_MEMORY  # the next one needs chunk lowest - 1
    assert m.n == n and state(m, now) == before


def test_a_restored_long_match_lets_its_old_chunks_go():
    import store

    m, st, fs, now = windowed_match(1800)
    m2 = rules.Match()
    assert store.MatchStore("/w", fs).restore(m2, now)
    assert m2.loader is not None and in_ram(m2) <= rules.WINDOW + 1  # read back with a window in RAM
    assert state(m2, 0) == state(m, 0)
    for _ in range(300):
        assert m2.undo(now) is None and m.undo(now) is None
    assert state(m2, 0) == state(m, 0)


def test_logback_knows_where_a_checkpoint_keeps_the_extensions():
    import rules_logback

    if not hasattr(rules_logback, "_EXT"):  # MicroPython leaves private constants out of the module
        raise SkipTest("rules_logback._EXT is compiled away")
    assert rules._FIELDS[rules_logback._EXT] == "extensions"


def test_extensions_in_chunks_read_back_keep_their_targets():
    """The log keeps an extension's number, the journal its target: a chunk read back from
    the flash gets its numbers from the checkpoint before it (rules_logback.py)."""
    import store
    from faultfs import MemFs

    fs = MemFs()
    st = store.MatchStore("/w", fs)
    m = rules.Match(game="three_cushion", target=2, breaker=rules.A)
    assert st.begin(m) is None
    made = []
    now = 0
    while m.n < 5 * rules.CHUNK:
        now += 1000
        if m.result == rules.R_DRAW:
            assert rules_events.extend(m, m.targets[0] + 2, now) is None
        else:  # A reaches the target, B equalizes: a draw, extended again and again
            assert m.point(rules.NOBODY, now) is None
        made.append(m.entry(m.n - 1))
        assert st.sync(m) is None
        m.reserve()
    assert None in m._chunks  # old chunks left RAM
    assert sum(1 for e in made if e[0] == rules.E_EXTEND) > 20
    assert [m.entry(i) for i in range(m.n)] == made
    while m.n > 10:  # undo deep into the match: chunks come back in RAM
        assert m.undo(now) is None
    assert [m.entry(i) for i in range(m.n)] == made[:10]
    assert state(m, 0) == state(rebuilt(m, 10), 0)


def test_a_journal_with_a_deep_undo_comes_back_whole():
    """Restore plays the journal with a window of the log in RAM: an undo record deep into
    the match reads old chunks back from the journal, whose final entries may differ from
    the ones the log held at that point (taken back, played anew) and may end before it.
    The match that comes back is the one that was played, entry for entry."""
    import store

    m, st, fs, now = windowed_match(1800)
    while m.n > 1800 - 5 * rules.CHUNK - 40:  # back over five chunks, most of them on the flash only
        assert m.undo(now) is None
        assert st.sync(m) is None
    for i in range(60):  # and on again from there: the journal now ends below where it was
        now = ticks_add(now, 1000)
        assert (m.miss if i % 9 == 8 else m.point)(rules.NOBODY, now) is None
        assert st.sync(m) is None
    m2 = rules.Match()
    assert store.MatchStore("/w", fs).restore(m2, now)
    # In RAM: the window below the newest entry, and the chunks the log had above it before
    # the undo (room it grows back into), as in the match that was played.
    below = [k for k in range(len(m2._chunks)) if m2._chunks[k] is not None and k <= m2.n // rules.CHUNK]
    assert len(below) <= rules.WINDOW + 1 and in_ram(m2) <= in_ram(m)
    assert m2.n == m.n
    for i in range(m.n):
        assert m2.entry(i) == m.entry(i), i
    assert state(m2, now) == state(m, now)
    for _ in range(3 * rules.CHUNK):  # and undo still goes back through it
        assert m2.undo(now) is None and m.undo(now) is None
    assert state(m2, now) == state(m, now)


def test_undo_from_a_quarters_state_after_a_deep_undo_and_new_entries():
    """The newest two chunks keep the state before each quarter (32 entries) for undo, each
    quarter's own: after a deep undo into a chunk read back from the flash (no quarter of it
    kept), new entries past a quarter keep that one only; every undo then is the match rebuilt."""
    m, st, fs, now = windowed_match(1800)
    evicted = [k for k in range(len(m._chunks)) if m._chunks[k] is None]
    # In a chunk on the flash only whose quarters' slots a newer chunk of its parity took (the
    # newest chunk, with few entries, has none yet), past its second quarter.
    target = evicted[-2] * rules.CHUNK + 70
    while m.n > target:
        assert m.undo(now) is None
        assert st.sync(m) is None
    for i in range(40):  # on past its fourth quarter (96): that quarter's state is kept
        now = ticks_add(now, 1000)
        assert (m.miss if i % 7 == 6 else m.point)(rules.NOBODY, now) is None
        assert st.sync(m) is None
    full = rebuilt(m, m.n)
    for _ in range(80):  # back over the quarters: the kept one, then the chunk's start
        assert m.undo(now) is None
        assert state(m, 0) == state(rebuilt(full, m.n), 0), m.n
